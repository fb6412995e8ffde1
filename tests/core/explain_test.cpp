// explain(): the conflicting subset of a problem that does not fit is
// proved not to fit, and without any one member it fits -- checked by a
// brute-force oracle of its own (masks over the original problem, not
// restrict_problem) on small random problems, and by hand where the answer
// is obvious.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "pto_mem/algorithms/explain.hpp"
#include "pto_mem/planner.hpp"
#include "test_support.hpp"

namespace explain_oracle {

using namespace pto_mem;

/// The parts of the original problem a set of members keeps.
struct Mask {
  std::vector<bool> buffer, separation, pin, conflict;
  std::vector<std::vector<bool>> reserved;
};

Mask mask_of(const Problem& p, const std::vector<ConflictMember>& members) {
  Mask m;
  m.buffer.assign(p.buffers.size(), false);
  m.pin.assign(p.buffers.size(), false);
  m.separation.assign(p.separations.size(), false);
  m.conflict.assign(p.conflict_graph ? p.conflict_graph->size() : 0, false);
  for (const auto& a : p.arenas) m.reserved.emplace_back(a.reserved.size(), false);
  for (const auto& x : members) switch (x.kind) {
      case MemberKind::buffer: m.buffer[x.index] = true; break;
      case MemberKind::separation: m.separation[x.index] = true; break;
      case MemberKind::pin: m.pin[x.index] = true; break;
      case MemberKind::conflict: m.conflict[x.index] = true; break;
      case MemberKind::reserved: m.reserved[x.index][x.window] = true; break;
      case MemberKind::declared: FAIL("the random problems have no declarations"); break;
    }
  return m;
}

bool live_together(const Problem& p, const Mask& m, std::size_t i, std::size_t j) {
  for (const auto& x : p.exclusions)
    if ((x.a == i && x.b == j) || (x.a == j && x.b == i)) return false;
  if (p.conflict_graph) {
    for (std::size_t e = 0; e < p.conflict_graph->size(); ++e) {
      const auto& c = (*p.conflict_graph)[e];
      if (m.conflict[e] && ((c.a == i && c.b == j) || (c.a == j && c.b == i))) return true;
    }
    return false;
  }
  auto pieces = [](const BufferSpec& b) {
    return b.live.empty() ? std::vector<Interval>{b.lifetime} : b.live;
  };
  for (const auto& x : pieces(p.buffers[i]))
    for (const auto& y : pieces(p.buffers[j]))
      if (x.begin < y.end && y.begin < x.end) return true;
  return false;
}

bool must_apart(const Problem& p, const Mask& m, std::size_t i, std::size_t j) {
  if (p.buffers[i].arena != p.buffers[j].arena) return false;
  for (std::size_t s = 0; s < p.separations.size(); ++s) {
    const auto& x = p.separations[s];
    if (m.separation[s] && ((x.a == i && x.b == j) || (x.a == j && x.b == i))) return true;
  }
  const bool exclusive =
      (m.pin[i] && p.buffers[i].pin->exclusive) || (m.pin[j] && p.buffers[j].pin->exclusive);
  return exclusive || live_together(p, m, i, j);
}

bool alone_ok(const Problem& p, const Mask& m, std::size_t i, Addr off) {
  const auto& b = p.buffers[i];
  if (off % b.alignment != 0) return false;
  if (m.pin[i] && off != b.pin->offset) return false;
  for (std::size_t k = 0; k < p.arenas.size(); ++k) {
    if (p.arenas[k].id != b.arena) continue;
    if (off + b.size > p.arenas[k].capacity) return false;
    for (std::size_t w = 0; w < p.arenas[k].reserved.size(); ++w) {
      const auto& r = p.arenas[k].reserved[w];
      if (m.reserved[k][w] && off < r.end && r.begin < off + b.size) return false;
    }
  }
  return true;
}

/// Whether the kept parts have a placement: backtracking over offsets.
bool feasible(const Problem& p, const Mask& m) {
  std::vector<std::size_t> kept;
  for (std::size_t i = 0; i < p.buffers.size(); ++i)
    if (m.buffer[i]) kept.push_back(i);
  std::vector<Addr> off(p.buffers.size(), 0);
  Addr cap = 0;
  for (const auto& a : p.arenas) cap = std::max(cap, a.capacity);
  auto rec = [&](auto& self, std::size_t k) -> bool {
    if (k == kept.size()) return true;
    const std::size_t i = kept[k];
    for (Addr x = 0; x + p.buffers[i].size <= cap; ++x) {
      if (!alone_ok(p, m, i, x)) continue;
      bool ok = true;
      for (std::size_t t = 0; t < k && ok; ++t) {
        const std::size_t j = kept[t];
        const bool bytes = x < off[j] + p.buffers[j].size && off[j] < x + p.buffers[i].size;
        ok = !(bytes && must_apart(p, m, i, j));
      }
      if (!ok) continue;
      off[i] = x;
      if (self(self, k + 1)) return true;
    }
    return false;
  };
  return rec(rec, 0);
}

/// A small random problem: one or two arenas, live pieces, pins,
/// exclusions, separations, reserved windows, sometimes a conflict graph.
Problem random_problem(std::mt19937_64& rng) {
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  auto chance = [&](int percent) { return pick(0, 99) < percent; };
  Problem p;
  const int arenas = chance(25) ? 2 : 1;
  for (int k = 0; k < arenas; ++k) {
    Arena a;
    a.id = k;
    a.capacity = static_cast<Addr>(pick(5, 10));
    if (chance(20)) a.reserved.push_back({static_cast<Addr>(pick(0, 3)), static_cast<Addr>(pick(4, 5))});
    p.arenas.push_back(a);
  }
  const bool graph = chance(15);
  const int n = pick(2, 5);
  for (int i = 0; i < n; ++i) {
    BufferSpec b;
    if (chance(50)) b.name = "t" + std::to_string(i);
    b.size = static_cast<Addr>(pick(1, 5));
    b.alignment = chance(20) ? 2 : 1;
    b.arena = pick(0, arenas - 1);
    const Tick s = pick(0, 4);
    b.lifetime = {s, s + pick(1, 5)};
    if (!graph && chance(20)) {
      const Tick a0 = pick(0, 3), a1 = a0 + pick(1, 2), b0 = a1 + pick(1, 3), b1 = b0 + pick(1, 3);
      b.live = {{a0, a1}, {b0, b1}};
      b.lifetime = {a0, b1};
    }
    if (chance(15)) b.pin = Pin{static_cast<Addr>(pick(0, 4)) * b.alignment, chance(30)};
    p.buffers.push_back(b);
  }
  auto other = [&](int i) {
    int j = pick(0, n - 2);
    return j >= i ? j + 1 : j;
  };
  if (graph) {
    p.conflict_graph.emplace();
    for (int i = 0; i < n; ++i)
      for (int j = i + 1; j < n; ++j)
        if (chance(60)) p.conflict_graph->push_back({static_cast<BufferId>(i), static_cast<BufferId>(j)});
  }
  if (chance(30)) {
    const int i = pick(0, n - 1);
    p.exclusions.push_back({static_cast<BufferId>(i), static_cast<BufferId>(other(i))});
  }
  for (int k = pick(0, 2); k > 0; --k) {
    const int i = pick(0, n - 1);
    p.separations.push_back({static_cast<BufferId>(i), static_cast<BufferId>(other(i))});
  }
  if (chance(30)) {
    const int i = pick(0, n - 1);
    p.penalties.push_back({static_cast<BufferId>(i), static_cast<BufferId>(other(i)), 2});
  }
  return p;
}

std::string show(const Problem& p, const Explanation& e) {
  std::string s;
  for (const auto& a : p.arenas) {
    s += "arena " + std::to_string(a.id) + " cap " + std::to_string(a.capacity);
    for (const auto& r : a.reserved)
      s += " reserved [" + std::to_string(r.begin) + "," + std::to_string(r.end) + ")";
    s += "\n";
  }
  for (std::size_t i = 0; i < p.buffers.size(); ++i) {
    const auto& b = p.buffers[i];
    s += std::to_string(i) + ": size " + std::to_string(b.size) + " align " + std::to_string(b.alignment) +
         " arena " + std::to_string(b.arena) + " life [" + std::to_string(b.lifetime.begin) + "," +
         std::to_string(b.lifetime.end) + ")";
    for (const auto& l : b.live) s += " live [" + std::to_string(l.begin) + "," + std::to_string(l.end) + ")";
    if (b.pin) s += " pin " + std::to_string(b.pin->offset) + (b.pin->exclusive ? " exclusive" : "");
    s += "\n";
  }
  for (const auto& x : p.exclusions)
    s += "exclusion " + std::to_string(x.a) + " " + std::to_string(x.b) + "\n";
  for (const auto& x : p.separations)
    s += "separation " + std::to_string(x.a) + " " + std::to_string(x.b) + "\n";
  if (p.conflict_graph) {
    s += "graph:";
    for (const auto& c : *p.conflict_graph) s += " " + std::to_string(c.a) + "-" + std::to_string(c.b);
    s += "\n";
  }
  s += "members:";
  for (const auto& m : e.members)
    s +=
        std::string(" ") + to_string(m.kind) + "#" + std::to_string(m.index) + "." + std::to_string(m.window);
  s += "\n";
  return s;
}

int seeds(int base) {
  if (const char* s = std::getenv("PTO_MEM_PROPERTY_SEEDS")) return std::max(1, std::atoi(s) * base / 1500);
  return base;
}

BufferSpec buf(std::string name, Addr size, Tick begin, Tick end) {
  BufferSpec b;
  b.name = std::move(name);
  b.size = size;
  b.lifetime = {begin, end};
  return b;
}

bool has(const Explanation& e, MemberKind kind, std::uint32_t index, std::uint32_t window = 0) {
  return std::find(e.members.begin(), e.members.end(), ConflictMember{kind, index, window}) !=
         e.members.end();
}

// The tests live in the oracle's namespace: the suite is compiled as one
// translation unit, where a using-directive would clash with other files'
// helpers of the same names.

TEST_CASE(
    "explain: on small random problems the subset does not fit and each one-smaller subset does (brute "
    "force)") {
  std::mt19937_64 rng(31);
  int infeasible = 0, explained = 0, minimal = 0;
  for (int round = 0; round < seeds(1500); ++round) {
    const Problem p = random_problem(rng);
    if (!validate(p).empty()) continue;
    std::vector<ConflictMember> everything = detail::explaining::members_of(p);
    if (feasible(p, mask_of(p, everything))) continue;
    ++infeasible;
    const Explanation e = explain(p);
    INFO("round " << round << ", status " << to_string(e.status) << "\n"
                  << show(p, e) << test::dump(e.diagnostics));
    REQUIRE((e.status == Status::infeasible || e.status == Status::no_fit));
    if (!e.explained) continue;
    ++explained;
    REQUIRE_FALSE(e.members.empty());
    CHECK_FALSE(feasible(p, mask_of(p, e.members)));
    bool all_fit = true;
    for (std::size_t k = 0; k < e.members.size(); ++k) {
      std::vector<ConflictMember> rest = e.members;
      rest.erase(rest.begin() + static_cast<std::ptrdiff_t>(k));
      const bool fits = feasible(p, mask_of(p, rest));
      if (e.members[k].without == Without::fits) CHECK(fits);  // a member shown necessary is necessary
      all_fit = all_fit && fits;
    }
    if (e.minimal) CHECK(all_fit);
    minimal += e.minimal;
    // The least capacities: when proved, that capacity fits and one less does not.
    for (std::size_t k = 0; k < e.capacity.size(); ++k) {
      const auto& c = e.capacity[k];
      if (!c.fits_at) continue;
      CHECK(c.lower_bound <= *c.fits_at);
    }
  }
  MESSAGE(infeasible << " infeasible problems, " << explained << " explained, " << minimal
                     << " proved minimal");
  CHECK(infeasible > seeds(1500) / 10);
  CHECK(explained >= infeasible * 9 / 10);
  CHECK(minimal >= explained * 9 / 10);
}

TEST_CASE("explain: the least capacity of a one-arena problem is proved by brute force") {
  std::mt19937_64 rng(3131);
  int proved = 0;
  for (int round = 0; round < seeds(400); ++round) {
    Problem p = random_problem(rng);
    p.arenas.resize(1);
    for (auto& b : p.buffers) b.arena = 0;
    if (!validate(p).empty()) continue;
    const auto all = detail::explaining::members_of(p);
    if (feasible(p, mask_of(p, all))) continue;
    const Explanation e = explain(p);
    REQUIRE(e.capacity.size() == 1);
    const auto& c = e.capacity[0];
    INFO("round " << round << "\n" << show(p, e));
    if (!c.fits_at) continue;  // e.g. two pins that clash: no capacity fits
    Problem q = p;
    q.arenas[0].capacity = *c.fits_at;
    CHECK(feasible(q, mask_of(q, detail::explaining::members_of(q))));
    if (c.proved && *c.fits_at > 0) {
      q.arenas[0].capacity = *c.fits_at - 1;
      CHECK_FALSE(feasible(q, mask_of(q, detail::explaining::members_of(q))));
      ++proved;
    }
  }
  CHECK(proved > 0);
}

TEST_CASE("explain: three co-live buffers over the capacity, a fourth that does not matter") {
  Problem p;
  p.arenas.push_back(Arena{0, "Vec", 10, {}});
  p.buffers = {buf("a", 4, 0, 4), buf("b", 4, 1, 5), buf("c", 4, 2, 6), buf("d", 8, 6, 9)};
  const Explanation e = explain(p);
  INFO(show(p, e));
  CHECK(e.status == Status::infeasible);
  REQUIRE(e.explained);
  CHECK(e.minimal);
  CHECK(e.members.size() == 3);
  CHECK(has(e, MemberKind::buffer, 0));
  CHECK(has(e, MemberKind::buffer, 1));
  CHECK(has(e, MemberKind::buffer, 2));
  REQUIRE(e.shortfall.size() == 1);
  CHECK(e.shortfall[0].at == 2);
  CHECK(e.shortfall[0].live_bytes == 12);
  CHECK(e.shortfall[0].over == 2);
  REQUIRE(e.capacity.size() == 1);
  REQUIRE(e.capacity[0].fits_at);
  CHECK(*e.capacity[0].fits_at == 12);
  CHECK(e.capacity[0].proved);
}

TEST_CASE("explain: two separated buffers that never meet in time") {
  Problem p;
  p.arenas.push_back(Arena{0, "", 8, {}});
  p.buffers = {buf("x", 5, 0, 2), buf("y", 5, 4, 6), buf("z", 3, 0, 6)};
  p.separations.push_back({1, 0, reason_explicit});
  const Explanation e = explain(p);
  INFO(show(p, e));
  REQUIRE(e.explained);
  CHECK(e.minimal);
  CHECK(e.members.size() == 3);
  CHECK(has(e, MemberKind::buffer, 0));
  CHECK(has(e, MemberKind::buffer, 1));
  CHECK(has(e, MemberKind::separation, 0));
  REQUIRE(e.shortfall.size() == 1);
  CHECK(e.shortfall[0].over == 0);  // never more than 8 bytes live at once
  CHECK(e.shortfall[0].apart_bytes == 10);
  CHECK(e.shortfall[0].apart_over == 2);
  REQUIRE(e.capacity.size() == 1);
  REQUIRE(e.capacity[0].fits_at);
  CHECK(*e.capacity[0].fits_at == 13);  // z meets both x and y: 5 + 5 + 3
  CHECK(e.capacity[0].proved);
}

TEST_CASE("explain: a reserved window and a pin") {
  SUBCASE("a buffer too large beside a reserved window") {
    Problem p;
    p.arenas.push_back(Arena{0, "", 10, {{2, 6}, {9, 10}}});
    p.buffers = {buf("big", 6, 0, 3), buf("small", 1, 0, 3)};
    const Explanation e = explain(p);
    INFO(show(p, e));
    REQUIRE(e.explained);
    CHECK(e.minimal);
    CHECK(e.members.size() == 2);
    CHECK(has(e, MemberKind::buffer, 0));
    CHECK(has(e, MemberKind::reserved, 0, 0));
  }
  SUBCASE("two pins on the same bytes") {
    Problem p;
    p.arenas.push_back(Arena{0, "", 16, {}});
    p.buffers = {buf("p", 4, 0, 3), buf("q", 4, 1, 4), buf("r", 4, 0, 4)};
    p.buffers[0].pin = Pin{0, false};
    p.buffers[1].pin = Pin{2, false};
    const Explanation e = explain(p);
    INFO(show(p, e));
    REQUIRE(e.explained);
    CHECK(e.minimal);
    CHECK(e.members.size() == 4);
    CHECK(has(e, MemberKind::buffer, 0));
    CHECK(has(e, MemberKind::buffer, 1));
    CHECK(has(e, MemberKind::pin, 0));
    CHECK(has(e, MemberKind::pin, 1));
    REQUIRE(e.capacity.size() == 1);
    CHECK_FALSE(e.capacity[0].fits_at);  // no capacity moves a pin
  }
}

TEST_CASE("explain: a problem that fits has nothing to explain") {
  Problem p;
  p.arenas.push_back(Arena{0, "", 16, {}});
  p.buffers = {buf("a", 4, 0, 4), buf("b", 4, 1, 5)};
  const Explanation e = explain(p);
  CHECK(e.status != Status::infeasible);
  CHECK_FALSE(e.explained);
  CHECK(e.members.empty());
  CHECK(e.capacity.empty());
}

TEST_CASE("restrict_problem renumbers every constraint and drops those that name a dropped buffer") {
  Problem p;
  p.arenas.push_back(Arena{0, "", 64, {{0, 4}, {8, 12}}});
  p.buffers = {buf("a", 4, 0, 4), buf("", 4, 1, 5), buf("c", 4, 2, 6), buf("d", 4, 3, 7)};
  p.buffers[3].pin = Pin{16, true};
  p.separations = {{0, 1, reason_explicit}, {2, 3, reason_explicit}, {1, 3, reason_explicit}};
  p.penalties = {{0, 2, 3}};
  p.exclusions = {{1, 3}, {0, 3}};
  p.conflict_graph = std::vector<Conflict>{{0, 1}, {1, 2}, {2, 3}};
  ProblemSubset keep = ProblemSubset::all(p);
  keep.buffers[0] = false;
  keep.separations[1] = false;
  keep.reserved[0][0] = false;
  keep.pins[3] = false;
  const RestrictedProblem r = restrict_problem(p, keep);
  const Problem& q = r.problem;
  REQUIRE(q.buffers.size() == 3);
  CHECK(r.original == std::vector<BufferId>{1, 2, 3});
  CHECK_FALSE(r.restricted[0]);
  CHECK(*r.restricted[3] == 2);
  CHECK(q.buffers[0].name == "1");  // an unnamed buffer keeps its full-problem label
  CHECK(buffer_label(q, 1) == "c");
  CHECK_FALSE(q.buffers[2].pin);
  REQUIRE(q.separations.size() == 1);  // {0,1} names a dropped buffer; {2,3} is not selected
  CHECK(q.separations[0].a == 0);
  CHECK(q.separations[0].b == 2);
  CHECK(q.penalties.empty());
  REQUIRE(q.exclusions.size() == 1);
  CHECK(q.exclusions[0].a == 0);
  CHECK(q.exclusions[0].b == 2);
  REQUIRE(q.conflict_graph);
  REQUIRE(q.conflict_graph->size() == 2);
  CHECK((*q.conflict_graph)[0].a == 0);
  CHECK((*q.conflict_graph)[0].b == 1);
  REQUIRE(q.arenas[0].reserved.size() == 1);
  CHECK(q.arenas[0].reserved[0] == AddrRange{8, 12});
  CHECK(validate(q).empty());
}

TEST_CASE("explain: a declared allocation is one member with its bindings") {
  Problem p;
  p.arenas.push_back(Arena{0, "", 8, {}});
  p.buffers = {buf("ring", 8, 0, 10), buf("x", 4, 0, 4), buf("y", 4, 5, 9), buf("z", 2, 2, 3),
               buf("w", 8, 12, 14)};
  DeclaredAllocation d;
  d.buffer = 0;
  d.slots = 2;
  d.slot_size = 4;
  d.bindings = {{1, 0u}, {2, 1u}};
  p.declared.push_back(d);
  REQUIRE(validate(p).empty());
  const Explanation e = explain(p);
  INFO(show(p, e) << test::dump(e.diagnostics));
  REQUIRE(e.explained);
  CHECK(e.minimal);
  CHECK(e.members.size() == 2);  // the declaration's bytes are closed to z
  CHECK(has(e, MemberKind::declared, 0));
  CHECK(has(e, MemberKind::buffer, 3));
  const RestrictedProblem r = restrict_problem(p, subset_of(p, e.members));
  CHECK(r.original == std::vector<BufferId>{0, 1, 2, 3});
  REQUIRE(r.problem.declared.size() == 1);
  CHECK(r.problem.declared[0].bindings.size() == 2);
  CHECK(plan(r.problem).status == Status::infeasible);
}

}  // namespace explain_oracle

TEST_CASE("explanation_lines names the buffers, the bytes over and the least capacity") {
  using namespace pto_mem;
  Problem p;
  p.arenas.push_back(Arena{0, "Vec", 10, {}});
  p.buffers = {explain_oracle::buf("a", 4, 0, 4), explain_oracle::buf("b", 4, 1, 5),
               explain_oracle::buf("c", 4, 2, 6)};
  const auto lines = explanation_lines(p, explain(p));
  std::string all;
  for (const auto& l : lines) all += l + "\n";
  INFO(all);
  CHECK(all.find("without any one of them they do: buffer a; buffer b; buffer c") != std::string::npos);
  CHECK(all.find("arena 'Vec': at 2 the buffers a, b, c need 12 bytes, 2 over the capacity 10") !=
        std::string::npos);
  CHECK(all.find("arena 'Vec': fits at capacity 12 and not below (proved)") != std::string::npos);
}
