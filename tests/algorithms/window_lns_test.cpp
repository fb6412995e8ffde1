// The window search (exact/window_lns.hpp): searching a set of buffers
// again with the others fixed. A complete run must say "fits" exactly when
// an independent enumerator of every offset finds a placement of the free
// buffers under the target, clear of the fixed ones; every placement it
// keeps must pass the validator; and a round never raises the peak.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "pto_mem/algorithms/exact/search.hpp"
#include "pto_mem/algorithms/exact/subproblem.hpp"
#include "pto_mem/algorithms/exact/window_lns.hpp"
#include "pto_mem/algorithms/validator.hpp"

using namespace pto_mem;

namespace {

/// One arena of 64 bytes, up to `n` buffers, odd alignments, sometimes a
/// reserved window and separations.
Problem lns_random_problem(std::mt19937_64& rng, std::size_t n, Tick horizon) {
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
    const Tick b = static_cast<Tick>(pick(0, static_cast<std::uint64_t>(horizon)));
    p.buffers.push_back(
        {"b" + std::to_string(i), pick(1, 5), aligns[pick(0, 5)], 0, {b, b + static_cast<Tick>(pick(1, 4))}});
  }
  for (std::size_t k = pick(0, 2); k > 0 && count > 1; --k) {
    const auto i = pick(0, count - 1), j = pick(0, count - 1);
    if (i != j) p.separations.push_back({static_cast<BufferId>(i), static_cast<BufferId>(j)});
  }
  return p;
}

/// Can the free items of `sp` (flag set) be placed under `target`, clear of
/// the reserved windows, of each other and of the fixed items at `off`?
/// Every offset of every free item, in index order.
class WindowEnumerator {
 public:
  WindowEnumerator(const exact::Subproblem& sp, const std::vector<Addr>& off, const std::vector<bool>& free,
                   Addr target)
      : sp_(sp), off_(off), free_(free), cap_(target) {}
  bool fits() { return dfs(0); }

 private:
  bool conflict(std::size_t i, std::size_t j) const {
    if (interferes(sp_.items[i].lifetime, sp_.items[j].lifetime)) return true;
    return std::find(sp_.separated[i].begin(), sp_.separated[i].end(), j) != sp_.separated[i].end();
  }
  bool dfs(std::size_t i) {
    if (i == sp_.items.size()) return true;
    if (!free_[i]) return dfs(i + 1);
    const auto& it = sp_.items[i];
    for (Addr x = 0; x + it.size <= cap_; x += it.alignment) {
      bool ok = true;
      for (const auto& w : sp_.space.windows()) ok = ok && !overlaps({x, x + it.size}, w);
      // Fixed items anywhere, free items before i (placed).
      for (std::size_t j = 0; j < sp_.items.size() && ok; ++j) {
        if (j == i || (free_[j] && j > i)) continue;
        ok = !(conflict(i, j) && overlaps({x, x + it.size}, {off_[j], off_[j] + sp_.items[j].size}));
      }
      if (!ok) continue;
      const Addr old = off_[i];
      off_[i] = x;
      if (dfs(i + 1)) return true;
      off_[i] = old;
    }
    return false;
  }
  const exact::Subproblem& sp_;
  std::vector<Addr> off_;
  const std::vector<bool>& free_;
  Addr cap_;
};

/// A placement of the part at the arena's capacity (a complete canonical
/// run), or none.
std::optional<std::vector<Addr>> lns_any_placement(const exact::Subproblem& sp) {
  exact::CanonicalSearch s(sp);
  exact::Limits limits;
  exact::Budget b(limits, 0);
  if (s.run(sp.space.capacity(), max_addr, "TWA", b) != exact::Outcome::found) return std::nullopt;
  return s.solution();
}

/// Writes a part's offsets into a whole placement of `p`.
void lns_put(Placement& pl, const exact::Subproblem& sp, const std::vector<Addr>& off) {
  for (std::size_t i = 0; i < sp.items.size(); ++i) pl.offsets[sp.items[i].buffer] = off[i];
}

/// The part's buffers alone (in the order of its items) with the
/// separations between them, renumbered into the part.
Problem lns_part_problem(const Problem& p, const exact::Subproblem& sp) {
  Problem part;
  part.arenas = p.arenas;
  std::vector<std::optional<BufferId>> in_part(p.buffers.size());
  for (const auto& it : sp.items) {
    in_part[it.buffer] = static_cast<BufferId>(part.buffers.size());
    part.buffers.push_back(p.buffers[it.buffer]);
  }
  for (const auto& s : p.separations)
    if (in_part[s.a] && in_part[s.b]) part.separations.push_back({*in_part[s.a], *in_part[s.b], s.reasons});
  return part;
}

Addr lns_peak_of(const exact::Subproblem& sp, const std::vector<Addr>& off) {
  Addr peak = 0;
  for (std::size_t i = 0; i < off.size(); ++i) peak = std::max(peak, off[i] + sp.items[i].size);
  return peak;
}

}  // namespace

TEST_CASE("a window search with the rest fixed agrees with an enumerator of every offset") {
  std::mt19937_64 rng(160316);
  int fitted = 0, refused = 0;
  for (int trial = 0; trial < 400; ++trial) {
    INFO("trial " << trial);
    const Problem p = lns_random_problem(rng, 8, 5);
    REQUIRE(validate(p).empty());
    for (const auto& sp : exact::decompose(p)) {
      const auto start = lns_any_placement(sp);
      if (!start) continue;
      const std::size_t n = sp.items.size();
      // A random free set (at least one item) and a target at or below the peak.
      std::vector<bool> free(n, false);
      std::vector<std::uint32_t> items;
      for (std::uint32_t i = 0; i < n; ++i)
        if (rng() % 2 == 0 || (i + 1 == n && items.empty())) {
          free[i] = true;
          items.push_back(i);
        }
      const Addr peak = lns_peak_of(sp, *start);
      const Addr target = peak - std::min<Addr>(peak, rng() % 4);
      const bool truth = WindowEnumerator(sp, *start, free, target).fits();
      for (std::string_view order : {"TWA", "WAT", "U"}) {
        exact::WindowLns lns(sp);
        std::vector<Addr> off = *start;
        exact::Limits limits;
        const bool ok = lns.solve(off, items, target, limits, 0, order);
        CHECK(ok == truth);
        for (std::uint32_t i = 0; i < n; ++i) {
          if (!free[i])
            CHECK(off[i] == (*start)[i]);  // the fixed stay
          else if (ok)
            CHECK(off[i] + sp.items[i].size <= target);
        }
        Placement pl;
        pl.offsets.assign(p.buffers.size(), 0);
        lns_put(pl, sp, off);
        // Only this part's buffers are checked: the others are given a
        // placement of their own below.
        const Problem part = lns_part_problem(p, sp);
        Placement mine;
        for (const auto& it : sp.items) mine.offsets.push_back(pl.offsets[it.buffer]);
        CHECK(validate(part, mine).empty());
      }
      (truth ? fitted : refused) += 1;
    }
  }
  CHECK(fitted > 100);
  CHECK(refused > 100);
}

TEST_CASE("window rounds keep a valid placement and never raise the peak") {
  std::mt19937_64 rng(160317);
  int lowered = 0;
  for (int trial = 0; trial < 60; ++trial) {
    INFO("trial " << trial);
    Problem p = lns_random_problem(rng, 60, 40);
    p.arenas[0].capacity = 400;
    REQUIRE(validate(p).empty());
    for (const auto& sp : exact::decompose(p)) {
      auto start = lns_any_placement(sp);
      if (!start) continue;
      exact::WindowLns lns(sp);
      std::vector<Addr> off = *start;
      exact::Limits limits;
      Addr peak = lns_peak_of(sp, off);
      for (int round = 0; round < 12 && peak > sp.lower_bound; ++round) {
        const Addr target = peak - 1;
        const std::size_t size = std::size_t{4} << (round % 4);
        const bool ok = round % 2 == 0 ? lns.lower_to(off, target, limits, size, 4096, "TWA")
                                       : lns.lower_band(off, target, limits, size, 4096, "WAT");
        const Addr now = lns_peak_of(sp, off);
        CHECK(now <= peak);
        if (ok) {
          CHECK(now <= target);
          ++lowered;
        }
        peak = now;
        // The part's buffers alone, validated independently.
        const Problem part = lns_part_problem(p, sp);
        Placement mine;
        for (std::size_t i = 0; i < sp.items.size(); ++i) mine.offsets.push_back(off[i]);
        CHECK(validate(part, mine).empty());
      }
    }
  }
  CHECK(lowered > 20);
}

TEST_CASE("penalty windows keep a valid placement and lower the penalty by what they report") {
  // Random problems with reuse penalties between lifetime-disjoint buffers:
  // every penalty window must leave a placement the validator accepts, whose
  // penalty (recomputed from the problem by evaluate_objective) is the old
  // one less what the window reports saved -- never more.
  std::mt19937_64 rng(310031);
  int saved_some = 0, windows = 0;
  for (int trial = 0; trial < 80; ++trial) {
    INFO("trial " << trial);
    Problem p = lns_random_problem(rng, 40, 30);
    p.arenas[0].capacity = 24 + rng() % 24;
    for (std::size_t k = 0, n = p.buffers.size(); n > 1 && k < 3 * n; ++k) {
      const auto i = rng() % n, j = rng() % n;
      if (i != j && !interferes(p.buffers[i].lifetime, p.buffers[j].lifetime))
        p.penalties.push_back(
            {static_cast<BufferId>(i), static_cast<BufferId>(j), static_cast<Weight>(1 + rng() % 3)});
    }
    REQUIRE(validate(p).empty());
    const auto parts = exact::decompose(p);
    Placement pl;
    pl.offsets.assign(p.buffers.size(), std::nullopt);
    bool all = true;
    std::vector<std::vector<Addr>> offs;
    for (const auto& sp : parts) {
      auto start = lns_any_placement(sp);
      all = all && start.has_value();
      offs.push_back(start ? *start : std::vector<Addr>{});
      if (start) lns_put(pl, sp, *start);
    }
    if (!all) continue;
    REQUIRE(validate(p, pl).empty());
    for (std::size_t q = 0; q < parts.size(); ++q) {
      exact::WindowLns lns(parts[q]);
      exact::Limits limits;
      for (std::uint64_t pick = 0; pick < 12; ++pick) {
        const Weight before = evaluate_objective(p, pl).penalty;
        const std::size_t size = std::size_t{2} << (pick % 4);
        const Weight saved = lns.lower_penalty(offs[q], p.arenas[0].capacity, limits, size,
                                               pick % 3 == 0 ? 0 : 64, pick % 2 == 0 ? "TWA" : "WAT", pick);
        ++windows;
        lns_put(pl, parts[q], offs[q]);
        CHECK(validate(p, pl).empty());
        CHECK(evaluate_objective(p, pl).penalty + saved == before);
        saved_some += saved > 0;
      }
    }
  }
  CHECK(windows > 200);
  CHECK(saved_some > 10);
}
