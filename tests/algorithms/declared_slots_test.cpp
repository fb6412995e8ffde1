// Declared allocations and run-time slots, by brute
// force: for small random declarations every placement on a grid is judged
// by the validator and by a direct geometric check written here, and the
// two verdicts must agree; the planner then places every well-formed one
// and its placement must pass the same direct check.
//
// The rule checked (docs/formats.md): a binding with a constant slot lives
// at declaration + slot * slot_size; a binding whose slot is chosen at run
// time lives on some slot boundary and, since at run time it may take any
// slot, may not be live at the same time as any other binding of its
// declaration; two bindings on one constant slot may not be live at once;
// nothing but the bindings shares the declaration's bytes.
#include <doctest/doctest.h>

#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "pto_mem/algorithms/validator.hpp"
#include "pto_mem/planner.hpp"
#include "test_support.hpp"

using namespace pto_mem;

namespace {

struct Case {
  Problem p;
  std::uint32_t slots = 1;
  Addr slot_size = 4;
  std::vector<std::optional<std::uint32_t>> slot;  // per binding (buffers 1..k)
};

bool live_together(const Interval& a, const Interval& b) { return a.begin < b.end && b.begin < a.end; }
bool bytes_overlap(Addr a, Addr as, Addr b, Addr bs) { return a < b + bs && b < a + as; }

/// Buffer 0 is the declaration, 1..k its bindings, the last one outside.
Case random_case(std::mt19937_64& rng) {
  Case c;
  c.slots = 1 + static_cast<std::uint32_t>(rng() % 2);
  const std::size_t k = 1 + rng() % 3;
  c.p.arenas.push_back({0, "a", 16, {}});
  c.p.buffers.push_back({"decl", c.slots * c.slot_size, 1, 0, {0, 6}});
  DeclaredAllocation d{0, c.slots, c.slot_size, {}};
  for (std::size_t i = 0; i < k; ++i) {
    const Tick b = static_cast<Tick>(rng() % 5);
    const auto id = static_cast<BufferId>(c.p.buffers.size());
    c.p.buffers.push_back(
        {"t" + std::to_string(i), 2 + rng() % 3, 1, 0, {b, b + 1 + static_cast<Tick>(rng() % 3)}});
    std::optional<std::uint32_t> slot;
    if (rng() % 3 != 0) slot = static_cast<std::uint32_t>(rng() % c.slots);
    c.slot.push_back(slot);
    d.bindings.push_back({id, slot});
  }
  c.p.declared.push_back(d);
  const Tick xb = static_cast<Tick>(rng() % 6);
  c.p.buffers.push_back({"x", 4, 1, 0, {xb, xb + 1}});
  return c;
}

/// The problem-level rule, pair by pair.
bool well_formed(const Case& c) {
  const std::size_t k = c.slot.size();
  for (std::size_t i = 0; i < k; ++i)
    for (std::size_t j = i + 1; j < k; ++j) {
      if (!live_together(c.p.buffers[1 + i].lifetime, c.p.buffers[1 + j].lifetime)) continue;
      if (!c.slot[i] || !c.slot[j] || *c.slot[i] == *c.slot[j]) return false;
    }
  return true;
}

/// The placement rule from geometry alone.
bool placement_ok(const Case& c, const std::vector<Addr>& off) {
  const auto& b = c.p.buffers;
  const Addr cap = c.p.arenas[0].capacity;
  for (std::size_t i = 0; i < b.size(); ++i)
    if (off[i] + b[i].size > cap) return false;
  const Addr base = off[0];
  for (std::size_t i = 0; i < c.slot.size(); ++i) {
    const Addr o = off[1 + i];
    if (c.slot[i]) {
      if (o != base + *c.slot[i] * c.slot_size) return false;
    } else {
      bool on_boundary = false;
      for (std::uint32_t s = 0; s < c.slots; ++s) on_boundary = on_boundary || o == base + s * c.slot_size;
      if (!on_boundary) return false;
    }
  }
  // Co-live buffers apart in bytes, except a declaration with its own bindings.
  for (std::size_t i = 0; i < b.size(); ++i)
    for (std::size_t j = i + 1; j < b.size(); ++j) {
      const bool decl_and_binding = i == 0 && j <= c.slot.size();
      if (decl_and_binding || !live_together(b[i].lifetime, b[j].lifetime)) continue;
      if (bytes_overlap(off[i], b[i].size, off[j], b[j].size)) return false;
    }
  // The declaration is closed: the outside buffer never shares its bytes.
  const std::size_t x = b.size() - 1;
  return !bytes_overlap(off[0], b[0].size, off[x], b[x].size);
}

}  // namespace

TEST_CASE("declared slots: the validator agrees with a direct geometric check on every small placement") {
  std::mt19937_64 rng(1012);
  int well = 0, ill = 0;
  std::uint64_t valid_seen = 0, checked = 0;
  for (int round = 0; round < 40; ++round) {
    const Case c = random_case(rng);
    const bool wf = well_formed(c);
    (wf ? well : ill)++;
    CAPTURE(round);
    CHECK_MESSAGE(validate(c.p).empty() == wf, pto_mem::test::dump(validate(c.p)));
    // Every placement on a grid: the declaration at 0/4/8, bindings on every
    // even offset (on and off the slot boundaries), the outside buffer at
    // 0/4/8/12 (inside and outside the declaration).
    const std::size_t n = c.p.buffers.size();
    auto step = [&](std::size_t i) -> Addr { return i == 0 || i == n - 1 ? 4 : 2; };
    auto last = [&](std::size_t i) -> Addr { return i == 0 ? 8 : i == n - 1 ? 12 : 10; };
    std::vector<Addr> off(n, 0);
    while (true) {
      Placement pl;
      for (Addr o : off) pl.offsets.push_back(o);
      const bool direct = wf && placement_ok(c, off);
      const bool said = validate(c.p, pl).empty();
      ++checked;
      valid_seen += direct ? 1 : 0;
      if (direct != said) {
        std::string where;
        for (std::size_t i = 0; i < n; ++i) where += c.p.buffers[i].name + "@" + std::to_string(off[i]) + " ";
        FAIL_CHECK("validator " << (said ? "accepts" : "refuses") << " " << where << ": "
                                << pto_mem::test::dump(validate(c.p, pl)));
        break;
      }
      std::size_t i = 0;
      for (; i < n; ++i) {
        off[i] += step(i);
        if (off[i] <= last(i)) break;
        off[i] = 0;
      }
      if (i == n) break;
    }
    // The planner places every well-formed case, and its answer passes the direct check.
    if (wf) {
      PlanOptions o;
      o.strategy = round % 2 == 0 ? Strategy::greedy : Strategy::portfolio;
      const PlanResult r = plan(c.p, o);
      REQUIRE_MESSAGE(r.placement, pto_mem::test::dump(r.diagnostics));
      std::vector<Addr> got;
      for (const auto& x : r.placement->offsets) got.push_back(*x);
      CHECK(placement_ok(c, got));
    } else {
      CHECK(plan(c.p).status == Status::invalid_input);
    }
  }
  CHECK(well > 5);
  CHECK(ill > 5);
  CHECK(valid_seen > 0);
  MESSAGE(checked << " placements checked");
}

TEST_CASE("declared slots: the issue's run-time slot overlap is refused, and a disjoint one accepted") {
  Problem p;
  p.arenas.push_back({0, "a", 256, {}});
  p.buffers.push_back({"d", 64, 1, 0, {0, 10}});
  p.buffers.push_back({"a", 4, 1, 0, {0, 4}});
  p.buffers.push_back({"b", 4, 1, 0, {2, 6}});
  const test::BufferIds id{p};
  p.declared.push_back({id("d"), 1, 64, {{id("a"), 0u}, {id("b"), std::nullopt}}});
  const auto bad = validate(p);
  REQUIRE(bad.size() == 1);
  CHECK(pto_mem::test::mentions(bad, "'b' is bound to a slot chosen at run time", "'a'", "[0, 4)", "[2, 6)"));
  CHECK(plan(p).status == Status::invalid_input);
  p.buffers[2].lifetime = {4, 6};  // b starts when a ends
  CHECK(validate(p).empty());
  const PlanResult r = plan(p);
  REQUIRE(r.placement);
  CHECK(validate(p, *r.placement).empty());
}
