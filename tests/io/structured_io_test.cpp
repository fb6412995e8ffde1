// Structured problems in our JSON format: live intervals, pins, candidate
// arenas, exclusions and a conflict graph are read and written exactly,
// malformed structure is refused at its position, the placement names the
// chosen arena, and CSV refuses what it cannot hold.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <random>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "problem_equal.hpp"
#include "pto_mem/algorithms/objective.hpp"
#include "pto_mem/algorithms/validator.hpp"
#include "pto_mem/io/csv.hpp"
#include "pto_mem/io/json_problem.hpp"
#include "pto_mem/io/report.hpp"
#include "pto_mem/planner.hpp"
#include "test_support.hpp"

using namespace pto_mem;
using pto_mem::test::dump;

namespace {

const char* const structured_json = R"({
  "arenas": [{"id": 0, "name": "fast", "capacity": 256}, {"id": 1, "name": "slow", "capacity": 4096}],
  "buffers": [
    {"id": "a", "size": 64, "arena": 0, "live": [[0, 2], [6, 8]]},
    {"id": "b", "size": 64, "arena": 0, "lifetime": [3, 5]},
    {"id": "c", "size": 128, "arenas": [0, 1], "lifetime": [1, 7]},
    {"id": "d", "size": 32, "alignment": 32, "arena": 1, "lifetime": [0, 9], "pin": {"offset": 1024, "exclusive": true}},
    {"id": "e", "size": 32, "arena": 0, "lifetime": [2, 4], "pin": 192}
  ],
  "exclusions": [["c", "b"]],
  "conflict_graph": [["a", "c"], ["c", "e"]]
})";

}  // namespace

TEST_CASE("json structured: every new field reads into the model") {
  auto r = read_json_problem(structured_json, "s.json");
  REQUIRE_MESSAGE(r, dump(r.diagnostics));
  const Problem& p = r.file->problem;
  REQUIRE(p.buffers.size() == 5);
  CHECK(p.buffers[0].live == std::vector<Interval>{{0, 2}, {6, 8}});
  CHECK(p.buffers[0].lifetime == Interval{0, 8});  // the hull
  CHECK(p.buffers[1].live.empty());
  CHECK(p.buffers[2].candidate_arenas == std::vector<std::int64_t>{0, 1});
  CHECK(p.buffers[2].arena == 0);  // the first candidate
  REQUIRE(p.buffers[3].pin);
  CHECK(p.buffers[3].pin->offset == 1024);
  CHECK(p.buffers[3].pin->exclusive);
  REQUIRE(p.buffers[4].pin);
  CHECK(p.buffers[4].pin->offset == 192);
  CHECK_FALSE(p.buffers[4].pin->exclusive);
  REQUIRE(p.exclusions.size() == 1);
  CHECK(p.exclusions[0].a == 2);
  CHECK(p.exclusions[0].b == 1);
  REQUIRE(p.conflict_graph);
  REQUIRE(p.conflict_graph->size() == 2);
  CHECK((*p.conflict_graph)[1].a == 2);
  CHECK((*p.conflict_graph)[1].b == 4);
  // Written and read back: the same problem and the same text.
  const std::string text = json_problem_text(*r.file);
  auto back = read_json_problem(text);
  REQUIRE_MESSAGE(back, dump(back.diagnostics) << text);
  CHECK(pto_mem::test::first_difference(p, back.file->problem) == "");
  CHECK(json_problem_text(*back.file) == text);
  // An empty conflict graph is a graph (nothing conflicts), not its absence.
  Problem empty_graph = p;
  empty_graph.conflict_graph.emplace();
  auto eg = read_json_problem(json_problem_text(empty_graph));
  REQUIRE(eg);
  REQUIRE(eg.file->problem.conflict_graph);
  CHECK(eg.file->problem.conflict_graph->empty());
}

TEST_CASE("json structured: a plan names the chosen arena and the spill; the placement round-trips") {
  auto r = read_json_problem(structured_json, "s.json");
  REQUIRE(r);
  Problem p = r.file->problem;
  // Make the first candidate too small for c: it must go to the second.
  p.arenas[0].capacity = 64 * 2 + 32 + 64;
  const PlanResult res = plan(p);
  REQUIRE_MESSAGE(res.fits(), dump(res.diagnostics));
  CHECK(validate(p, *res.placement).empty());
  const Objective o = evaluate_objective(p, *res.placement);
  CHECK(o.spill == res.objective.spill);
  CHECK(o.total_peak == res.objective.total_peak);
  REQUIRE(res.placement->arenas.size() == p.buffers.size());
  const auto report = nlohmann::json::parse(report_text(p, res));
  CHECK(report["objective"]["spill"] == res.objective.spill);
  for (std::size_t i = 0; i < p.buffers.size(); ++i)
    CHECK(report["placement"][i]["arena"] == res.placement->arenas[i]);
  const std::string text = json_problem_text(p, &*res.placement);
  auto back = read_json_problem(text);
  REQUIRE_MESSAGE(back, dump(back.diagnostics) << text);
  REQUIRE(back.file->placement);
  CHECK(back.file->placement->offsets == res.placement->offsets);
  CHECK(back.file->placement->arenas == res.placement->arenas);
  CHECK(validate(back.file->problem, *back.file->placement).empty());
  // A plain problem's report keeps its keys: no spill, no arenas.
  auto plain = read_json_problem(R"({"arenas": [{"id": 0, "capacity": 64}],
    "buffers": [{"id": 1, "size": 8, "arena": 0, "lifetime": [0, 2]}]})");
  REQUIRE(plain);
  const auto pr = plan(plain.file->problem);
  const auto pj = nlohmann::json::parse(report_text(plain.file->problem, pr));
  CHECK_FALSE(pj["objective"].contains("spill"));
  CHECK_FALSE(pj["placement"][0].contains("arena"));
}

TEST_CASE("json structured: malformed structure is refused at its file position") {
  struct Case {
    std::string text, pointer, fragment, at;  // `at`: the text of the value the error points to
  };
  const std::string head = R"({"arenas": [{"id": 0}, {"id": 1}], "buffers": [)";
  const std::vector<Case> cases = {
      {head + R"({"id": "a", "size": 8, "arena": 0, "live": [[0, 4], [3, 6]]}]})", "/buffers/0/live/1",
       "overlaps or precedes", "[3, 6]"},
      {head + R"({"id": "a", "size": 8, "arena": 0, "live": [[0, 4], [5, 5]]}]})", "/buffers/0/live/1",
       "empty or reversed", "[5, 5]"},
      {head + R"({"id": "a", "size": 8, "arena": 0, "live": []}]})", "/buffers/0/live", "non-empty", "[]"},
      {head + R"({"id": "a", "size": 8, "arena": 0, "live": [[0, 2], [4, 6]], "lifetime": [0, 7]}]})",
       "/buffers/0/lifetime", "not the hull", "[0, 7]"},
      {head + R"({"id": "a", "size": 8, "arenas": [0, 7], "lifetime": [0, 1]}]})", "/buffers/0/arenas/1",
       "unknown candidate arena 7", "7]"},
      {head + R"({"id": "a", "size": 8, "arenas": [1, 1], "lifetime": [0, 1]}]})", "/buffers/0/arenas/1",
       "listed twice", "1], \"lifetime\""},
      {head + R"({"id": "a", "size": 8, "arena": 0, "arenas": [1, 0], "lifetime": [0, 1]}]})",
       "/buffers/0/arena", "not the first candidate", "0, \"arenas\""},
      {head + R"({"id": "a", "size": 8, "arena": 0, "lifetime": [0, 1], "pin": "x"}]})", "/buffers/0/pin",
       "pin must be an offset", "\"x\""},
      {head +
           R"({"id": "a", "size": 8, "arena": 0, "lifetime": [0, 1], "pin": {"offset": 0, "exclusive": 1}}]})",
       "/buffers/0/pin/exclusive", "true or false", "1}"},
      {head + R"({"id": "a", "size": 8, "arenas": [0, 1], "lifetime": [0, 1], "pin": 0}]})", "/buffers/0/pin",
       "several candidate arenas", "0}"},
      {head + R"({"id": "a", "size": 8, "arena": 0, "lifetime": [0, 1]}], "exclusions": [["a", "zz"]]})",
       "/exclusions/0/1", "unknown buffer 'zz'", "\"zz\""},
      {head + R"({"id": "a", "size": 8, "arena": 0, "lifetime": [0, 1]}], "exclusions": [["a"]]})",
       "/exclusions/0", "pair [a, b]", "[\"a\"]"},
      {head + R"({"id": "a", "size": 8, "arena": 0, "lifetime": [0, 1]}], "conflict_graph": [["a", "a"]]})",
       "/conflict_graph/0", "twice", "[\"a\", \"a\"]"},
      {head +
           R"({"id": "a", "size": 8, "arena": 0, "lifetime": [0, 1]}], "placement": [{"id": "a", "offset": 0, "arena": 1}]})",
       "/placement/0/arena", "not among its arenas", "1}"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.text);
    auto r = read_json_problem(c.text, "p.json");
    REQUIRE_FALSE(r);
    const std::string out = dump(r.diagnostics);
    CAPTURE(out);
    CHECK(out.find(c.fragment) != std::string::npos);
    CHECK(out.find(c.pointer + ": ") != std::string::npos);
    // line 1, the column of the value the pointer names
    const auto at = c.text.rfind(c.at);
    REQUIRE(at != std::string::npos);
    CHECK(out.find("p.json:1:" + std::to_string(at + 1) + ":") != std::string::npos);
  }
}

TEST_CASE("csv structured: the writer refuses a structured problem and writes nothing") {
  auto r = read_json_problem(R"({"arenas": [{"id": 0, "capacity": 100}],
    "buffers": [{"id": "a", "size": 8, "arena": 0, "live": [[0, 1], [2, 3]]},
                {"id": "b", "size": 8, "arena": 0, "lifetime": [0, 3], "pin": 16}],
    "exclusions": [["a", "b"]]})");
  REQUIRE_MESSAGE(r, dump(r.diagnostics));
  auto csv = to_csv(r.file->problem);
  CHECK_FALSE(csv);
  const std::string out = dump(csv.diagnostics);
  CHECK(out.find("several live intervals, pins, exclusions") != std::string::npos);
  CHECK(out.find("write JSON instead") != std::string::npos);
  const auto path = std::filesystem::temp_directory_path() / "pto_mem_structured_refused.csv";
  std::filesystem::remove(path);
  CHECK_FALSE(write_csv_file(path, r.file->problem).empty());
  CHECK_FALSE(std::filesystem::exists(path));
}

TEST_CASE("json structured property: random structured problems write, read back equal, and plan valid") {
  std::mt19937 rng(34);
  auto pick = [&](unsigned n) { return static_cast<unsigned>(rng() % n); };
  int planned = 0, fitted = 0;
  for (int round = 0; round < 80; ++round) {
    CAPTURE(round);
    Problem p;
    const unsigned arenas = 1 + pick(3);
    for (unsigned k = 0; k < arenas; ++k)
      p.arenas.push_back(Arena{static_cast<std::int64_t>(k * 2 + pick(2)),
                               pick(2) ? "A" + std::to_string(k) : "",
                               Addr{1} << (13 + pick(10)),
                               {}});
    const unsigned n = 2 + pick(11);
    for (unsigned i = 0; i < n; ++i) {
      BufferSpec b;
      b.name = pick(3) ? "b" + std::to_string(i) : std::string();
      b.size = 1 + pick(2000);
      b.alignment = pick(2) ? 1 : Addr{16} << pick(3);
      b.arena = p.arenas[pick(arenas)].id;
      // One to three intervals, ascending; some touch (the model allows it).
      Tick t = pick(10);
      const unsigned parts = pick(3) ? 1 : 2 + pick(2);
      for (unsigned k = 0; k < parts; ++k) {
        const Tick e = t + 1 + static_cast<Tick>(pick(5));
        b.live.push_back({t, e});
        t = e + static_cast<Tick>(pick(3));
      }
      b.lifetime = {b.live.front().begin, b.live.back().end};
      if (parts == 1 && pick(2)) b.live.clear();
      if (arenas > 1 && pick(3) == 0) {  // candidates: a shuffled list of some arenas, b.arena first
        std::vector<std::int64_t> ids;
        for (const auto& a : p.arenas) ids.push_back(a.id);
        std::shuffle(ids.begin(), ids.end(), rng);
        ids.resize(1 + pick(static_cast<unsigned>(ids.size())));
        b.candidate_arenas = ids;
        b.arena = ids.front();
      } else if (pick(5) == 0) {
        b.pin = Pin{Addr{4096} * i, pick(2) == 0};  // pins far apart: they never collide
        if (pick(4) == 0) b.candidate_arenas = {b.arena};
      }
      p.buffers.push_back(std::move(b));
    }
    std::set<std::pair<unsigned, unsigned>> used;
    for (unsigned k = 0; k < 5; ++k) {
      const unsigned i = pick(n), j = pick(n);
      if (i == j || !used.insert(std::minmax(i, j)).second) continue;
      if (pick(2))
        p.exclusions.push_back({i, j});
      else
        p.separations.push_back({i, j, reason_explicit});
    }
    if (pick(4) == 0) {
      p.conflict_graph.emplace();
      for (unsigned k = 0; k < n; ++k) {
        const unsigned i = pick(n), j = pick(n);
        if (i != j) p.conflict_graph->push_back({i, j});
      }
    }
    for (auto& a : p.arenas)  // room for every pin
      a.capacity = std::max<Addr>(a.capacity, Addr{4096} * (n + 1));
    REQUIRE_MESSAGE(validate(p).empty(), dump(validate(p)));
    const std::string text = json_problem_text(p);
    auto back = read_json_problem(text, "r.json");
    REQUIRE_MESSAGE(back, dump(back.diagnostics) << text);
    CHECK_MESSAGE(pto_mem::test::first_difference(p, back.file->problem) == "", text);
    CHECK(json_problem_text(*back.file) == text);
    PlanOptions o;
    o.node_limit = 2'000;
    const PlanResult res = plan(back.file->problem, o);
    ++planned;
    REQUIRE_MESSAGE(!is_error(res.status), dump(res.diagnostics) << text);
    if (!res.fits()) continue;
    ++fitted;
    const Problem& q = back.file->problem;
    CHECK_MESSAGE(validate(q, *res.placement).empty(), dump(validate(q, *res.placement)) << text);
    const Objective ob = evaluate_objective(q, *res.placement);
    CHECK(ob.spill == res.objective.spill);
    CHECK(ob.penalty == res.objective.penalty);
    CHECK(ob.total_peak == res.objective.total_peak);
    // The placement, with its chosen arenas, written and read back.
    const std::string with = json_problem_text(q, &*res.placement);
    auto again = read_json_problem(with, "w.json");
    REQUIRE_MESSAGE(again, dump(again.diagnostics) << with);
    CHECK(again.file->placement->offsets == res.placement->offsets);
    const bool choice = std::any_of(q.buffers.begin(), q.buffers.end(),
                                    [](const BufferSpec& b) { return b.candidate_arenas.size() > 1; });
    if (choice) CHECK(again.file->placement->arenas == res.placement->arenas);
    CHECK(validate(q, *again.file->placement).empty());
  }
  MESSAGE("planned " << planned << ", fitted " << fitted);
  CHECK(fitted > 40);
}
