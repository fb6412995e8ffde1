#include <doctest/doctest.h>

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "pto_mem/io/report.hpp"
#include "pto_mem/io/svg.hpp"
#include "pto_mem/planner.hpp"
#include "temp_dir.hpp"
#include "test_support.hpp"

using namespace pto_mem;

namespace {

Problem two_arenas() {
  Problem p;
  p.arenas = {{0, "Vec", 4096, {{0, 256}}}, {1, "", 8192, {}}};
  p.buffers = {{"a", 512, 32, 0, {0, 4}},
               {"b", 1024, 32, 0, {2, 6}},
               {"c<&>", 256, 1, 0, {5, 9}},
               {"10", 2048, 1, 1, {0, 3}},
               {"11", 2048, 1, 1, {3, 5}}};
  return p;
}

std::size_t count(const std::string& s, const std::string& what) {
  std::size_t n = 0;
  for (auto pos = s.find(what); pos != std::string::npos; pos = s.find(what, pos + what.size())) ++n;
  return n;
}

/// A small XML well-formedness check: every tag closes in order, attributes
/// are quoted, and text has no bare '<' or '&'.
std::string xml_problem(const std::string& s) {
  std::vector<std::string> open;
  std::size_t i = 0;
  while (i < s.size()) {
    if (s[i] == '&') {
      const auto semi = s.find(';', i);
      const std::string ent = s.substr(i, semi == std::string::npos ? 8 : semi - i + 1);
      if (ent != "&amp;" && ent != "&lt;" && ent != "&gt;" && ent != "&quot;") return "bad entity " + ent;
      i = semi + 1;
      continue;
    }
    if (s[i] != '<') {
      ++i;
      continue;
    }
    const auto close = s.find('>', i);
    if (close == std::string::npos) return "unclosed tag";
    std::string tag = s.substr(i + 1, close - i - 1);
    i = close + 1;
    if (tag.empty()) return "empty tag";
    if (tag[0] == '/') {
      if (open.empty() || open.back() != tag.substr(1)) return "mismatched </" + tag.substr(1) + ">";
      open.pop_back();
      continue;
    }
    if (std::count(tag.begin(), tag.end(), '"') % 2 != 0) return "unbalanced quotes in <" + tag + ">";
    if (tag.find('<') != std::string::npos) return "'<' inside a tag";
    const bool self_closing = tag.back() == '/';
    const std::string name = tag.substr(0, tag.find_first_of(" /"));
    if (!self_closing) open.push_back(name);
  }
  return open.empty() ? "" : "unclosed <" + open.back() + ">";
}

}  // namespace

TEST_CASE("report: keys in a stable order with every field of the result") {
  const Problem p = two_arenas();
  PlanResult r = plan(p);
  REQUIRE(r.fits());
  r.statistics.set("restarts", 3);
  r.diagnostics.push_back(Diagnostic{Severity::warning, "PH-X-1", "careful", SourceLocation{"f.json", 2, 3}});
  const auto j = report_json(p, r);
  std::vector<std::string> keys;
  for (auto it = j.begin(); it != j.end(); ++it) keys.push_back(it.key());
  CHECK(keys == std::vector<std::string>{"status", "strategy", "stopped_by", "proved", "placement",
                                         "objective", "max_load_bound", "proved_bound", "statistics",
                                         "diagnostics", "time_s"});
  CHECK(j["status"] == to_string(r.status));
  CHECK(j["strategy"] == r.strategy);
  CHECK(j["stopped_by"] == "completed");
  CHECK(j["proved"]["penalty"] == r.proved.penalty);
  CHECK(j["proved"]["peak"] == r.proved.peak);
  CHECK(j["proved"]["penalty_bound"] == r.proved.penalty_bound);
  {
    PlanResult cut = r;
    cut.stopped_by = StopReason::interrupted;
    CHECK(report_json(p, cut)["stopped_by"] == "interrupted");
  }
  REQUIRE(j["placement"].size() == p.buffers.size());
  CHECK(j["placement"][0]["id"] == "a");
  CHECK(j["placement"][3]["id"] == 10);  // integer ids stay integers
  for (std::size_t i = 0; i < p.buffers.size(); ++i)
    CHECK(j["placement"][i]["offset"] == *r.placement->offsets[i]);
  CHECK(j["objective"]["total_peak"] == r.objective.total_peak);
  CHECK(j["objective"]["peak_by_arena"]["Vec"] == r.objective.peak_by_arena[0]);
  CHECK(j["objective"]["peak_by_arena"]["arena1"] == r.objective.peak_by_arena[1]);
  CHECK(j["proved_bound"]["Vec"] == r.lower_bound[0]);
  CHECK(j["max_load_bound"]["Vec"] == r.max_load_bound[0]);
  CHECK(j["statistics"]["restarts"] == 3);
  CHECK(j["statistics"].contains("candidates_evaluated"));
  CHECK(j["statistics"].begin().key() == "candidates_evaluated");
  const auto& d = j["diagnostics"].back();
  CHECK(d["severity"] == "warning");
  CHECK(d["code"] == "PH-X-1");
  CHECK(d["location"]["line"] == 2);
  CHECK(j["time_s"].is_number());

  // The text parses back to the same document.
  const std::string text = report_text(p, r);
  CHECK(nlohmann::ordered_json::parse(text) == j);
  CHECK(text.ends_with("\n"));
}

TEST_CASE("report: a result without placement reports its status and an empty placement") {
  Problem p = two_arenas();
  p.arenas[0].capacity = 1800;  // sequential cannot fit (the max load, 1792 with the window, would)
  const PlanResult r = plan(p, PlanOptions{.strategy = "sequential"});
  REQUIRE(r.status == Status::no_fit);
  const auto j = report_json(p, r);
  CHECK(j["status"] == "no_fit");
  CHECK(j["placement"].empty());
  CHECK_FALSE(j["diagnostics"].empty());
}

TEST_CASE("arena labels are unique and never empty") {
  Problem p;
  p.arenas = {{0, "UB", 1, {}}, {1, "", 1, {}}, {2, "UB", 1, {}}, {3, "arena1", 1, {}}};
  CHECK(arena_labels(p) == std::vector<std::string>{"UB#0", "arena1#1", "UB#2", "arena1#3"});
}

TEST_CASE("svg: one rectangle per placed buffer, hatched reserved windows, lines and title") {
  const Problem p = two_arenas();
  const PlanResult r = plan(p, PlanOptions{.strategy = "sequential"});  // peaks near capacity: lines drawn
  REQUIRE(r.fits());
  const std::string svg = svg_memory_map(p, *r.placement);
  CHECK_MESSAGE(xml_problem(svg) == "", svg);
  CHECK(svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""));
  CHECK(count(svg, "<rect class=\"b c") == p.buffers.size());
  CHECK(count(svg, "class=\"res\"") == 1);
  CHECK(count(svg, "url(#hatch)") == 1);  // the style rule for reserved windows
  CHECK(count(svg, "<pattern id=\"hatch\"") == 1);
  CHECK(count(svg, "<g class=\"arena\"") == 2);
  CHECK(svg.find("Vec: peak ") != std::string::npos);
  CHECK(svg.find("arena1: peak ") != std::string::npos);
  CHECK(svg.find("c&lt;&amp;&gt;") != std::string::npos);  // ids are escaped
  CHECK(svg.find("class=\"cap\"") != std::string::npos);
  CHECK(svg.find("class=\"peak\"") != std::string::npos);
  CHECK(svg.find(">a</text>") != std::string::npos);  // wide enough to be labelled
  CHECK(svg_memory_map(p, *r.placement) == svg);      // deterministic
}

TEST_CASE("svg: address 0 is at the bottom; the rectangle's height follows its size") {
  Problem p;
  p.arenas = {{0, "A", 1000, {}}};
  p.buffers = {{"low", 500, 1, 0, {0, 10}}, {"high", 500, 1, 0, {0, 10}}};
  Placement pl;
  pl.offsets = {0, 500};
  const std::string svg = svg_memory_map(p, pl);
  // The y and height attributes of each buffer rectangle (std::regex would
  // trip g++ 12's -Wmaybe-uninitialized under the sanitizers).
  auto attribute = [&](std::size_t from, const std::string& name) {
    const auto at = svg.find(" " + name + "=\"", from) + name.size() + 3;
    return std::stod(svg.substr(at, svg.find('"', at) - at));
  };
  std::vector<double> ys, hs;
  for (auto pos = svg.find("<rect class=\"b c"); pos != std::string::npos;
       pos = svg.find("<rect class=\"b c", pos + 1)) {
    ys.push_back(attribute(pos, "y"));
    hs.push_back(attribute(pos, "height"));
  }
  REQUIRE(ys.size() == 2);
  CHECK(ys[0] > ys[1]);  // "low" is drawn below "high"
  CHECK(hs[0] == doctest::Approx(hs[1]));
}

TEST_CASE("svg: large maps drop detail, never buffers, and say so") {
  Problem p;
  p.arenas = {{0, "big", 1, {}}};
  Placement pl;
  Addr top = 0;
  for (int i = 0; i < 300; ++i) {
    p.buffers.push_back({std::to_string(i), 16, 1, 0, {i % 17, i % 17 + 3}});
    pl.offsets.push_back(top);
    top += 16;
  }
  p.buffers.push_back({"unplaced", 16, 1, 0, {0, 1}});
  pl.offsets.push_back(std::nullopt);
  p.arenas[0].capacity = top * 10;  // far above the peak: not drawn to scale
  SvgOptions opt;
  opt.detail_limit = 100;
  const std::string svg = svg_memory_map(p, pl, opt);
  CHECK(xml_problem(svg) == "");
  CHECK(count(svg, "<rect class=\"b c") == 300);
  CHECK(count(svg, "<title>") == 0);
  CHECK(count(svg, "class=\"lbl\"") == 0);
  CHECK(svg.find("301 buffers: outlines, labels and tooltips left out (more than 100); every placed buffer "
                 "is drawn") != std::string::npos);
  CHECK(svg.find("1 buffer has no offset and is not drawn") != std::string::npos);
  CHECK(svg.find("is far above the peak and not drawn to scale") != std::string::npos);
}

TEST_CASE("svg: an empty problem is still a valid picture") {
  const std::string none = svg_memory_map(Problem{}, Placement{});
  CHECK(xml_problem(none) == "");
  Problem p;
  p.arenas = {{0, "empty", 64, {}}};
  const std::string svg = svg_memory_map(p, Placement{});
  CHECK(xml_problem(svg) == "");
  CHECK(svg.find("empty: peak 0 B") != std::string::npos);
}

TEST_CASE("report and svg files are written whole or not at all") {
  pto_mem::test::TempDir dir;
  const Problem p = two_arenas();
  const PlanResult r = plan(p);
  REQUIRE(r.fits());
  CHECK(write_report_file(dir.file("r.json"), p, r).empty());
  CHECK(write_svg_file(dir.file("m.svg"), p, *r.placement).empty());
  CHECK(pto_mem::test::read_file(dir.file("m.svg")) == svg_memory_map(p, *r.placement));
  CHECK(dir.entries() == std::vector<std::string>{"m.svg", "r.json"});
  CHECK_FALSE(write_svg_file(dir.file("no/such/dir/m.svg"), p, *r.placement).empty());
  CHECK_FALSE(write_report_file(dir.file("no/such/dir/r.json"), p, r).empty());
  CHECK(dir.entries() == std::vector<std::string>{"m.svg", "r.json"});
}

TEST_CASE("svg: one time axis for every panel, a legend, ratios to three decimals, no invented capacity") {
  Problem p;
  // Arena 0 lives in [0, 10), arena 1 only in [50, 60): on one shared axis.
  p.arenas = {{0, "A", 1000, {}}, {1, "B", 1, {}}};
  p.buffers = {{"x", 300, 1, 0, {0, 10}}, {"y", 100, 1, 1, {50, 60}}, {"z", 200, 1, 0, {5, 10}}};
  p.arenas[1].capacity = always_fitting_capacity(p, 1);  // as a reader sets it when the file gives none
  Placement pl;
  pl.offsets = {Addr{0}, Addr{0}, Addr{400}};
  SvgOptions o;
  o.proved_bound = {550, 100};  // a search proved more than the max load (500) in A
  const std::string svg = svg_memory_map(p, pl, o);
  CHECK_MESSAGE(xml_problem(svg) == "", svg);
  // The same tick label sits at the same x in both panels.
  auto tick_x = [&](std::size_t from, const std::string& label) {
    const auto at = svg.find("text-anchor=\"middle\">" + label + "</text>", from);
    REQUIRE(at != std::string::npos);
    const auto x = svg.rfind("x=\"", at);
    return svg.substr(x, svg.find('"', x + 3) - x);
  };
  const auto panel_b = svg.find("id=\"arena-1\"");
  REQUIRE(panel_b != std::string::npos);
  CHECK(tick_x(0, "50") == tick_x(panel_b, "50"));
  CHECK(svg.find("class=\"legend\"") != std::string::npos);
  CHECK(svg.find(">max-load bound</text>") != std::string::npos);
  CHECK(svg.find(">proved bound</text>") != std::string::npos);
  CHECK(svg.find("A: peak 600 B, max-load bound 500 B, proved bound 550 B (peak/bound 1.091)") !=
        std::string::npos);
  CHECK(svg.find("B: peak 100 B, max-load bound 100 B (peak/bound 1.000)") != std::string::npos);
  CHECK(svg.find("no capacity given, 1 buffer, 1 live at most") != std::string::npos);
  CHECK(svg.find("capacity 1,000 B, 2 buffers") != std::string::npos);
  // Only A's capacity is a line; B's (never given) is neither drawn nor labelled.
  CHECK(count(svg, "<line class=\"cap\"") == 1);
}
