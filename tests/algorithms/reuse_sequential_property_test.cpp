// Property tests over thousands of small random problems: several arenas,
// reserved windows, odd alignments, must-alias groups with offsets, declared
// multi-slot allocations, separations and penalties. Every placement the
// 'sequential' and 'reuse' strategies return passes the independent
// validator; reuse never shares co-live, separated or closed allocations;
// results are identical run to run; the recognizer's output obeys its rules.
#include <doctest/doctest.h>

#include <map>
#include <random>
#include <set>

#include "pto_mem/algorithms/reuse_penalties.hpp"
#include "pto_mem/planner.hpp"
#include "test_support.hpp"

using namespace pto_mem;
using pto_mem::test::dump;

namespace {

using Rng = std::mt19937_64;

std::uint64_t pick(Rng& rng, std::uint64_t lo, std::uint64_t hi) {  // inclusive
  return lo + rng() % (hi - lo + 1);
}

/// A well-formed random problem (the test REQUIREs validate(p) to be empty).
Problem reuse_random_problem(Rng& rng) {
  static const Addr aligns[] = {1, 1, 2, 3, 4, 8, 12, 32};
  Problem p;
  const std::size_t na = pick(rng, 1, 3);
  for (std::size_t k = 0; k < na; ++k) {
    Arena a;
    a.id = static_cast<std::int64_t>(k * 3 + pick(rng, 0, 2));
    a.name = "m" + std::to_string(k);
    p.arenas.push_back(a);
  }
  const std::size_t n = pick(rng, 1, 24);
  for (std::size_t i = 0; i < n; ++i) {
    BufferSpec b;
    b.name = (rng() % 2 ? "b" : "") + std::to_string(i * 7 % 31);
    b.name += "_" + std::to_string(i);
    b.size = pick(rng, 1, 64);
    b.alignment = aligns[rng() % std::size(aligns)];
    b.arena = p.arenas[rng() % na].id;
    b.lifetime.begin = static_cast<Tick>(pick(rng, 0, 20));
    b.lifetime.end = b.lifetime.begin + static_cast<Tick>(pick(rng, 1, 8));
    p.buffers.push_back(b);
  }
  std::vector<bool> taken(n, false);  // in a group or a declaration already
  auto free_in = [&](std::int64_t arena) {
    std::vector<std::size_t> out;
    for (std::size_t i = 0; i < n; ++i)
      if (!taken[i] && p.buffers[i].arena == arena) out.push_back(i);
    std::shuffle(out.begin(), out.end(), rng);
    return out;
  };
  // Declared allocation: a buffer covering slots x slot_size, bindings on slots.
  if (rng() % 3 == 0) {
    const auto arena = p.arenas[rng() % na].id;
    auto cand = free_in(arena);
    if (cand.size() >= 2) {
      DeclaredAllocation d;
      const std::size_t di = cand[0];
      taken[di] = true;
      d.buffer = static_cast<BufferId>(di);
      d.slots = static_cast<std::uint32_t>(pick(rng, 1, 3));
      d.slot_size = pick(rng, 8, 48);
      auto& db = p.buffers[di];
      db.size = d.slots * d.slot_size + pick(rng, 0, 8);
      std::map<std::uint32_t, std::vector<Interval>> used;
      // A run-time slot may be any slot: such a binding is live with no other
      // binding of its declaration (docs/formats.md).
      std::vector<Interval> bound, run_time;
      auto clashes = [](const std::vector<Interval>& ls, const Interval& l) {
        bool c = false;
        for (const auto& x : ls) c = c || interferes(x, l);
        return c;
      };
      for (std::size_t k = 1; k < cand.size() && k <= 3; ++k) {
        auto& bb = p.buffers[cand[k]];
        bb.size = pick(rng, 1, d.slot_size);
        // Keep every binding aligned wherever the declaration lands.
        bb.alignment = 1;
        db.alignment = std::max<Addr>(db.alignment, 1);
        std::optional<std::uint32_t> slot;
        if (clashes(run_time, bb.lifetime)) continue;
        if (rng() % 4 != 0 || clashes(bound, bb.lifetime)) {
          const auto s = static_cast<std::uint32_t>(rng() % d.slots);
          bool clash = false;
          for (const auto& l : used[s]) clash = clash || interferes(l, bb.lifetime);
          if (!clash) {
            slot = s;
            used[s].push_back(bb.lifetime);
          } else {
            continue;
          }
        }
        taken[cand[k]] = true;
        bound.push_back(bb.lifetime);
        if (!slot) run_time.push_back(bb.lifetime);
        d.bindings.push_back({static_cast<BufferId>(cand[k]), slot});
      }
      p.declared.push_back(d);
    }
  }
  // Must-alias groups: members aligned at their offsets whatever the base.
  const std::size_t groups = pick(rng, 0, 3);
  for (std::size_t g = 0; g < groups; ++g) {
    const auto arena = p.arenas[rng() % na].id;
    auto cand = free_in(arena);
    if (cand.size() < 2) continue;
    MustAliasGroup group;
    const std::size_t size = std::min<std::size_t>(cand.size(), pick(rng, 2, 3));
    for (std::size_t k = 0; k < size; ++k) {
      const auto& b = p.buffers[cand[k]];
      taken[cand[k]] = true;
      group.members.push_back({static_cast<BufferId>(cand[k]), b.alignment * pick(rng, 0, 3)});
    }
    p.must_alias.push_back(group);
  }
  // Separations and penalties between buffers of one arena (never inside a class).
  const AliasClasses classes = alias_classes(p);
  const std::size_t pairs = pick(rng, 0, 6);
  for (std::size_t k = 0; k < pairs && n >= 2; ++k) {
    const std::size_t a = rng() % n, b = rng() % n;
    if (a == b || p.buffers[a].arena != p.buffers[b].arena || classes.class_of[a] == classes.class_of[b])
      continue;
    if (rng() % 2) {
      const std::uint8_t reasons[] = {reason_explicit, reason_semantic_no_alias, reason_pipeline_stage};
      p.separations.push_back({static_cast<BufferId>(a), static_cast<BufferId>(b), reasons[rng() % 3]});
    } else if (!interferes(p.buffers[a].lifetime, p.buffers[b].lifetime)) {
      p.penalties.push_back({static_cast<BufferId>(a), static_cast<BufferId>(b), pick(rng, 0, 3)});
    }
  }
  // Capacity: from tight to roomy; reserved windows below it.
  for (auto& a : p.arenas) {
    Addr total = 0;
    for (const auto& b : p.buffers)
      if (b.arena == a.id) total += b.size + b.alignment;
    const std::size_t windows = pick(rng, 0, 2);
    Addr reserved_end = 0;
    for (std::size_t w = 0; w < windows; ++w) {
      const Addr begin = pick(rng, 0, 40);
      const Addr end = begin + pick(rng, 1, 24);
      a.reserved.push_back({begin, end});
      reserved_end = std::max(reserved_end, end);
    }
    a.capacity = reserved_end + std::max<Addr>(1, total * pick(rng, 30, 130) / 100);
  }
  return p;
}

/// Independent check of a reuse result on a (reduced) problem.
void check_reuse(const Problem& p, const std::vector<bool>& closed, const ReuseResult& r) {
  REQUIRE(r.slot_of.size() == p.buffers.size());
  std::set<std::pair<std::size_t, std::size_t>> separated;
  for (const auto& s : p.separations) {
    const std::size_t a = s.a, b = s.b;
    separated.insert({std::min(a, b), std::max(a, b)});
  }
  std::size_t placed = 0;
  for (std::size_t s = 0; s < r.slots.size(); ++s) {
    const auto& slot = r.slots[s];
    REQUIRE_FALSE(slot.members.empty());
    CHECK(slot.members.front() == slot.representative);
    if (slot.closed || closed[slot.representative]) CHECK(slot.members.size() == 1);
    for (std::size_t x = 0; x < slot.members.size(); ++x) {
      const auto i = slot.members[x];
      ++placed;
      CHECK(r.slot_of[i] == s);
      CHECK(p.buffers[i].arena == p.buffers[slot.representative].arena);
      CHECK(p.buffers[i].size <= slot.size);
      if (x > 0) CHECK_FALSE(closed[i]);
      for (std::size_t y = x + 1; y < slot.members.size(); ++y) {
        const auto j = slot.members[y];
        CHECK_FALSE(interferes(p.buffers[i].lifetime, p.buffers[j].lifetime));
        CHECK_FALSE(separated.contains({std::min(i, j), std::max(i, j)}));
      }
    }
  }
  CHECK(placed == p.buffers.size());
}

}  // namespace

TEST_CASE(
    "property: sequential and reuse placements validate, reuse never shares what it must not, output is "
    "deterministic") {
  Rng rng(20240611);
  std::map<std::string, std::size_t> fitted;
  std::size_t with_groups = 0, with_declared = 0, with_separations = 0, shared = 0;
  for (int round = 0; round < 3000; ++round) {
    CAPTURE(round);
    const Problem p = reuse_random_problem(rng);
    {
      const auto errors = validate(p);
      INFO(dump(errors));
      REQUIRE(errors.empty());
    }
    with_groups += !p.must_alias.empty();
    with_declared += !p.declared.empty();
    with_separations += !p.separations.empty();
    const auto u = unify_aliases(p);
    {
      INFO(dump(u.diagnostics));
      REQUIRE(u.ok());
    }
    CHECK(validate(u.problem).empty());
    const auto reused = reuse_lifetimes(u.problem, u.closed);
    check_reuse(u.problem, u.closed, reused);
    shared += reused.slots.size() < u.problem.buffers.size();
    {
      // The other closure form: closed allocations separated pair by pair.
      const auto v = unify_aliases(p, UnifyOptions{.closed_by_separations = true});
      REQUIRE(v.ok());
      CHECK(validate(v.problem).empty());
      const auto r = reuse_lifetimes(v.problem, v.closed);
      check_reuse(v.problem, v.closed, r);
      const auto slots = shared_slot_problem(v.problem, r);
      REQUIRE(slots.diagnostics.empty());
      const auto placed = place_sequential(slots.problem);
      if (placed.placement) {
        const auto back = expand_placement(v, expand_slots(r, *placed.placement));
        INFO(dump(validate(p, back)));
        CHECK(validate(p, back).empty());
      }
    }

    for (const Strategy strategy : {Strategy::sequential, Strategy::reuse}) {
      const std::string name(to_string(strategy));
      CAPTURE(name);
      PlanOptions o;
      o.strategy = strategy;
      const auto r = plan(p, o);
      INFO(dump(r.diagnostics));
      REQUIRE((r.status == Status::no_fit || r.status == Status::infeasible || r.fits()));
      if (r.status == Status::infeasible) {  // the max load alone overflows: proved before any strategy runs
        CHECK(pto_mem::test::mentions(r.diagnostics, "at program point", "max-load bound"));
        continue;
      }
      if (r.status == Status::no_fit) {
        CHECK(pto_mem::test::mentions(r.diagnostics, "sequential placement", "capacity is"));
        continue;
      }
      ++fitted[name];
      CHECK(validate(p, *r.placement).empty());
      for (std::size_t k = 0; k < r.lower_bound.size(); ++k)
        CHECK(r.objective.peak_by_arena[k] >= r.lower_bound[k]);
      const auto again = plan(p, o);
      CHECK(again.placement->offsets == r.placement->offsets);
    }
  }
  MESSAGE("groups " << with_groups << ", declared " << with_declared << ", separations " << with_separations
                    << ", reuse shared " << shared << ", fitted " << fitted["sequential"] << "/"
                    << fitted["reuse"]);
  // The generator covers every feature and both outcomes.
  CHECK(with_groups > 1000);
  CHECK(with_declared > 500);
  CHECK(with_separations > 1000);
  CHECK(shared > 1000);
  CHECK(fitted["sequential"] > 500);
  CHECK(fitted["reuse"] > fitted["sequential"]);
}

TEST_CASE("property: inconsistent alias offsets and contradicting alignments are errors naming buffers") {
  Rng rng(7);
  for (int round = 0; round < 500; ++round) {
    CAPTURE(round);
    Problem p;
    p.arenas = {{0, "Vec", 1 << 20, {}}};
    const Addr align = pick(rng, 2, 16);
    p.buffers = {{"x", 8, align, 0, {0, 2}}, {"y", 8, align, 0, {1, 3}}, {"z", 8, 1, 0, {2, 4}}};
    const pto_mem::test::BufferIds id{p};
    const Addr o1 = pick(rng, 0, 64), o2 = pick(rng, 0, 64);
    if (rng() % 2) {
      // Two groups disagree on y's offset above x.
      if (o1 == o2) continue;
      p.must_alias = {{{{id("x"), 0}, {id("y"), o1}}}, {{{id("z"), 5}, {id("x"), 5}, {id("y"), 5 + o2}}}};
      const auto u = unify_aliases(p);
      CHECK_FALSE(u.ok());
      CHECK(pto_mem::test::mentions(u.diagnostics, "two different offsets", "'y'"));
    } else {
      // x and y share alignment `align`; their offsets differ by o1.
      p.must_alias = {{{{id("x"), 0}, {id("y"), o1}}}};
      const auto u = unify_aliases(p);
      CHECK(u.ok() == (o1 % align == 0));
      if (!u.ok()) CHECK(pto_mem::test::mentions(u.diagnostics, "'x'", "'y'", "cannot both be aligned"));
    }
  }
}

TEST_CASE(
    "property: recognized penalties pair summarised, lifetime-compatible, unseparated allocations once") {
  enum class Pipe { A, B, C };
  Rng rng(99);
  for (int round = 0; round < 1000; ++round) {
    CAPTURE(round);
    std::vector<BufferSpec> allocs;
    const std::size_t n = pick(rng, 1, 12);
    for (std::size_t i = 0; i < n; ++i) {
      const Tick def = static_cast<Tick>(pick(rng, 0, 12));
      allocs.push_back({"a" + std::to_string(i),
                        64,
                        32,
                        static_cast<std::int64_t>(rng() % 2),
                        {def, def + static_cast<Tick>(pick(rng, 0, 4))}});
    }
    std::vector<AccessEvent<Pipe>> events;
    for (std::size_t i = 0; i < n; ++i) {
      const std::size_t k = pick(rng, 0, 3);
      for (std::size_t e = 0; e < k; ++e) {
        AccessEvent<Pipe> ev;
        ev.allocation = i;
        ev.order = static_cast<std::uint64_t>(allocs[i].lifetime.begin) + pick(rng, 0, 2);
        ev.write = e == 0 || rng() % 2;
        if (rng() % 10 != 0) ev.pipe = static_cast<Pipe>(rng() % 3);
        ev.region = rng() % 6 == 0 ? 1 : 0;
        ev.in_loop = ev.region == 1;
        ev.whole = rng() % 8 != 0;
        events.push_back(ev);
      }
    }
    std::vector<std::pair<std::size_t, std::size_t>> separated;
    if (n >= 2)
      for (int s = 0; s < 2; ++s) separated.emplace_back(rng() % n, rng() % n);
    const auto out = recognize_reuse_penalties(allocs, events, separated);
    CHECK(out == recognize_reuse_penalties(allocs, events, separated));
    std::set<std::pair<std::size_t, std::size_t>> seen;
    for (const auto& e : out) {
      CHECK(e.a < e.b);
      CHECK(e.weight == 1);
      CHECK(seen.insert({e.a, e.b}).second);
      CHECK(allocs[e.a].arena == allocs[e.b].arena);
      const auto& x = allocs[e.a].lifetime;
      const auto& y = allocs[e.b].lifetime;
      CHECK((x.end <= y.begin || y.end <= x.begin));
      for (const auto& [s, t] : separated) CHECK_FALSE((std::min(s, t) == e.a && std::max(s, t) == e.b));
      for (std::size_t i : {e.a, e.b})
        for (const auto& ev : events)
          if (ev.allocation == i) {
            CHECK(ev.pipe.has_value());
            CHECK(ev.whole);
          }
    }
  }
}
