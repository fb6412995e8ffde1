// `pto-mem plan --explain` as a user meets it: a problem that does not fit
// is explained in the summary and in the report, and the explanation is
// checked against the problem through the tool itself -- the subset cut out
// of the problem file does not fit, without any one member it does, and the
// least capacity fits while (when proved) one byte less does not.
#include <doctest/doctest.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <map>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "temp_dir.hpp"
#include "test_support.hpp"
#include "tool_run.hpp"

// The helpers and tests sit in a namespace of their own: the suite is one
// translation unit.
namespace explain_test {
using namespace pto_mem::tool_test;
using nlohmann::json;
using pto_mem::test::read_file;
using pto_mem::test::TempDir;

/// a, b and c are never live together but pairwise separated: 12 bytes in
/// a capacity of 10. d (separated from c) and e (live throughout) are not
/// part of the conflict; f is in an arena that fits.
const char* const apart_problem = R"({
  "arenas": [{"id": 0, "name": "Vec", "capacity": 10}, {"id": 1, "name": "Mat", "capacity": 64}],
  "buffers": [
    {"id": "a", "size": 4, "arena": 0, "lifetime": [0, 2]},
    {"id": "b", "size": 4, "arena": 0, "lifetime": [2, 4]},
    {"id": "c", "size": 4, "arena": 0, "lifetime": [4, 6]},
    {"id": "d", "size": 3, "arena": 0, "lifetime": [6, 8]},
    {"id": "e", "size": 2, "arena": 0, "lifetime": [0, 8]},
    {"id": "f", "size": 8, "arena": 1, "lifetime": [0, 8]}
  ],
  "separations": [["a", "b"], ["c", "d"], ["b", "c"], ["a", "c"]]
})";

std::string label(const json& id) { return id.is_string() ? id.get<std::string>() : id.dump(); }

/// The status the tool's report gives for `file` (planned with `extra`).
std::string status_of(TempDir& dir, const std::string& file, std::vector<std::string> extra = {}) {
  std::vector<std::string> args{"plan", file, "-q", "--json", dir.file("status.json")};
  args.insert(args.end(), extra.begin(), extra.end());
  const auto r = tool(args);
  REQUIRE_MESSAGE((r.code == 0 || r.code == 1), r.err);
  return json::parse(read_file(dir.file("status.json")))["status"].get<std::string>();
}

bool fits(const std::string& status) { return status == "optimal" || status == "feasible"; }

/// What a member selects in the problem file.
struct Selection {
  std::set<std::string> buffers;
  std::set<std::size_t> separations;                      // positions in "separations"
  std::set<std::pair<std::string, std::size_t>> windows;  // (arena name, position in "reserved")
};

/// The problem file `doc` restricted to `s`: a constraint stays when it is
/// selected and names only kept buffers; every arena stays, with only the
/// selected reserved windows.
json cut(const json& doc, const Selection& s) {
  json out = doc;
  out["buffers"] = json::array();
  for (const auto& b : doc["buffers"])
    if (s.buffers.count(label(b["id"]))) out["buffers"].push_back(b);
  out["separations"] = json::array();
  if (doc.contains("separations"))
    for (std::size_t k = 0; k < doc["separations"].size(); ++k) {
      const auto& sep = doc["separations"][k];
      if (s.separations.count(k) && s.buffers.count(label(sep[0])) && s.buffers.count(label(sep[1])))
        out["separations"].push_back(sep);
    }
  for (auto& a : out["arenas"]) {
    if (!a.contains("reserved")) continue;
    json kept = json::array();
    for (std::size_t w = 0; w < a["reserved"].size(); ++w)
      if (s.windows.count({a["name"].get<std::string>(), w})) kept.push_back(a["reserved"][w]);
    a["reserved"] = kept;
  }
  return out;
}

/// Adds `m` (an element of the report's "members") to `s`, checking that
/// it names what the problem file holds at its position.
void select(const json& doc, const json& m, Selection& s) {
  const std::string kind = m["kind"];
  if (kind == "buffer") {
    s.buffers.insert(label(m["buffer"]));
  } else if (kind == "separation") {
    const std::size_t k = m["index"];
    REQUIRE(k < doc["separations"].size());
    CHECK(label(doc["separations"][k][0]) == label(m["a"]));
    CHECK(label(doc["separations"][k][1]) == label(m["b"]));
    s.separations.insert(k);
  } else if (kind == "reserved") {
    const std::string arena = m["arena"];
    const std::size_t w = m["window"];
    bool found = false;
    for (const auto& a : doc["arenas"])
      if (a["name"] == arena) {
        REQUIRE(w < a["reserved"].size());
        CHECK(a["reserved"][w][0] == m["begin"]);
        CHECK(a["reserved"][w][1] == m["end"]);
        found = true;
      }
    CHECK(found);
    s.windows.insert({arena, w});
  } else {
    FAIL("a member kind the test's problems cannot hold: " << kind);
  }
}

std::map<std::string, json> buffers_by_id(const json& doc) {
  std::map<std::string, json> out;
  for (const auto& b : doc["buffers"]) out[label(b["id"])] = b;
  return out;
}

/// Checks the report's explanation of `doc` (written to `file`) through
/// the tool: the subset does not fit, each one-smaller subset whose
/// `without` is "fits" does, the shortfall adds up, and each least capacity
/// fits (and, when proved, one byte less does not).
void check_explanation(TempDir& dir, const json& doc, const json& e) {
  REQUIRE(e["explained"] == true);
  REQUIRE(!e["members"].empty());
  Selection all;
  for (const auto& m : e["members"]) select(doc, m, all);
  const std::string whole = dir.write("subset.json", cut(doc, all).dump());
  CHECK(status_of(dir, whole, {"--strategy", "exact"}) == "infeasible");
  for (std::size_t i = 0; i < e["members"].size(); ++i) {
    const json& m = e["members"][i];
    CAPTURE(m.dump());
    Selection rest;
    for (std::size_t j = 0; j < e["members"].size(); ++j)
      if (j != i) select(doc, e["members"][j], rest);
    const std::string less = dir.write("less.json", cut(doc, rest).dump());
    const std::string st = status_of(dir, less, {"--strategy", "exact"});
    if (m["without"] == "fits")
      CHECK(fits(st));
    else
      CHECK(m["without"] == "unknown");
  }
  if (e["minimal"] == true)
    for (const auto& m : e["members"]) CHECK(m["without"] == "fits");

  const auto sizes = buffers_by_id(doc);
  for (const auto& s : e["shortfall"]) {
    CAPTURE(s.dump());
    std::uint64_t live = 0, apart = 0;
    for (const auto& b : s["live"]) {
      REQUIRE(all.buffers.count(label(b)));
      const json& spec = sizes.at(label(b));
      live += spec["size"].get<std::uint64_t>();
      CHECK(spec["lifetime"][0].get<std::int64_t>() <= s["at"].get<std::int64_t>());
      CHECK(s["at"].get<std::int64_t>() < spec["lifetime"][1].get<std::int64_t>());
    }
    for (const auto& b : s["apart"]) apart += sizes.at(label(b))["size"].get<std::uint64_t>();
    CHECK(s["live_bytes"] == live);
    CHECK(s["apart_bytes"] == apart);
    const std::uint64_t need = live + s["reserved_bytes"].get<std::uint64_t>(), cap = s["capacity"];
    CHECK(s["over"] == (need > cap ? need - cap : 0));
  }

  for (const auto& c : e["least_capacity"]) {
    CAPTURE(c.dump());
    if (c["fits_at"].is_null()) continue;
    const std::uint64_t at = c["fits_at"];
    CHECK(at > c["capacity"].get<std::uint64_t>());
    CHECK(c["lower_bound"].get<std::uint64_t>() <= at);
    json grown = doc;
    for (auto& a : grown["arenas"])
      if (a["name"] == c["arena"]) a["capacity"] = at;
    CHECK(fits(status_of(dir, dir.write("grown.json", grown.dump()), {"--strategy", "exact"})));
    if (c["proved"] == true) {
      for (auto& a : grown["arenas"])
        if (a["name"] == c["arena"]) a["capacity"] = at - 1;
      CHECK(!fits(status_of(dir, dir.write("short.json", grown.dump()), {"--strategy", "exact"})));
    }
  }
}

/// A small random problem: one or two arenas (a reserved window now and
/// then), four to seven buffers, separations within an arena; capacities
/// near the max load so that many do not fit.
json random_problem(std::mt19937_64& g) {
  auto pick = [&](int lo, int hi) {
    return lo + static_cast<int>(g() % static_cast<std::uint64_t>(hi - lo + 1));
  };
  json doc;
  const int arenas = pick(1, 2), n = pick(4, 7);
  std::vector<int> arena_of(n), size(n), begin(n), end(n);
  for (int i = 0; i < n; ++i) {
    arena_of[i] = pick(0, arenas - 1);
    size[i] = pick(1, 8);
    begin[i] = pick(0, 5);
    end[i] = begin[i] + pick(1, 4);
  }
  doc["arenas"] = json::array();
  for (int k = 0; k < arenas; ++k) {
    int load = 0;
    for (int t = 0; t < 10; ++t) {
      int here = 0;
      for (int i = 0; i < n; ++i)
        if (arena_of[i] == k && begin[i] <= t && t < end[i]) here += size[i];
      load = std::max(load, here);
    }
    const int cap = std::max(2, load + pick(-1, 4));
    json a{{"id", k}, {"name", "A" + std::to_string(k)}, {"capacity", cap}};
    if (pick(0, 2) == 0) a["reserved"] = json::array({json::array({0, pick(1, std::max(1, cap / 3))})});
    doc["arenas"].push_back(a);
  }
  doc["buffers"] = json::array();
  for (int i = 0; i < n; ++i) {
    json b{{"id", "t" + std::to_string(i)},
           {"size", size[i]},
           {"arena", arena_of[i]},
           {"lifetime", {begin[i], end[i]}}};
    if (pick(0, 3) == 0) b["alignment"] = 2;
    doc["buffers"].push_back(b);
  }
  doc["separations"] = json::array();
  for (int i = 0; i < n; ++i)
    for (int j = i + 1; j < n; ++j)
      if (arena_of[i] == arena_of[j] && pick(0, 2) == 0)
        doc["separations"].push_back({"t" + std::to_string(i), "t" + std::to_string(j)});
  return doc;
}

/// A random problem whose peak search does not end for a long time and
/// whose capacity is below its max load: plan() proves it infeasible at
/// once, and the least-capacity search of the explanation runs long.
std::string write_long_infeasible(TempDir& dir) {
  std::mt19937_64 g(7);
  std::string csv = "id,lower,upper,size\n";
  const int n = 20000;
  for (int i = 0; i < n; ++i) {
    const auto begin = g() % (n / 2);
    const auto kind = g() % 100;
    const auto length = kind < 70 ? 1 + g() % 8 : kind < 95 ? 8 + g() % 193 : 200 + g() % 4801;
    const auto log2 = 5 + g() % 16;
    const auto size = std::max<std::uint64_t>(32, ((1ull << log2) + g() % (1ull << log2)) / 32 * 32);
    csv += std::to_string(i) + "," + std::to_string(begin) + "," + std::to_string(begin + length) + "," +
           std::to_string(size) + "\n";
  }
  return dir.write("long.csv", csv);
}

bool wait_for_stderr(const std::string& err_file, const std::string& what, int seconds) {
  for (int i = 0; i < seconds * 50; ++i) {
    if (read_file(err_file).find(what) != std::string::npos) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return false;
}

TEST_CASE(
    "plan --explain of an infeasible problem names a minimal conflicting subset, in the summary and the "
    "report") {
  SKIP_WITHOUT_TOOL();
  TempDir dir;
  const std::string file = dir.write("apart.json", apart_problem);
  const auto r = tool({"plan", file, "--explain", "--json", dir.file("r.json")});
  CHECK_MESSAGE(r.code == 1, r.err);
  CHECK(has(r.out, "status: infeasible"));
  CHECK(
      has(r.out,
          "explanation: these do not fit together, and without any one of them they do: buffer a; buffer b; "
          "buffer c; separation a / b; separation b / c; separation a / c\n"));
  CHECK(has(r.out,
            "explanation: arena 'Vec': the buffers a, b, c must all be apart and need 12 bytes, 2 over the "
            "capacity 10\n"));
  CHECK(has(r.out, "explanation: arena 'Vec': fits at capacity 14 and not below (proved)\n"));
  const json report = json::parse(read_file(dir.file("r.json")));
  CHECK(report["status"] == "infeasible");
  REQUIRE(report.contains("explanation"));
  const json& e = report["explanation"];
  CHECK(e["explained"] == true);
  CHECK(e["minimal"] == true);
  CHECK(e["checks"].get<int>() > 0);
  std::vector<std::string> kinds, names;
  for (const auto& m : e["members"]) {
    kinds.push_back(m["kind"]);
    names.push_back(m["kind"] == "buffer" ? label(m["buffer"]) : label(m["a"]) + "/" + label(m["b"]));
  }
  CHECK(names == std::vector<std::string>{"a", "b", "c", "a/b", "b/c", "a/c"});
  CHECK(kinds ==
        std::vector<std::string>{"buffer", "buffer", "buffer", "separation", "separation", "separation"});
  // Separations by their position in the file: ["a","b"] is 0, ["b","c"] 2, ["a","c"] 3.
  CHECK(e["members"][3]["index"] == 0);
  CHECK(e["members"][4]["index"] == 2);
  CHECK(e["members"][5]["index"] == 3);
  REQUIRE(e["shortfall"].size() == 1);
  CHECK(e["shortfall"][0]["arena"] == "Vec");
  CHECK(e["shortfall"][0]["over"] == 0);
  CHECK(e["shortfall"][0]["apart_over"] == 2);
  // Only Vec does not fit: Mat needs no more capacity.
  REQUIRE(e["least_capacity"].size() == 1);
  CHECK(e["least_capacity"][0]["arena"] == "Vec");
  CHECK(e["least_capacity"][0]["fits_at"] == 14);
  CHECK(e["least_capacity"][0]["proved"] == true);
  check_explanation(dir, json::parse(apart_problem), e);
}

TEST_CASE(
    "plan --explain of a no_fit (a bounded search that neither fit nor proved) explains it by exact checks") {
  SKIP_WITHOUT_TOOL();
  TempDir dir;
  const std::string file = dir.write("apart.json", apart_problem);
  const auto r = tool({"plan", file, "--strategy", "greedy", "--explain", "--json", dir.file("r.json")});
  CHECK_MESSAGE(r.code == 1, r.err);
  CHECK(has(r.out, "status: no_fit"));
  CHECK(has(r.out, "explanation: these do not fit together, and without any one of them they do: "));
  const json report = json::parse(read_file(dir.file("r.json")));
  CHECK(report["status"] == "no_fit");
  CHECK(report["explanation"]["minimal"] == true);
  check_explanation(dir, json::parse(apart_problem), report["explanation"]);
}

TEST_CASE("plan --explain of a problem that fits adds nothing") {
  SKIP_WITHOUT_TOOL();
  TempDir dir;
  const auto with = tool({"plan", example("attention.json"), "--explain", "--json", dir.file("with.json")});
  const auto without = tool({"plan", example("attention.json"), "--json", dir.file("without.json")});
  CHECK_MESSAGE(with.code == 0, with.err);
  CHECK(!has(with.out, "explanation"));
  CHECK(with.err == without.err);
  json a = json::parse(read_file(dir.file("with.json"))),
       b = json::parse(read_file(dir.file("without.json")));
  CHECK(!a.contains("explanation"));
  a.erase("time_s"), b.erase("time_s");
  CHECK(a == b);
}

TEST_CASE("plan --explain --quiet: no explanation lines, the report still explains") {
  SKIP_WITHOUT_TOOL();
  TempDir dir;
  const std::string file = dir.write("apart.json", apart_problem);
  const auto r = tool({"plan", file, "--explain", "--quiet", "--json", dir.file("r.json")});
  CHECK_MESSAGE(r.code == 1, r.err);
  CHECK(has(r.out, "status: infeasible"));
  CHECK(!has(r.out + r.err, "explanation"));
  const json report = json::parse(read_file(dir.file("r.json")));
  CHECK(report["explanation"]["explained"] == true);
  CHECK(report["explanation"]["members"].size() == 6);
}

TEST_CASE(
    "plan --explain on small random problems that do not fit: the report's subset, re-planned, is minimal") {
  SKIP_WITHOUT_TOOL();
  TempDir dir;
  std::mt19937_64 g(31);
  int explained = 0, tried = 0;
  std::map<std::string, int> kinds;  // the member kinds met, so that the problems exercise each
  while (explained < 12 && tried < 300) {
    ++tried;
    const json doc = random_problem(g);
    CAPTURE(doc.dump());
    const std::string file = dir.write("p.json", doc.dump());
    if (status_of(dir, file, {"--strategy", "exact"}) != "infeasible") continue;
    const auto r = tool({"plan", file, "--explain", "-q", "--json", dir.file("r.json")});
    REQUIRE_MESSAGE(r.code == 1, r.err);
    const json e = json::parse(read_file(dir.file("r.json")))["explanation"];
    CAPTURE(e.dump());
    CHECK(e["minimal"] == true);  // tiny problems: every check is decided
    check_explanation(dir, doc, e);
    for (const auto& m : e["members"]) ++kinds[m["kind"].get<std::string>()];
    ++explained;
  }
  CHECK(explained == 12);
  CAPTURE(json(kinds).dump());
  CHECK(kinds["buffer"] > 0);
  CHECK(kinds["separation"] > 0);
  CHECK(kinds["reserved"] > 0);
}

TEST_CASE(
    "SIGINT during --explain: the explanation found so far is written whole, and the tool ends by the "
    "signal") {
  SKIP_WITHOUT_TOOL();
  TempDir dir;
  const std::string file = write_long_infeasible(dir);
  dir.write("r.json", "old\n");
  const pid_t pid = spawn_tool({"plan", file, "--capacity", "1048576", "--node-limit", "0", "--explain",
                                "--progress", "--json", dir.file("r.json")},
                               dir.file("stderr"));
  // The progress line says when the explanation runs (after a second).
  REQUIRE(wait_for_stderr(dir.file("stderr"), "explaining why it does not fit", 120));
  ::kill(pid, SIGINT);
  int status = 0;
  REQUIRE(::waitpid(pid, &status, 0) == pid);
  const std::string err = read_file(dir.file("stderr"));
  CAPTURE(err);
  CHECK(WIFSIGNALED(status));
  if (WIFSIGNALED(status)) CHECK(WTERMSIG(status) == SIGINT);
  CHECK(has(err, "interrupted: stopping the explanation"));
  const json report = json::parse(read_file(dir.file("r.json")));
  CHECK(report["status"] == "infeasible");
  const json& e = report["explanation"];
  for (const char* key : {"explained", "minimal", "checks", "time_s", "members", "exclusions", "shortfall",
                          "least_capacity", "notes"})
    CHECK(e.contains(key));
  // The max load proves a subset at once; the least capacity was cut short.
  CHECK(e["explained"] == true);
  REQUIRE(e["least_capacity"].size() == 1);
  CHECK(e["least_capacity"][0]["proved"] == false);
  bool said = false;
  for (const auto& n : e["notes"])
    said = said || has(n.get<std::string>(), "the explanation was interrupted");
  CHECK(said);
  std::vector<std::string> expected{"long.csv", "r.json", "stderr"};
  CHECK(dir.entries() == expected);
}

}  // namespace explain_test
