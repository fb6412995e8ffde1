// The floor search (exact/floor_search.hpp) against an independent
// enumerator of every offset, and against the canonical search: a run that
// completes must say "fits" exactly when some placement fits, and every fit
// it returns must pass the validator -- with the failure memo on and off,
// in several static orders and with perturbed orders, with alignments,
// reserved windows and separations.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "guillotine.hpp"
#include "pto_mem/algorithms/exact/floor_search.hpp"
#include "pto_mem/algorithms/exact/search.hpp"
#include "pto_mem/algorithms/exact/subproblem.hpp"
#include "pto_mem/algorithms/validator.hpp"
#include "pto_mem/analysis/lower_bound.hpp"

using namespace pto_mem;

namespace {

/// Does any placement of `p`'s single arena fit under `capacity`? Every
/// offset of every buffer, in index order, pruned only by validity.
class FitEnumerator {
 public:
  FitEnumerator(const Problem& p, Addr capacity) : p_(p), cap_(capacity), off_(p.buffers.size(), 0) {}
  bool fits() { return dfs(0); }

 private:
  bool conflict(std::size_t i, std::size_t j) const {
    if (interferes(p_.buffers[i].lifetime, p_.buffers[j].lifetime)) return true;
    for (const auto& s : p_.separations)
      if ((s.a == i && s.b == j) || (s.a == j && s.b == i)) return true;
    return false;
  }
  bool dfs(std::size_t i) {
    if (i == p_.buffers.size()) return true;
    const auto& b = p_.buffers[i];
    for (Addr x = 0; x + b.size <= cap_; x += b.alignment) {
      bool ok = true;
      for (const auto& w : p_.arenas[0].reserved) ok = ok && !overlaps({x, x + b.size}, w);
      for (std::size_t j = 0; j < i && ok; ++j)
        ok = !(conflict(i, j) && overlaps({x, x + b.size}, {off_[j], off_[j] + p_.buffers[j].size}));
      if (!ok) continue;
      off_[i] = x;
      if (dfs(i + 1)) return true;
    }
    return false;
  }
  const Problem& p_;
  Addr cap_;
  std::vector<Addr> off_;
};

/// One arena, up to `n` buffers, odd alignments, sometimes a reserved window
/// and separations; no penalties (the floor search does not take them).
Problem floor_random_problem(std::mt19937_64& rng, std::size_t n) {
  auto pick = [&](std::uint64_t lo, std::uint64_t hi) { return lo + rng() % (hi - lo + 1); };
  Problem p;
  Arena ar{0, "a", 64, {}};
  if (pick(0, 2) == 0) {
    const Addr b = pick(0, 6);
    ar.reserved.push_back({b, b + pick(1, 2)});
  }
  p.arenas.push_back(ar);
  static constexpr Addr aligns[] = {1, 1, 1, 2, 3, 4};
  const std::size_t count = pick(1, n);
  for (std::size_t i = 0; i < count; ++i) {
    const Tick b = static_cast<Tick>(pick(0, 5));
    p.buffers.push_back(
        {"b" + std::to_string(i), pick(1, 4), aligns[pick(0, 5)], 0, {b, b + static_cast<Tick>(pick(1, 3))}});
  }
  for (std::size_t k = pick(0, 2); k > 0 && count > 1; --k) {
    const auto i = pick(0, count - 1), j = pick(0, count - 1);
    if (i != j) p.separations.push_back({static_cast<BufferId>(i), static_cast<BufferId>(j)});
  }
  return p;
}

Problem floor_guillotine(std::mt19937_64& rng, Addr capacity, Tick horizon, std::size_t pieces) {
  return test::guillotine_puzzle(rng, capacity, horizon, pieces);
}

struct FloorRun {
  bool all_found = true;
  std::optional<Placement> placement;
  std::uint64_t memo_hits = 0, jumps = 0, split_nodes = 0;
};

/// How a floor run is set up beyond its order (the defaults are the search's).
struct FloorKnobs {
  bool components = true;
  bool larger_first = false;
};

/// Runs the floor search to the end on every part of `p` under `capacity`:
/// the static order `order`, or (rank_seed != 0) that order perturbed at
/// random, twice per part (the second run reuses the memo of the first).
FloorRun floor_parts(const Problem& p, Addr capacity, std::string_view order, bool memo,
                     std::uint64_t rank_seed, FloorKnobs knobs = {}) {
  FloorRun out;
  Placement pl;
  pl.offsets.assign(p.buffers.size(), std::nullopt);
  for (const auto& sp : exact::decompose(p)) {
    exact::FloorSearch fs(sp);
    fs.use_failure_memo(memo);
    fs.components_ = knobs.components;
    fs.larger_first_ = knobs.larger_first;
    for (int twice = 0; twice < 2; ++twice) {
      auto rank = exact::preorder_ranks(fs.features(), order);
      if (rank_seed != 0) {
        std::mt19937_64 r(rank_seed + static_cast<std::uint64_t>(twice));
        std::shuffle(rank.begin(), rank.end(), r);
      }
      exact::Limits limits;
      exact::Budget b(limits, 0);
      const auto o = fs.run(capacity, rank, b);
      REQUIRE(o != exact::Outcome::aborted);
      if (o == exact::Outcome::infeasible) {
        out.all_found = false;
      } else {
        REQUIRE(fs.solution().size() == sp.items.size());
        for (std::size_t i = 0; i < sp.items.size(); ++i) pl.offsets[sp.items[i].buffer] = fs.solution()[i];
      }
    }
    out.memo_hits += fs.memo_hits();
    out.jumps += fs.jumps();
    out.split_nodes += fs.split_nodes();
  }
  if (out.all_found) out.placement = std::move(pl);
  return out;
}

/// The least capacity under which the enumerator finds a fit (searching up
/// from the max-load bound).
Addr least_fitting_capacity(const Problem& p) {
  Addr c = arena_loads(p)[0].lower_bound;
  while (!FitEnumerator(p, c).fits()) ++c;
  return c;
}

/// The canonical search's verdict (complete, no budget): does every part fit under `capacity`?
bool canonical_fits(const Problem& p, Addr capacity) {
  bool fits = true;
  for (const auto& sp : exact::decompose(p)) {
    exact::CanonicalSearch cs(sp);
    exact::Limits limits;
    exact::Budget b(limits, 0);
    const auto o = cs.run(capacity, max_addr, "TWA", b);
    REQUIRE(o != exact::Outcome::aborted);
    fits = fits && o == exact::Outcome::found;
  }
  return fits;
}

}  // namespace

TEST_CASE("the floor search agrees with an enumerator of every offset") {
  // At the least capacity that fits and one byte below it (and two more
  // bytes above, where slack makes it declare waste), in three orders and a
  // shuffled one, with and without the memo.
  std::mt19937_64 rng(160116);
  int fitted = 0, refused = 0;
  for (int trial = 0; trial < 300; ++trial) {
    INFO("trial " << trial);
    Problem p = floor_random_problem(rng, trial < 200 ? 6 : 8);
    REQUIRE(validate(p).empty());
    const Addr best = least_fitting_capacity(p);
    for (Addr cap : {best - (best > 0 ? 1 : 0), best, best + 2}) {
      Problem at = p;
      at.arenas[0].capacity = cap;
      if (!validate(at).empty()) continue;  // a window beyond the capacity
      const bool truth = cap >= best;
      for (std::string_view order : {"TWA", "WAT", "U"})
        for (bool memo : {false, true})
          for (std::uint64_t seed :
               {std::uint64_t{0}, std::uint64_t{7} + static_cast<std::uint64_t>(trial)}) {
            const FloorRun r = floor_parts(at, cap, order, memo, seed);
            CHECK(r.all_found == truth);
            if (r.placement) CHECK(validate(at, *r.placement).empty());
          }
      (truth ? fitted : refused) += 1;
    }
  }
  CHECK(fitted > 400);
  CHECK(refused > 150);
}

TEST_CASE("the floor search agrees with the canonical search on nearly perfect packings") {
  // Guillotine puzzles with one piece grown or shrunk by a byte, some with a
  // separation, at their capacity and one byte below: little slack, so both
  // searches finish, and whether anything fits takes a real search.
  std::mt19937_64 rng(16017);
  int fits = 0, refused = 0;
  std::uint64_t hits = 0, jumps = 0;
  for (int trial = 0; trial < 150; ++trial) {
    INFO("trial " << trial);
    Problem p = floor_guillotine(rng, 16 + rng() % 12, 30, 10 + rng() % 12);
    auto& piece = p.buffers[rng() % p.buffers.size()];
    if (rng() % 2 == 0)
      ++piece.size;
    else if (piece.size > 1)
      --piece.size;
    if (trial % 5 == 0 && p.buffers.size() > 2) p.separations.push_back({0, 1});
    const Addr cap0 = p.arenas[0].capacity;
    for (Addr cap : {cap0 - 1, cap0}) {
      p.arenas[0].capacity = cap;
      const bool canonical = canonical_fits(p, cap);
      for (std::string_view order : {"TAW", "WAT"})
        for (bool memo : {false, true}) {
          const FloorRun r =
              floor_parts(p, cap, order, memo, memo ? 99u + static_cast<std::uint64_t>(trial) : 0u);
          CHECK(r.all_found == canonical);
          if (r.placement) CHECK(validate(p, *r.placement).empty());
          hits += r.memo_hits;
          jumps += r.jumps;
        }
      (canonical ? fits : refused) += 1;
    }
  }
  CHECK(fits > 50);
  CHECK(refused > 50);
  CHECK(jumps > 100);  // the back-jumping was exercised
  CHECK(hits > 100);   // and the memo
}

TEST_CASE("the floor search fits guillotine puzzles at their capacity and refuses one byte less") {
  std::mt19937_64 rng(161);
  for (int trial = 0; trial < 40; ++trial) {
    INFO("trial " << trial);
    const Problem p = floor_guillotine(rng, 24 + rng() % 16, 40, 12 + static_cast<std::size_t>(trial % 20));
    const Addr cap = p.arenas[0].capacity;
    for (bool memo : {false, true}) {
      const FloorRun fit = floor_parts(p, cap, "TAW", memo, memo ? 5u : 0u);
      CHECK(fit.all_found);
      if (fit.placement) CHECK(validate(p, *fit.placement).empty());
      CHECK_FALSE(floor_parts(p, cap - 1, "TAW", memo, 0).all_found);
    }
  }
}

TEST_CASE("the floor search's time components: the same answers with the memo keyed per component") {
  // Guillotine puzzles cut more often in time (long horizons, few address
  // cuts left), one piece grown or shrunk by a byte, at the capacity and one
  // byte below: once the long buffers are placed the rest falls into time
  // components, each searched alone with its failures remembered by its own
  // key. The verdict must be the canonical search's, with components on and
  // off, either value order, and every fit must pass the validator.
  std::mt19937_64 rng(1601);
  int fits = 0, refused = 0;
  std::uint64_t split = 0, hits = 0;
  for (int trial = 0; trial < 120; ++trial) {
    INFO("trial " << trial);
    Problem p = floor_guillotine(rng, 24 + rng() % 16, 80, 30 + rng() % 30);
    auto& piece = p.buffers[rng() % p.buffers.size()];
    if (rng() % 3 == 0)
      ++piece.size;
    else if (rng() % 2 == 0 && piece.size > 1)
      --piece.size;
    const Addr cap0 = p.arenas[0].capacity;
    for (Addr cap : {cap0 - 1, cap0}) {
      p.arenas[0].capacity = cap;
      const bool canonical = canonical_fits(p, cap);
      for (bool components : {true, false})
        for (bool larger_first : {false, true}) {
          const FloorRun r = floor_parts(p, cap, "TAW", true, 31u + static_cast<std::uint64_t>(trial),
                                         {components, larger_first});
          CHECK(r.all_found == canonical);
          if (r.placement) CHECK(validate(p, *r.placement).empty());
          if (components)
            split += r.split_nodes;
          else
            CHECK(r.split_nodes == 0);
          hits += r.memo_hits;
        }
      (canonical ? fits : refused) += 1;
    }
  }
  CHECK(fits > 40);
  CHECK(refused > 40);
  CHECK(split > 5000);  // components were searched alone (9080 when written)
  CHECK(hits > 20);     // and their failures looked up (31)
}
