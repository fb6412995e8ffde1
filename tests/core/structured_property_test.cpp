// Structured problems (several live intervals, exclusions, pins, candidate
// arenas, conflict graphs) against a brute-force oracle on small random
// problems: every placement plan() returns is valid by the oracle's own
// reading of the rules, no proof is wrong (infeasible, optimal, proved
// terms), the lower bound never exceeds the best peak, the exact and
// portfolio searches are complete (a placement whenever one exists, every
// infeasible and optimal proved), and the validator agrees with the oracle
// on random placements.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "pto_mem/planner.hpp"
#include "test_support.hpp"

namespace structured_oracle {

using namespace pto_mem;

/// The oracle's own reading of "live together": the graph edge, else the
/// live intervals meet; never across an exclusion.
bool together(const Problem& p, std::size_t i, std::size_t j) {
  for (const auto& x : p.exclusions)
    if ((x.a == i && x.b == j) || (x.a == j && x.b == i)) return false;
  if (p.conflict_graph) {
    for (const auto& c : *p.conflict_graph)
      if ((c.a == i && c.b == j) || (c.a == j && c.b == i)) return true;
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

bool separated(const Problem& p, std::size_t i, std::size_t j) {
  for (const auto& s : p.separations)
    if ((s.a == i && s.b == j) || (s.a == j && s.b == i)) return true;
  return false;
}

std::vector<std::int64_t> candidates(const BufferSpec& b) {
  return b.candidate_arenas.empty() ? std::vector<std::int64_t>{b.arena} : b.candidate_arenas;
}

Addr capacity_of(const Problem& p, std::int64_t arena) {
  for (const auto& a : p.arenas)
    if (a.id == arena) return a.capacity;
  return 0;
}

/// Whether buffers i and j, at these offsets and arenas, break a rule.
bool clash(const Problem& p, std::size_t i, std::size_t j, const std::vector<Addr>& off,
           const std::vector<std::int64_t>& ar) {
  if (ar[i] != ar[j]) return false;
  const auto& a = p.buffers[i];
  const auto& b = p.buffers[j];
  const bool bytes = off[i] < off[j] + b.size && off[j] < off[i] + a.size;
  if (!bytes) return false;
  const bool exclusive = (a.pin && a.pin->exclusive) || (b.pin && b.pin->exclusive);
  return exclusive || separated(p, i, j) || together(p, i, j);
}

/// One buffer alone: alignment, capacity, reserved windows, pin, candidate.
bool fits_alone(const Problem& p, std::size_t i, Addr off, std::int64_t arena) {
  const auto& b = p.buffers[i];
  if (off % b.alignment != 0) return false;
  if (b.pin && off != b.pin->offset) return false;
  const auto c = candidates(b);
  if (std::find(c.begin(), c.end(), arena) == c.end()) return false;
  if (off + b.size > capacity_of(p, arena)) return false;
  for (const auto& a : p.arenas)
    if (a.id == arena)
      for (const auto& r : a.reserved)
        if (off < r.end && r.begin < off + b.size) return false;
  return true;
}

bool valid(const Problem& p, const std::vector<Addr>& off, const std::vector<std::int64_t>& ar) {
  for (std::size_t i = 0; i < p.buffers.size(); ++i) {
    if (!fits_alone(p, i, off[i], ar[i])) return false;
    for (std::size_t j = i + 1; j < p.buffers.size(); ++j)
      if (clash(p, i, j, off, ar)) return false;
  }
  return true;
}

struct Score {
  std::uint64_t spill = 0;
  Weight penalty = 0;
  Addr total_peak = 0;
  std::vector<Addr> peak;
  auto key() const { return std::tuple(spill, penalty, total_peak); }
};

Score score(const Problem& p, const std::vector<Addr>& off, const std::vector<std::int64_t>& ar) {
  Score s;
  s.peak.assign(p.arenas.size(), 0);
  for (std::size_t k = 0; k < p.arenas.size(); ++k)
    for (const auto& r : p.arenas[k].reserved) s.peak[k] = std::max(s.peak[k], r.end);
  for (std::size_t i = 0; i < p.buffers.size(); ++i) {
    for (std::size_t k = 0; k < p.arenas.size(); ++k)
      if (p.arenas[k].id == ar[i]) s.peak[k] = std::max(s.peak[k], off[i] + p.buffers[i].size);
    const auto c = candidates(p.buffers[i]);
    s.spill += static_cast<std::uint64_t>(std::find(c.begin(), c.end(), ar[i]) - c.begin());
  }
  for (Addr x : s.peak) s.total_peak += x;
  for (const auto& pen : p.penalties) {
    const auto i = pen.a, j = pen.b;
    if (ar[i] == ar[j] && off[i] < off[j] + p.buffers[j].size && off[j] < off[i] + p.buffers[i].size)
      s.penalty += pen.weight;
  }
  return s;
}

struct Optimum {
  bool feasible = false;
  Score best;                    ///< least (spill, penalty, total peak)
  std::vector<Addr> least_peak;  ///< per arena, the least peak over every valid placement
  /// per arena, the least peak over the valid placements of least (spill,
  /// penalty): what a lexicographic search may prove
  std::vector<Addr> least_peak_at_best;
};

/// Every placement, by backtracking over arenas and aligned offsets.
Optimum brute_force(const Problem& p) {
  Optimum o;
  const std::size_t n = p.buffers.size();
  o.least_peak.assign(p.arenas.size(), max_addr);
  o.least_peak_at_best.assign(p.arenas.size(), max_addr);
  std::vector<std::pair<std::tuple<std::uint64_t, Weight>, std::vector<Addr>>>
      seen;  // (spill, penalty) -> peaks
  std::vector<Addr> off(n, 0);
  std::vector<std::int64_t> ar(n, 0);
  auto rec = [&](auto& self, std::size_t i) -> void {
    if (i == n) {
      const Score s = score(p, off, ar);
      if (!o.feasible || s.key() < o.best.key()) o.best = s;
      o.feasible = true;
      for (std::size_t k = 0; k < s.peak.size(); ++k) o.least_peak[k] = std::min(o.least_peak[k], s.peak[k]);
      seen.push_back({std::tuple(s.spill, s.penalty), s.peak});
      return;
    }
    for (const auto arena : candidates(p.buffers[i])) {
      const Addr cap = capacity_of(p, arena);
      for (Addr x = 0; x + p.buffers[i].size <= cap; ++x) {
        if (!fits_alone(p, i, x, arena)) continue;
        off[i] = x;
        ar[i] = arena;
        bool ok = true;
        for (std::size_t j = 0; j < i && ok; ++j) ok = !clash(p, i, j, off, ar);
        if (ok) self(self, i + 1);
      }
    }
  };
  rec(rec, 0);
  for (const auto& [key, peaks] : seen)
    if (key == std::tuple(o.best.spill, o.best.penalty))
      for (std::size_t k = 0; k < peaks.size(); ++k)
        o.least_peak_at_best[k] = std::min(o.least_peak_at_best[k], peaks[k]);
  return o;
}

/// A small random structured problem; features switched on at random.
Problem random_problem(std::mt19937_64& rng) {
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  auto chance = [&](int percent) { return pick(0, 99) < percent; };
  Problem p;
  const int arenas = chance(35) ? 2 : 1;
  for (int k = 0; k < arenas; ++k) {
    Arena a;
    a.id = k;
    a.capacity = static_cast<Addr>(pick(6, 14));
    if (chance(15)) a.reserved.push_back({static_cast<Addr>(pick(0, 3)), static_cast<Addr>(pick(4, 5))});
    p.arenas.push_back(a);
  }
  const bool graph = chance(20);
  const int n = pick(2, 5);
  for (int i = 0; i < n; ++i) {
    BufferSpec b;
    b.name = "b" + std::to_string(i);
    b.size = static_cast<Addr>(pick(1, 5));
    b.alignment = chance(25) ? 2 : 1;
    b.arena = pick(0, arenas - 1);
    const Tick s = pick(0, 6);
    b.lifetime = {s, s + pick(1, 5)};
    if (!graph && chance(30)) {  // two pieces with a gap
      const Tick a0 = pick(0, 4), a1 = a0 + pick(1, 2), b0 = a1 + pick(1, 3), b1 = b0 + pick(1, 3);
      b.live = {{a0, a1}, {b0, b1}};
      b.lifetime = {a0, b1};
    }
    if (arenas == 2 && chance(30)) b.candidate_arenas = {b.arena, 1 - b.arena};
    if (b.candidate_arenas.empty() && chance(15)) {
      const Addr a = b.alignment;
      b.pin = Pin{static_cast<Addr>(pick(0, 4)) * a, chance(30)};
    }
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
        if (chance(50)) p.conflict_graph->push_back({static_cast<BufferId>(i), static_cast<BufferId>(j)});
  }
  for (int k = pick(0, 2); k > 0; --k) {
    const int i = pick(0, n - 1);
    p.exclusions.push_back({static_cast<BufferId>(i), static_cast<BufferId>(other(i))});
  }
  if (chance(30)) {
    const int i = pick(0, n - 1);
    p.separations.push_back({static_cast<BufferId>(i), static_cast<BufferId>(other(i))});
  }
  for (int k = pick(0, 2); k > 0; --k) {
    const int i = pick(0, n - 1), j = other(i);
    if (!together(p, static_cast<std::size_t>(i), static_cast<std::size_t>(j)))
      p.penalties.push_back(
          {static_cast<BufferId>(i), static_cast<BufferId>(j), static_cast<Weight>(pick(1, 3))});
  }
  return p;
}

/// The problem as text, for failure messages.
std::string show(const Problem& p) {
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
    for (const auto c : b.candidate_arenas) s += " cand " + std::to_string(c);
    s += "\n";
  }
  for (const auto& x : p.exclusions)
    s += "exclusion " + std::to_string(x.a) + " " + std::to_string(x.b) + "\n";
  for (const auto& x : p.separations)
    s += "separation " + std::to_string(x.a) + " " + std::to_string(x.b) + "\n";
  for (const auto& x : p.penalties)
    s += "penalty " + std::to_string(x.a) + " " + std::to_string(x.b) + " w " + std::to_string(x.weight) +
         "\n";
  if (p.conflict_graph) {
    s += "graph:";
    for (const auto& c : *p.conflict_graph) s += " " + std::to_string(c.a) + "-" + std::to_string(c.b);
    s += "\n";
  }
  return s;
}

int seeds(int base) {
  if (const char* s = std::getenv("PTO_MEM_PROPERTY_SEEDS")) return std::max(1, std::atoi(s) * base / 1500);
  return base;
}

}  // namespace structured_oracle

using namespace structured_oracle;

TEST_CASE("structured problems: plan() is never wrong, against brute force") {
  std::mt19937_64 rng(20261207);
  int checked = 0, feasible = 0, infeasible_proved = 0;
  for (int round = 0; round < seeds(600); ++round) {
    const pto_mem::Problem p = random_problem(rng);
    if (!pto_mem::validate(p).empty()) continue;
    ++checked;
    const Optimum o = brute_force(p);
    feasible += o.feasible;
    for (const auto strategy :
         {pto_mem::Strategy::sequential, pto_mem::Strategy::reuse, pto_mem::Strategy::greedy,
          pto_mem::Strategy::exact, pto_mem::Strategy::portfolio}) {
      pto_mem::PlanOptions opt;
      opt.strategy = strategy;
      opt.goal = pto_mem::Goal::minimise;
      const auto r = pto_mem::plan(p, opt);
      INFO("round " << round << ", strategy " << std::string(pto_mem::to_string(strategy)) << ", status "
                    << std::string(pto_mem::to_string(r.status)) << "\n"
                    << show(p) << pto_mem::test::dump(r.diagnostics));
      REQUIRE_FALSE(pto_mem::is_error(r.status));
      // The sweep's bound holds for every placement; a search's bound, for
      // those of least penalty.
      for (std::size_t k = 0; k < r.lower_bound.size(); ++k)
        if (o.feasible) {
          CHECK(r.max_load_bound[k] <= o.least_peak[k]);
          CHECK(r.lower_bound[k] <= o.least_peak_at_best[k]);
        }
      if (r.status == pto_mem::Status::infeasible) {
        CHECK_FALSE(o.feasible);
        infeasible_proved += strategy == pto_mem::Strategy::exact;
      }
      if (!r.fits()) continue;
      REQUIRE(r.placement);
      const auto& pl = *r.placement;
      std::vector<pto_mem::Addr> off(p.buffers.size());
      std::vector<std::int64_t> ar(p.buffers.size());
      for (std::size_t i = 0; i < p.buffers.size(); ++i) {
        REQUIRE(pl.offsets[i]);
        off[i] = *pl.offsets[i];
        ar[i] = pl.arenas.empty() ? p.buffers[i].arena : pl.arenas[i];
      }
      REQUIRE(valid(p, off, ar));
      REQUIRE(o.feasible);
      const Score s = score(p, off, ar);
      CHECK(s.penalty == r.objective.penalty);
      CHECK(s.spill == r.objective.spill);
      CHECK(s.total_peak == r.objective.total_peak);
      CHECK(o.best.key() <= s.key());
      if (r.status == pto_mem::Status::optimal) CHECK(s.key() == o.best.key());
    }
  }
  MESSAGE("checked " << checked << " problems, " << feasible << " feasible, " << infeasible_proved
                     << " proved infeasible by exact");
  CHECK(checked > seeds(600) / 3);
}

namespace structured_oracle {

std::optional<std::int64_t> statistic(const pto_mem::PlanResult& r, const std::string& key) {
  for (const auto& [k, v] : r.statistics.extra)
    if (k == key) return v;
  return std::nullopt;
}

}  // namespace structured_oracle

TEST_CASE("structured problems: exact and portfolio are complete on every constraint, against brute force") {
  // Every feature at once -- several live intervals, exclusions, shared and
  // exclusive pins, candidate arenas, conflict graphs, separations,
  // penalties. On problems this small the search decides every arena choice
  // within its default limits; it must then say so (structured_complete),
  // fit exactly when a placement exists, prove infeasible exactly when none
  // does, and prove the least objective.
  std::mt19937_64 rng(7);
  int checked = 0, fitted = 0, infeasible = 0, with_choices = 0, with_shared_pins = 0;
  for (int round = 0; round < seeds(500); ++round) {
    const pto_mem::Problem p = random_problem(rng);
    if (!pto_mem::validate(p).empty()) continue;
    ++checked;
    const Optimum o = brute_force(p);
    with_choices += std::any_of(p.buffers.begin(), p.buffers.end(),
                                [](const auto& b) { return b.candidate_arenas.size() > 1; });
    with_shared_pins += std::any_of(p.buffers.begin(), p.buffers.end(),
                                    [](const auto& b) { return b.pin && !b.pin->exclusive; });
    for (const auto strategy : {pto_mem::Strategy::exact, pto_mem::Strategy::portfolio}) {
      pto_mem::PlanOptions opt;
      opt.strategy = strategy;
      opt.goal = pto_mem::Goal::minimise;
      const auto r = pto_mem::plan(p, opt);
      INFO("round " << round << ", strategy " << std::string(pto_mem::to_string(strategy)) << ", status "
                    << std::string(pto_mem::to_string(r.status)) << "\n"
                    << show(p) << pto_mem::test::dump(r.diagnostics));
      REQUIRE_FALSE(pto_mem::is_error(r.status));
      CHECK(r.fits() == o.feasible);
      if (!o.feasible) {
        CHECK(r.status == pto_mem::Status::infeasible);
        continue;
      }
      // Proved before any search (the bound reached, spill 0), or by the complete search.
      if (r.status != pto_mem::Status::optimal) CHECK(statistic(r, "structured_complete") == 1);
      CHECK(r.status == pto_mem::Status::optimal);
      CHECK(r.proved.penalty);
      CHECK(r.objective.spill == o.best.spill);
      CHECK(r.objective.penalty == o.best.penalty);
      CHECK(r.objective.total_peak == o.best.total_peak);
    }
    fitted += o.feasible;
    infeasible += !o.feasible;
  }
  MESSAGE("checked " << checked << " problems: " << fitted << " fit, " << infeasible << " infeasible, "
                     << with_choices << " with arena choices, " << with_shared_pins << " with shared pins");
  CHECK(checked > seeds(500) / 3);
  CHECK(with_choices > checked / 10);
  CHECK(with_shared_pins > checked / 20);
  CHECK(infeasible > 0);
}

TEST_CASE("structured problems: the validator agrees with the oracle on random placements") {
  std::mt19937_64 rng(11);
  int agreed_valid = 0, checked = 0;
  for (int round = 0; round < seeds(3000); ++round) {
    const pto_mem::Problem p = random_problem(rng);
    if (!pto_mem::validate(p).empty()) continue;
    pto_mem::Placement pl;
    std::vector<pto_mem::Addr> off;
    std::vector<std::int64_t> ar;
    for (const auto& b : p.buffers) {
      const auto c = candidates(b);
      const auto arena = c[std::uniform_int_distribution<std::size_t>(0, c.size() - 1)(rng)];
      const pto_mem::Addr x =
          b.pin && round % 2 == 0 ? b.pin->offset : std::uniform_int_distribution<pto_mem::Addr>(0, 10)(rng);
      off.push_back(x);
      ar.push_back(arena);
      pl.offsets.push_back(x);
    }
    pl.arenas = ar;
    const bool oracle = valid(p, off, ar);
    const auto d = pto_mem::validate(p, pl);
    INFO("round " << round << "\n" << show(p) << pto_mem::test::dump(d));
    CHECK(d.empty() == oracle);
    ++checked;
    agreed_valid += oracle;
  }
  CHECK(agreed_valid > 0);
  CHECK(checked > seeds(3000) / 3);
}
