// PyPTO's DSA schema v1 read natively: the mapping onto the model, the
// refusals (field and line:column), round trips through our JSON, random
// documents read back to the problem they encode, and the whole shared
// corpus planned, its solutions checked against the raw documents by a
// checker written here from the schema's own rules.
#include <doctest/doctest.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "problem_equal.hpp"
#include "pto_mem/algorithms/objective.hpp"
#include "pto_mem/algorithms/validator.hpp"
#include "pto_mem/io/dsa_schema.hpp"
#include "pto_mem/io/json_problem.hpp"
#include "pto_mem/planner.hpp"
#include "test_support.hpp"

using namespace pto_mem;
using nlohmann::json;
using pto_mem::test::dump;

namespace {

/// A small valid document; each test changes one part of it.
json base_doc() {
  return json::parse(R"({
  "schema_version": 1, "profile": "pypto_research_v1", "instance": "k",
  "metadata": {"target": "t"},
  "problem": {
    "pools": [{"id": 3, "name": "Vec", "capacity": 1024, "reserved_ranges": [{"begin": 0, "end": 32}]},
              {"id": 5, "name": "Mat", "capacity": null, "reserved_ranges": []}],
    "buffers": [
      {"id": 7, "name": "a", "size": 64, "alignment": 32, "live_intervals": [{"lower": 0, "upper": 4}], "allowed_pools": [3]},
      {"id": 2, "name": "b", "size": 128, "alignment": 32, "live_intervals": [{"lower": 4, "upper": 8}], "allowed_pools": [3]},
      {"id": 4, "name": "c", "size": 16, "alignment": 16, "live_intervals": [{"lower": 2, "upper": 6}], "allowed_pools": [5]}
    ],
    "constraints": {"colocations": [], "temporal_exclusions": [], "pinned_allocations": [],
      "separations": [{"first": 7, "second": 4, "reasons": ["cross_pipe"]},
                      {"first": 2, "second": 7, "reasons": ["pipeline_stage", "semantic_no_alias"]}]},
    "cost_model": {"reuse_penalties": [{"first": 7, "second": 2, "cost": 3, "reason": "cross_pipe"},
                                       {"first": 2, "second": 7, "cost": 2, "reason": "generic"},
                                       {"first": 7, "second": 4, "cost": 9, "reason": "generic"}]},
    "pypto_structure": {"alias_classes": [{"buffer": 7, "members": ["x", "y"]}],
                        "pipeline_groups": [{"group": 0, "pool": 3, "slot_size": 128, "depth": 2, "effective_depth": 2,
                                             "members": [{"buffer": 7, "stage": 0, "residue": 0}]}]},
    "objective": {"aggregation": "lexicographic", "terms": ["capacity_overflow", "reuse_cost"]}
  }
})");
}

std::string text_of(const json& d) { return d.dump(2) + "\n"; }

std::string errors_of(const json& d) {
  auto r = read_dsa_problem(text_of(d), "p.json");
  CHECK_FALSE(r);
  CHECK_FALSE(r.document.has_value());
  return dump(r.read.diagnostics);
}

/// "p.json:LINE:COL" of the first occurrence of `needle` in `text`, counted here.
std::string position_of(const std::string& text, const std::string& needle) {
  const auto at = text.find(needle);
  REQUIRE(at != std::string::npos);
  std::size_t line = 1, col = 1;
  for (std::size_t i = 0; i < at; ++i) {
    if (text[i] == '\n') {
      ++line;
      col = 1;
    } else {
      ++col;
    }
  }
  return "p.json:" + std::to_string(line) + ":" + std::to_string(col);
}

std::string fnv1a(const std::string& s) {
  std::uint64_t h = 14695981039346656037ULL;
  for (unsigned char c : s) h = (h ^ c) * 1099511628211ULL;
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

}  // namespace

TEST_CASE("dsa schema: detection by the top-level schema_version key") {
  CHECK(looks_like_dsa_schema(text_of(base_doc())));
  CHECK(looks_like_dsa_schema("\xEF\xBB\xBF {\"instance\": \"x\", \"schema_version\": 1}"));
  CHECK_FALSE(looks_like_dsa_schema(R"({"arenas": [], "buffers": [{"id": "schema_version"}]})"));
  CHECK_FALSE(looks_like_dsa_schema(R"({"a": {"schema_version": 1}})"));
  CHECK_FALSE(looks_like_dsa_schema("id,lower,upper,size\n"));
  CHECK_FALSE(looks_like_dsa_schema(""));
}

TEST_CASE("dsa schema: pools, buffers, separations, penalties and the objective map onto the model") {
  const std::string text = text_of(base_doc());
  auto r = read_dsa_problem(text, "p.json");
  REQUIRE_MESSAGE(r, dump(r.read.diagnostics));
  const Problem& p = r.read.file->problem;
  const DsaDocument& d = *r.document;
  REQUIRE(p.arenas.size() == 2);
  CHECK(p.arenas[0].id == 3);
  CHECK(p.arenas[0].name == "Vec");
  CHECK(p.arenas[0].capacity == 1024);
  CHECK(p.arenas[0].reserved == std::vector<AddrRange>{{0, 32}});
  CHECK(p.arenas[1].id == 5);
  CHECK(p.arenas[1].capacity == always_fitting_capacity(p, 5));  // null: no capacity
  CHECK(r.read.file->no_capacity == std::vector<bool>{false, true});
  REQUIRE(p.buffers.size() == 3);
  CHECK(p.buffers[0].name == "a");  // unique valid names become the ids
  CHECK(p.buffers[0].size == 64);
  CHECK(p.buffers[0].alignment == 32);
  CHECK(p.buffers[0].arena == 3);
  CHECK(p.buffers[0].lifetime == Interval{0, 4});
  CHECK(p.buffers[2].arena == 5);
  CHECK(d.buffer_ids == std::vector<std::uint32_t>{7, 2, 4});
  REQUIRE(p.separations.size() == 2);
  CHECK(buffer_label(p, p.separations[0].a) == "a");  // across pools: accepted, vacuous
  CHECK(buffer_label(p, p.separations[0].b) == "c");
  CHECK(p.separations[0].reasons == reason_explicit);  // cross_pipe: a plain hard separation
  CHECK(p.separations[1].reasons == (reason_pipeline_stage | reason_semantic_no_alias));
  // 7-2 twice (3 + 2 add up); 7-4 across pools can never be paid.
  REQUIRE(p.penalties.size() == 1);
  CHECK(p.penalties[0].weight == 5);
  CHECK(d.dropped_penalties == 1);
  CHECK(d.goal == Goal::fit);
  CHECK(d.instance == "k");
  CHECK(d.profile == "pypto_research_v1");
  CHECK(d.objective_terms == std::vector<std::string>{"capacity_overflow", "reuse_cost"});
  CHECK(p.must_alias.empty());  // alias classes and pipeline groups are provenance
  // The fingerprint is FNV-1a 64 of the canonical text (this one is canonical).
  CHECK(d.fingerprint == fnv1a(json::parse(text).dump(2) + "\n"));
  CHECK(d.fingerprint == fnv1a(text));
}

TEST_CASE("dsa schema: names that repeat fall back to the decimal ids") {
  json doc = base_doc();
  doc["problem"]["buffers"][1]["name"] = "a";
  auto r = read_dsa_problem(text_of(doc), "p.json");
  REQUIRE_MESSAGE(r, dump(r.read.diagnostics));
  CHECK(r.read.file->problem.buffers[0].name == "7");
  CHECK(r.read.file->problem.buffers[1].name == "2");
  CHECK(buffer_label(r.read.file->problem, r.read.file->problem.separations[1].a) == "2");
}

TEST_CASE("dsa schema: a peak objective minimises and leaves the reuse penalties out") {
  json doc = base_doc();
  doc["problem"]["objective"]["terms"] = {"total_peak", "max_peak"};
  auto r = read_dsa_problem(text_of(doc), "p.json");
  REQUIRE_MESSAGE(r, dump(r.read.diagnostics));
  CHECK(r.document->goal == Goal::minimise);
  CHECK(r.read.file->problem.penalties.empty());
  CHECK(r.document->dropped_penalties == 3);
}

TEST_CASE("dsa schema: colocations are must-alias pairs") {
  json doc = base_doc();
  doc["problem"]["buffers"][1]["live_intervals"][0] = {{"lower", 1}, {"upper", 3}};
  doc["problem"]["constraints"]["separations"] = json::array();
  doc["problem"]["constraints"]["colocations"] = {{{"first", 7}, {"second", 2}}};
  auto r = read_dsa_problem(text_of(doc), "p.json");
  REQUIRE_MESSAGE(r, dump(r.read.diagnostics));
  REQUIRE(r.read.file->problem.must_alias.size() == 1);
  CHECK(r.read.file->problem.must_alias[0].members.size() == 2);
  PlanOptions o;
  const auto res = plan(r.read.file->problem, o);
  REQUIRE(res.placement);
  CHECK(res.placement->offsets[0] == res.placement->offsets[1]);
}

TEST_CASE("dsa schema: what the model cannot express is refused at its field and position") {
  struct Case {
    const char* what;
    std::function<void(json&)> edit;
    std::string pointer, fragment;
  };
  const std::vector<Case> cases = {
      {"a colocation across two pools",
       [](json& d) {
         d["problem"]["constraints"]["colocations"] = {{{"first", 7}, {"second", 4}}};
       },
       "/problem/constraints/colocations/0", "colocation"},
      {"a pin outside the allowed pools",
       [](json& d) {
         d["problem"]["constraints"]["pinned_allocations"] = {
             {{"buffer", 7}, {"pool", 5}, {"offset", 64}, {"exclusive_for_all_time", false}}};
       },
       "/problem/constraints/pinned_allocations/0/pool", "not among its allowed_pools"},
      {"a buffer pinned twice",
       [](json& d) {
         d["problem"]["constraints"]["pinned_allocations"] = {
             {{"buffer", 7}, {"pool", 3}, {"offset", 64}, {"exclusive_for_all_time", false}},
             {{"buffer", 7}, {"pool", 3}, {"offset", 128}, {"exclusive_for_all_time", true}}};
       },
       "/problem/constraints/pinned_allocations/1/buffer", "pinned twice"},
      {"a pin that is not a boolean",
       [](json& d) {
         d["problem"]["constraints"]["pinned_allocations"] = {
             {{"buffer", 7}, {"pool", 3}, {"offset", 64}, {"exclusive_for_all_time", 1}}};
       },
       "/problem/constraints/pinned_allocations/0/exclusive_for_all_time", "true or false"},
      {"a pool listed twice",
       [](json& d) {
         d["problem"]["buffers"][0]["allowed_pools"] = {3, 3};
       },
       "/problem/buffers/0/allowed_pools/1", "listed twice"},
      {"an empty second interval",
       [](json& d) {
         d["problem"]["buffers"][1]["live_intervals"].push_back({{"lower", 9}, {"upper", 9}});
       },
       "/problem/buffers/1/live_intervals/1", "empty or reversed"},
      {"an exclusion of an unknown buffer",
       [](json& d) {
         d["problem"]["constraints"]["temporal_exclusions"] = {{{"first", 7}, {"second", 99}}};
       },
       "/problem/constraints/temporal_exclusions/0/second", "unknown buffer 99"},
      {"bank_cost",
       [](json& d) {
         d["problem"]["objective"]["terms"] = {"capacity_overflow", "bank_cost"};
       },
       "/problem/objective/terms/1", "bank_cost"},
      {"reuse after peak",
       [](json& d) {
         d["problem"]["objective"]["terms"] = {"total_peak", "reuse_cost"};
       },
       "/problem/objective/terms/1", "cannot be honoured"},
      {"max before total, two pools", [](json& d) { d["problem"]["objective"]["terms"] = {"max_peak"}; },
       "/problem/objective/terms/0", "max_peak"},
      {"a size of 0", [](json& d) { d["problem"]["buffers"][2]["size"] = 0; }, "/problem/buffers/2/size",
       "must be positive"},
      {"an unknown pool", [](json& d) { d["problem"]["buffers"][2]["allowed_pools"] = {9}; },
       "/problem/buffers/2/allowed_pools/0", "unknown pool 9"},
      {"an unknown buffer", [](json& d) { d["problem"]["constraints"]["separations"][0]["second"] = 99; },
       "/problem/constraints/separations/0/second", "unknown buffer 99"},
      {"an unknown field", [](json& d) { d["problem"]["pools"][0]["colour"] = "red"; },
       "/problem/pools/0/colour", "unknown field"},
      {"schema version 2", [](json& d) { d["schema_version"] = 2; }, "/schema_version", "must be 1"},
      {"a negative lower", [](json& d) { d["problem"]["buffers"][0]["live_intervals"][0]["lower"] = -1; },
       "/problem/buffers/0/live_intervals/0/lower", "start at 0"},
  };
  for (const auto& c : cases) {
    const std::string what = c.what;
    CAPTURE(what);
    json doc = base_doc();
    c.edit(doc);
    const std::string text = text_of(doc);
    auto r = read_dsa_problem(text, "p.json");
    REQUIRE_FALSE(r);
    const std::string out = dump(r.read.diagnostics);
    CAPTURE(out);
    CHECK(out.find(c.fragment) != std::string::npos);
    if (!c.pointer.empty()) CHECK(out.find(c.pointer + ": ") != std::string::npos);
  }
  // The position: the value the pointer names, line and column in the text.
  json doc = base_doc();
  doc["problem"]["buffers"][1]["allowed_pools"] = {3, 9};
  const std::string text = text_of(doc);
  const std::string out = errors_of(doc);
  const auto b1 = text.find("\"name\": \"b\"");
  const auto li = text.find("9", text.rfind("\"allowed_pools\": ", b1));
  std::size_t line = 1, col = 1;
  for (std::size_t i = 0; i < li; ++i) {
    if (text[i] == '\n') {
      ++line;
      col = 1;
    } else {
      ++col;
    }
  }
  CHECK(out.find("p.json:" + std::to_string(line) + ":" + std::to_string(col) + ":") != std::string::npos);
  json terms = base_doc();
  terms["problem"]["objective"]["terms"] = {"capacity_overflow", "bank_cost"};
  CHECK(errors_of(terms).find(position_of(text_of(terms), "\"bank_cost\"") + ": error") != std::string::npos);
  // A vacuous exclusion (intervals apart, or pools apart) is accepted.
  json ok = base_doc();
  ok["problem"]["constraints"]["temporal_exclusions"] = {{{"first", 7}, {"second", 4}}};
  CHECK(read_dsa_problem(text_of(ok), "p.json"));
}

TEST_CASE("dsa schema: round trip through our JSON reads back equal") {
  auto r = read_dsa_problem(text_of(base_doc()), "p.json");
  REQUIRE(r);
  const std::string ours = json_problem_text(*r.read.file);
  auto back = read_json_problem(ours, "ours.json");
  REQUIRE_MESSAGE(back, dump(back.diagnostics));
  CHECK(pto_mem::test::first_difference(r.read.file->problem, back.file->problem) == "");
}

TEST_CASE("dsa schema: random documents read back to the problem they encode") {
  std::mt19937 rng(20261207);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  for (int trial = 0; trial < 300; ++trial) {
    CAPTURE(trial);
    Problem want;
    json pools = json::array(), buffers = json::array(), seps = json::array(), pens = json::array();
    const int npools = pick(1, 3);
    std::vector<std::uint32_t> pool_ids;
    for (int k = 0; k < npools; ++k) {
      const std::uint32_t id = static_cast<std::uint32_t>(k * 3 + pick(0, 2));
      pool_ids.push_back(id);
      const Addr cap = static_cast<Addr>(pick(1, 8)) * 256;
      json res = json::array();
      Arena a{id, "P" + std::to_string(k), cap, {}};
      if (pick(0, 2) == 0) {
        res.push_back({{"begin", 0}, {"end", 32}});
        a.reserved.push_back({0, 32});
      }
      pools.push_back({{"id", id}, {"name", a.name}, {"capacity", cap}, {"reserved_ranges", res}});
      want.arenas.push_back(a);
    }
    const int nbuf = pick(1, 8);
    const bool named = pick(0, 1) == 1;
    std::vector<std::uint32_t> ids;
    for (int i = 0; i < nbuf; ++i) ids.push_back(static_cast<std::uint32_t>(i * 2 + (trial % 2)));
    std::shuffle(ids.begin(), ids.end(), rng);
    for (int i = 0; i < nbuf; ++i) {
      BufferSpec b;
      b.name = named ? "t" + std::to_string(ids[i]) : std::to_string(ids[i]);
      b.size = static_cast<Addr>(pick(1, 64));
      b.alignment = Addr{1} << pick(0, 5);
      b.arena = pool_ids[static_cast<std::size_t>(pick(0, npools - 1))];
      const int lo = pick(0, 10);
      b.lifetime = {lo, lo + pick(1, 6)};
      buffers.push_back({{"id", ids[i]},
                         {"name", named ? b.name : std::string("dup")},
                         {"size", b.size},
                         {"alignment", b.alignment},
                         {"live_intervals", {{{"lower", b.lifetime.begin}, {"upper", b.lifetime.end}}}},
                         {"allowed_pools", {b.arena}}});
      want.buffers.push_back(b);
    }
    if (!named && nbuf == 1) want.buffers[0].name = "dup";  // one name is unique: it is the id
    std::set<std::pair<int, int>> pen_pairs;
    for (int s = 0; s < pick(0, 4) && nbuf > 1; ++s) {
      const int x = pick(0, nbuf - 1), y = pick(0, nbuf - 1);
      if (x == y) continue;
      if (pick(0, 1)) {
        seps.push_back({{"first", ids[x]}, {"second", ids[y]}, {"reasons", {"pipeline_stage"}}});
        want.separations.push_back(
            {static_cast<BufferId>(x), static_cast<BufferId>(y), reason_pipeline_stage});
      } else {
        const auto& bx = want.buffers[x];
        const auto& by = want.buffers[y];
        const bool payable = bx.arena == by.arena &&
                             !(bx.lifetime.begin < by.lifetime.end && by.lifetime.begin < bx.lifetime.end);
        if (!payable || !pen_pairs.insert(std::minmax(x, y)).second) continue;
        pens.push_back({{"first", ids[x]}, {"second", ids[y]}, {"cost", 2}, {"reason", "generic"}});
        want.penalties.push_back({static_cast<BufferId>(x), static_cast<BufferId>(y), 2});
      }
    }
    json doc = {{"schema_version", 1},
                {"profile", "pypto_research_v1"},
                {"instance", "r" + std::to_string(trial)},
                {"problem",
                 {{"pools", pools},
                  {"buffers", buffers},
                  {"constraints",
                   {{"colocations", json::array()},
                    {"separations", seps},
                    {"temporal_exclusions", json::array()},
                    {"pinned_allocations", json::array()}}},
                  {"cost_model", {{"reuse_penalties", pens}}},
                  {"objective",
                   {{"aggregation", "lexicographic"}, {"terms", {"capacity_overflow", "reuse_cost"}}}}}}};
    auto r = read_dsa_problem(text_of(doc), "r.json");
    REQUIRE_MESSAGE(r, dump(r.read.diagnostics));
    CHECK(pto_mem::test::first_difference(want, r.read.file->problem) == "");
    std::vector<std::uint32_t> got_ids = r.document->buffer_ids;
    CHECK(got_ids == ids);
  }
}

namespace {

/// The schema's rules, checked on the raw documents (no pto_mem code):
/// every buffer placed once in its pool, aligned, inside the capacity and
/// outside reserved ranges; buffers live at once (or separated) never share
/// bytes; colocated ones share the offset. Returns the reuse cost (edges
/// whose buffers never live at once and share bytes) and the peaks.
struct Checked {
  std::string error;
  std::uint64_t reuse_cost = 0, total_peak = 0, max_peak = 0;
};

Checked check_solution(const json& doc, const json& sol) {
  Checked c;
  const json& p = doc["problem"];
  std::map<std::uint32_t, json> buf;
  for (const auto& b : p["buffers"]) buf[b["id"].get<std::uint32_t>()] = b;
  std::map<std::uint32_t, json> pool;
  for (const auto& q : p["pools"]) pool[q["id"].get<std::uint32_t>()] = q;
  std::map<std::uint32_t, std::uint64_t> off;
  std::map<std::uint32_t, std::uint32_t> in;  // buffer -> the pool it was placed in
  for (const auto& pl : sol["placements"]) {
    const auto id = pl["buffer"].get<std::uint32_t>();
    if (!buf.contains(id)) return {"placement of unknown buffer " + std::to_string(id)};
    const auto& allowed = buf[id]["allowed_pools"];
    if (std::find(allowed.begin(), allowed.end(), pl["pool"]) == allowed.end())
      return {"buffer " + std::to_string(id) + " in a pool not allowed"};
    if (!off.emplace(id, pl["offset"].get<std::uint64_t>()).second) return {"buffer placed twice"};
    in[id] = pl["pool"].get<std::uint32_t>();
  }
  if (off.size() != buf.size()) return {"not every buffer is placed"};
  std::map<std::uint32_t, std::uint64_t> peak;
  for (const auto& [id, b] : buf) {
    const std::uint64_t o = off[id], s = b["size"].get<std::uint64_t>();
    const auto pid = in[id];
    if (o % b["alignment"].get<std::uint64_t>() != 0) return {"buffer " + std::to_string(id) + " misaligned"};
    if (!pool[pid]["capacity"].is_null() && o + s > pool[pid]["capacity"].get<std::uint64_t>())
      return {"buffer " + std::to_string(id) + " past the capacity"};
    for (const auto& r : pool[pid]["reserved_ranges"])
      if (o < r["end"].get<std::uint64_t>() && r["begin"].get<std::uint64_t>() < o + s)
        return {"buffer " + std::to_string(id) + " in a reserved range"};
    peak[pid] = std::max(peak[pid], o + s);
  }
  for (const auto& [pid, q] : pool)
    for (const auto& r : q["reserved_ranges"]) peak[pid] = std::max(peak[pid], r["end"].get<std::uint64_t>());
  auto bytes_meet = [&](std::uint32_t a, std::uint32_t b) {
    return in[a] == in[b] && off[a] < off[b] + buf[b]["size"].get<std::uint64_t>() &&
           off[b] < off[a] + buf[a]["size"].get<std::uint64_t>();
  };
  std::set<std::pair<std::uint32_t, std::uint32_t>> excluded;
  for (const auto& x : p["constraints"]["temporal_exclusions"])
    excluded.insert(std::minmax(x["first"].get<std::uint32_t>(), x["second"].get<std::uint32_t>()));
  // Live at once: some pair of their intervals meets, and no exclusion says otherwise.
  auto live_meet = [&](std::uint32_t a, std::uint32_t b) {
    if (excluded.contains(std::minmax(a, b))) return false;
    for (const auto& x : buf[a]["live_intervals"])
      for (const auto& y : buf[b]["live_intervals"])
        if (x["lower"].get<std::int64_t>() < y["upper"].get<std::int64_t>() &&
            y["lower"].get<std::int64_t>() < x["upper"].get<std::int64_t>())
          return true;
    return false;
  };
  std::set<std::uint32_t> exclusive;
  for (const auto& x : p["constraints"]["pinned_allocations"]) {
    const auto id = x["buffer"].get<std::uint32_t>();
    if (in[id] != x["pool"].get<std::uint32_t>() || off[id] != x["offset"].get<std::uint64_t>())
      return {"pinned buffer " + std::to_string(id) + " moved"};
    if (x["exclusive_for_all_time"].get<bool>()) exclusive.insert(id);
  }
  std::set<std::pair<std::uint32_t, std::uint32_t>> coloc;
  for (const auto& x : p["constraints"]["colocations"]) {
    const auto a = x["first"].get<std::uint32_t>(), b = x["second"].get<std::uint32_t>();
    if (off[a] != off[b] || in[a] != in[b]) return {"colocation apart"};
    coloc.insert(std::minmax(a, b));
  }
  std::vector<std::uint32_t> ids;
  for (const auto& [id, b] : buf) ids.push_back(id);
  for (std::size_t i = 0; i < ids.size(); ++i)
    for (std::size_t j = i + 1; j < ids.size(); ++j) {
      const bool apart_in_time =
          !live_meet(ids[i], ids[j]) && !exclusive.contains(ids[i]) && !exclusive.contains(ids[j]);
      if (!apart_in_time && bytes_meet(ids[i], ids[j]) && !coloc.contains({ids[i], ids[j]}))
        return {"co-live buffers " + std::to_string(ids[i]) + " and " + std::to_string(ids[j]) +
                " share bytes"};
    }
  for (const auto& x : p["constraints"]["separations"])
    if (bytes_meet(x["first"].get<std::uint32_t>(), x["second"].get<std::uint32_t>()))
      return {"separation broken"};
  if (p.contains("cost_model"))
    for (const auto& e : p["cost_model"]["reuse_penalties"]) {
      const auto a = e["first"].get<std::uint32_t>(), b = e["second"].get<std::uint32_t>();
      if (!live_meet(a, b) && bytes_meet(a, b)) c.reuse_cost += e["cost"].get<std::uint64_t>();
    }
  for (const auto& [pid, v] : peak) {
    c.total_peak += v;
    c.max_peak = std::max(c.max_peak, v);
  }
  return c;
}

/// base_doc with every structured field: several (overlapping, touching,
/// unordered) intervals, two allowed pools, pins, a temporal exclusion.
json structured_doc() {
  json d = base_doc();
  auto& bs = d["problem"]["buffers"];
  bs[1]["live_intervals"] = {{{"lower", 10}, {"upper", 12}},
                             {{"lower", 4}, {"upper", 6}},
                             {{"lower", 5}, {"upper", 7}},
                             {{"lower", 12}, {"upper", 13}}};
  bs[2]["allowed_pools"] = {5, 3};
  bs.push_back({{"id", 9},
                {"name", "p"},
                {"size", 32},
                {"alignment", 32},
                {"live_intervals", {{{"lower", 0}, {"upper", 20}}}},
                {"allowed_pools", {5, 3}}});
  bs.push_back({{"id", 11},
                {"name", "q"},
                {"size", 32},
                {"alignment", 32},
                {"live_intervals", {{{"lower", 1}, {"upper", 3}}}},
                {"allowed_pools", {3}}});
  d["problem"]["constraints"]["pinned_allocations"] = {
      {{"buffer", 9}, {"pool", 3}, {"offset", 512}, {"exclusive_for_all_time", true}},
      {{"buffer", 11}, {"pool", 3}, {"offset", 64}, {"exclusive_for_all_time", false}}};
  // c (live [2, 6)) and b (live [4, 7)) on exclusive branches; and a vacuous
  // one (a [0, 4) never meets b), left out.
  d["problem"]["constraints"]["temporal_exclusions"] = {{{"first", 4}, {"second", 2}},
                                                        {{"first", 7}, {"second", 2}}};
  return d;
}

}  // namespace

TEST_CASE("dsa schema: several intervals, allowed pools, pins and exclusions map onto the model") {
  auto r = read_dsa_problem(text_of(structured_doc()), "s.json");
  REQUIRE_MESSAGE(r, dump(r.read.diagnostics));
  const Problem& p = r.read.file->problem;
  REQUIRE(p.buffers.size() == 5);
  // Sorted, and merged where they overlap ([4,6) + [5,7)) or touch ([10,12) + [12,13)).
  CHECK(p.buffers[1].live == std::vector<Interval>{{4, 7}, {10, 13}});
  CHECK(p.buffers[1].lifetime == Interval{4, 13});
  CHECK(p.buffers[0].live.empty());  // one interval: the lifetime alone
  CHECK(p.buffers[2].candidate_arenas == std::vector<std::int64_t>{5, 3});  // the listed order
  CHECK(p.buffers[2].arena == 5);
  // A pin fixes the pool: no candidates left.
  REQUIRE(p.buffers[3].pin);
  CHECK(p.buffers[3].pin->offset == 512);
  CHECK(p.buffers[3].pin->exclusive);
  CHECK(p.buffers[3].arena == 3);
  CHECK(p.buffers[3].candidate_arenas.empty());
  REQUIRE(p.buffers[4].pin);
  CHECK_FALSE(p.buffers[4].pin->exclusive);
  REQUIRE(p.exclusions.size() == 1);
  CHECK(std::pair<BufferId, BufferId>(std::minmax(p.exclusions[0].a, p.exclusions[0].b)) ==
        std::pair<BufferId, BufferId>{1, 2});
  // Schema v1 -> our JSON -> the same problem.
  const std::string ours = json_problem_text(*r.read.file);
  auto back = read_json_problem(ours, "ours.json");
  REQUIRE_MESSAGE(back, dump(back.diagnostics) << ours);
  CHECK(pto_mem::test::first_difference(p, back.file->problem) == "");
  CHECK(json_problem_text(*back.file) == ours);
  // Planned: the solution names each buffer's pool, and holds by the schema's rules.
  PlanOptions o;
  o.goal = r.document->goal;
  const PlanResult res = plan(p, o);
  REQUIRE_MESSAGE(res.fits(), dump(res.diagnostics));
  CHECK(validate(p, *res.placement).empty());
  const json doc = structured_doc();
  const json sol = json::parse(dsa_solution_text(*r.document, p, res));
  const Checked c = check_solution(doc, sol);
  CHECK_MESSAGE(c.error.empty(), c.error);
  for (const auto& pl : sol["placements"]) {
    const auto id = pl["buffer"].get<std::uint32_t>();
    const auto at = std::find(r.document->buffer_ids.begin(), r.document->buffer_ids.end(), id) -
                    r.document->buffer_ids.begin();
    const std::int64_t arena =
        res.placement->arenas.empty() ? p.buffers[at].arena : res.placement->arenas[at];
    CHECK(pl["pool"].get<std::int64_t>() == arena);
  }
}

TEST_CASE("dsa schema: the chosen pool is written when a buffer spills to its second pool") {
  json d = base_doc();
  d["problem"]["pools"][0]["capacity"] =
      224;  // 32 reserved, a and b (separated) fill the rest: no room for c
  d["problem"]["buffers"][2]["allowed_pools"] = {3, 5};
  auto r = read_dsa_problem(text_of(d), "s.json");
  REQUIRE_MESSAGE(r, dump(r.read.diagnostics));
  const PlanResult res = plan(r.read.file->problem);
  REQUIRE_MESSAGE(res.fits(), dump(res.diagnostics));
  const json sol = json::parse(dsa_solution_text(*r.document, r.read.file->problem, res));
  bool seen = false;
  for (const auto& pl : sol["placements"])
    if (pl["buffer"] == 4) {
      CHECK(pl["pool"] == 5);
      seen = true;
    }
  CHECK(seen);
  CHECK(check_solution(d, sol).error.empty());
}

TEST_CASE("dsa schema: a solution file reads back to the placement it was written from") {
  const std::string text = text_of(structured_doc());
  auto r = read_dsa_problem(text, "s.json");
  REQUIRE(r);
  const Problem& p = r.read.file->problem;
  const PlanResult res = plan(p);
  REQUIRE(res.fits());
  const std::string sol_text = dsa_solution_text(*r.document, p, res);
  auto back = read_dsa_solution(sol_text, "sol.json", *r.document, p);
  REQUIRE_MESSAGE(back, dump(back.diagnostics));
  REQUIRE(back.file->placement);
  CHECK(back.file->placement->offsets == res.placement->offsets);
  if (!res.placement->arenas.empty()) CHECK(back.file->placement->arenas == res.placement->arenas);
  CHECK(validate(p, *back.file->placement).empty());
  // Broken solutions are refused at the placement that is wrong.
  struct Case {
    std::function<void(json&)> edit;
    std::string pointer, fragment;
  };
  const std::vector<Case> cases = {
      {[](json& s) { s["placements"][0]["buffer"] = 77; }, "/placements/0/buffer", "unknown buffer 77"},
      {[](json& s) { s["placements"][1] = s["placements"][0]; }, "/placements/1/buffer", "placed twice"},
      {[](json& s) { s["placements"][0]["pool"] = 5; }, "/placements/0/pool", "not among its allowed pools"},
      {[](json& s) { s["placements"][0]["offset"] = -1; }, "/placements/0/offset", "integer from 0"},
      {[](json& s) { s["problem_fingerprint"] = "0000000000000000"; }, "/problem_fingerprint",
       "another version"},
      {[](json& s) { s["instance"] = "other"; }, "/instance", "instance"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.pointer);
    json s = json::parse(sol_text);
    c.edit(s);
    const std::string bad = s.dump(2);
    auto b = read_dsa_solution(bad, "sol.json", *r.document, p);
    REQUIRE_FALSE(b);
    const std::string out = dump(b.diagnostics);
    CAPTURE(out);
    CHECK(out.find(c.pointer + ": ") != std::string::npos);
    CHECK(out.find(c.fragment) != std::string::npos);
    CHECK(out.find("sol.json:") != std::string::npos);
  }
}

TEST_CASE("dsa schema: the shared corpus reads, plans, and every solution holds by the schema's rules") {
  if (!pto_mem::test::have_shared) return;
  const std::filesystem::path root = pto_mem::test::shared_path("data/dsa_corpus");
  if (!std::filesystem::exists(root)) return;
  std::vector<std::filesystem::path> files;
  for (const char* sub : {"pypto-lib", "minimalloc-dsa-rp"})
    for (const auto& e : std::filesystem::recursive_directory_iterator(root / sub))
      if (e.is_regular_file() && e.path().extension() == ".json") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  REQUIRE(files.size() >= 598);
  // Every file is read and checked; planning all of them (the A-K lifts
  // take seconds each) is the bench's job (bench/dsa_corpus.py). Here: every
  // PyPTO-Lib problem up to 400 buffers under a small node budget, which
  // keeps the suite fast; PTO_MEM_DSA_CORPUS_ALL=1 plans every file with
  // the default options.
  const bool all = std::getenv("PTO_MEM_DSA_CORPUS_ALL") != nullptr;
  std::size_t planned = 0, fitted = 0, proved_infeasible = 0;
  for (const auto& f : files) {
    CAPTURE(f.string());
    std::ifstream in(f);
    std::stringstream ss;
    ss << in.rdbuf();
    const std::string text = ss.str();
    REQUIRE(looks_like_dsa_schema(text));
    auto r = read_dsa_problem(text, f.string());
    REQUIRE_MESSAGE(r, dump(r.read.diagnostics));
    const Problem& p = r.read.file->problem;
    CHECK(validate(p).empty());
    CHECK(r.document->fingerprint == fnv1a(text));  // the corpus is in canonical form
    const bool lift = f.string().find("minimalloc-dsa-rp") != std::string::npos;
    if (!all && (lift || p.buffers.size() > 400)) continue;
    PlanOptions o;
    o.goal = r.document->goal;
    if (!all) o.node_limit = 20'000;
    const PlanResult res = plan(p, o);
    ++planned;
    REQUIRE_MESSAGE(!is_error(res.status), dump(res.diagnostics));
    const json doc = json::parse(text);
    const json sol = json::parse(dsa_solution_text(*r.document, p, res));
    CHECK(sol["problem_fingerprint"] == fnv1a(text));
    CHECK(sol["instance"] == doc["instance"]);
    if (res.status == Status::infeasible) ++proved_infeasible;
    if (!res.fits()) {
      CHECK(sol["placements"].empty());
      continue;
    }
    ++fitted;
    CHECK(validate(p, *res.placement).empty());
    // The objective the planner reports is the one its placement has.
    const Objective ob = evaluate_objective(p, *res.placement);
    CHECK(ob.spill == res.objective.spill);
    CHECK(ob.penalty == res.objective.penalty);
    CHECK(ob.total_peak == res.objective.total_peak);
    CHECK(ob.max_peak == res.objective.max_peak);
    const Checked c = check_solution(doc, sol);
    REQUIRE_MESSAGE(c.error.empty(), c.error);
    const auto& m = sol["metadata"];
    CHECK(m["status"] == "feasible");
    // What is claimed proved agrees with the bounds written beside it.
    const bool has_reuse = m.contains("reuse_cost");
    if (has_reuse) CHECK(std::stoull(m["reuse_cost_lower_bound"].get<std::string>()) <= c.reuse_cost);
    if (m["optimality_proven"] == "true") {
      if (has_reuse) CHECK(m["reuse_cost_lower_bound"] == m["reuse_cost"]);
      if (r.document->goal == Goal::minimise) CHECK(m["lower_bound_total_peak"] == m["total_peak"]);
    }
    CHECK(m["total_peak"] == std::to_string(c.total_peak));
    CHECK(m["max_peak"] == std::to_string(c.max_peak));
    for (const auto& t : doc["problem"]["objective"]["terms"]) {
      const std::string term = t.get<std::string>();
      const std::uint64_t want = term == "reuse_cost"   ? c.reuse_cost
                                 : term == "total_peak" ? c.total_peak
                                 : term == "max_peak"   ? c.max_peak
                                                        : 0;
      CHECK(m[term] == std::to_string(want));
    }
  }
  MESSAGE("planned " << planned << ", fitted " << fitted << ", proved infeasible " << proved_infeasible);
  CHECK(planned > 0);
}
