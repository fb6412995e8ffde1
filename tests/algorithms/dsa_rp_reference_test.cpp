// Differential tests: the library's canonical greedy against a plain,
// obviously-correct O(n^2) transcription of the DSA-RP greedy's rules (all-pairs conflict
// table, full candidate lists, upstream's scan) over thousands of random
// problems. Every status, offset, objective and statistic must agree in compat
// mode; fast mode must agree unless it found something strictly better.
#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <map>
#include <numeric>
#include <random>
#include <set>

#include "pto_mem/algorithms/dsa_rp.hpp"
#include "pto_mem/algorithms/dsa_rp/canonical_greedy.hpp"
#include "pto_mem/algorithms/dsa_rp/paired_shuffle.hpp"
#include "pto_mem/algorithms/dsa_rp/relax.hpp"
#include "pto_mem/algorithms/validator.hpp"
#include "test_support.hpp"

using namespace pto_mem;
using pto_mem::test::dump;

namespace {

// ---------------------------------------------------------------------------
// The reference: the greedy's rules written out literally.
struct Reference {
  Status status = Status::invalid_input;
  std::vector<Addr> offsets;
  Weight penalty = 0;
  Addr total = 0, max = 0;
  std::uint64_t candidates = 0, orders = 0, selected = 0;
  bool ff_feasible = false, ff_selected = false;
};

bool ranges_overlap(Addr o1, Addr s1, Addr o2, Addr s2) {
  if (s1 == 0 || s2 == 0) return false;
  if (o1 > max_addr - s1 || o2 > max_addr - s2) return false;
  return o1 < o2 + s2 && o2 < o1 + s1;
}

Reference reference(const Problem& p, std::uint64_t seed, std::size_t restarts) {
  Reference out;
  if (has_errors(validate(p))) return out;
  const std::size_t n = p.buffers.size();
  std::vector<std::size_t> pool(n);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t k = 0; k < p.arenas.size(); ++k)
      if (p.arenas[k].id == p.buffers[i].arena) pool[i] = k;
  const auto rank = id_ranks(p);
  auto live_together = [&](std::size_t i, std::size_t j) {
    return p.buffers[i].lifetime.begin < p.buffers[j].lifetime.end &&
           p.buffers[j].lifetime.begin < p.buffers[i].lifetime.end;
  };
  std::vector<std::set<std::size_t>> hard(n);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < n; ++j)
      if (i != j && pool[i] == pool[j] && live_together(i, j)) hard[i].insert(j);
  for (const auto& s : p.separations) {
    hard[s.a].insert(s.b);
    hard[s.b].insert(s.a);
  }
  std::map<std::pair<std::size_t, std::size_t>, Weight> soft_pairs;
  for (const auto& pen : p.penalties) {
    const std::size_t a = pen.a, b = pen.b;
    if (pen.weight == 0 || hard[a].count(b)) continue;
    auto& w = soft_pairs[{std::min(a, b), std::max(a, b)}];
    w = saturating_add(w, pen.weight);
  }
  std::vector<std::vector<std::pair<std::size_t, Weight>>> soft(n);
  std::vector<Weight> incident(n, 0);
  for (const auto& [ab, w] : soft_pairs) {
    soft[ab.first].push_back({ab.second, w});
    soft[ab.second].push_back({ab.first, w});
    incident[ab.first] = saturating_add(incident[ab.first], w);
    incident[ab.second] = saturating_add(incident[ab.second], w);
  }
  const auto& B = p.buffers;
  std::vector<std::size_t> o1(n), o2(n), o3(n);
  std::iota(o1.begin(), o1.end(), 0);
  o2 = o3 = o1;
  std::sort(o1.begin(), o1.end(), [&](auto a, auto b) {
    return std::tuple(~B[a].size, B[a].lifetime.begin, rank[a]) <
           std::tuple(~B[b].size, B[b].lifetime.begin, rank[b]);
  });
  std::sort(o2.begin(), o2.end(), [&](auto a, auto b) {
    return std::pair(B[a].lifetime.begin, rank[a]) < std::pair(B[b].lifetime.begin, rank[b]);
  });
  std::sort(o3.begin(), o3.end(), [&](auto a, auto b) {
    return std::tuple(~incident[a], ~B[a].size, rank[a]) < std::tuple(~incident[b], ~B[b].size, rank[b]);
  });
  std::vector<std::vector<std::size_t>> all{o1, o2, o3};
  std::mt19937_64 engine(seed);
  auto working = o3;
  for (std::size_t r = 0; r < restarts; ++r) {
    paired_shuffle(working, engine);
    all.push_back(working);
  }
  std::vector<std::vector<std::size_t>> orders;
  for (auto& o : all)
    if (std::find(orders.begin(), orders.end(), o) == orders.end()) orders.push_back(o);

  auto up = [](Addr x, Addr a) -> std::optional<Addr> {
    const Addr r = x % a;
    if (r == 0) return x;
    if (x > max_addr - (a - r)) return std::nullopt;
    return x + (a - r);
  };
  auto fits = [&](Addr c, std::size_t i) {
    return c <= max_addr - B[i].size && c + B[i].size <= p.arenas[pool[i]].capacity;
  };

  // First fit.
  std::optional<std::vector<Addr>> best;
  Weight best_pen = 0;
  Addr best_total = 0, best_max = 0;
  auto objective = [&](const std::vector<Addr>& off, Weight& pen, Addr& total, Addr& mx) {
    std::vector<Addr> peak(p.arenas.size(), 0);
    for (std::size_t k = 0; k < p.arenas.size(); ++k)
      for (const auto& r : p.arenas[k].reserved) peak[k] = std::max(peak[k], r.end);
    for (std::size_t i = 0; i < n; ++i) peak[pool[i]] = std::max(peak[pool[i]], off[i] + B[i].size);
    total = mx = pen = 0;
    for (auto x : peak) total = saturating_add(total, x), mx = std::max(mx, x);
    for (const auto& e : p.penalties) {
      const std::size_t a = e.a, b = e.b;
      if (pool[a] != pool[b] || live_together(a, b)) continue;
      if (ranges_overlap(off[a], B[a].size, off[b], B[b].size)) pen = saturating_add(pen, e.weight);
    }
  };
  {
    std::vector<Addr> off(n, 0);
    std::vector<bool> placed(n, false);
    bool ok = true;
    for (auto i : o1) {
      std::vector<AddrRange> blocked(p.arenas[pool[i]].reserved);
      for (auto j : hard[i])
        if (placed[j] && pool[j] == pool[i] && off[j] <= max_addr - B[j].size)
          blocked.push_back({off[j], off[j] + B[j].size});
      std::sort(blocked.begin(), blocked.end());
      std::optional<Addr> c = 0;
      for (const auto& r : blocked) {
        if (r.end <= *c) continue;
        if (*c > max_addr - B[i].size) {
          c.reset();
          break;
        }
        if (r.begin >= *c + B[i].size) break;
        c = up(r.end, B[i].alignment);
        if (!c) break;
      }
      if (!c || !fits(*c, i)) {
        ok = false;
        break;
      }
      off[i] = *c;
      placed[i] = true;
    }
    if (ok) {
      best = off;
      objective(off, best_pen, best_total, best_max);
      out.ff_feasible = out.ff_selected = true;
    }
  }

  // The orders, scanning every candidate.
  for (std::size_t k = 0; k < orders.size(); ++k) {
    ++out.orders;
    std::vector<Addr> off(n, 0);
    std::vector<bool> placed(n, false);
    bool ok = true;
    for (auto i : orders[k]) {
      std::set<Addr> cand{0};
      for (const auto& r : p.arenas[pool[i]].reserved)
        if (auto v = up(r.end, B[i].alignment)) cand.insert(*v);
      auto top = [&](std::size_t j) {
        if (placed[j] && pool[j] == pool[i] && off[j] <= max_addr - B[j].size)
          if (auto v = up(off[j] + B[j].size, B[i].alignment)) cand.insert(*v);
      };
      for (auto j : hard[i]) top(j);
      for (auto [j, w] : soft[i]) top(j);
      std::optional<std::pair<Weight, Addr>> pick;
      for (Addr c : cand) {
        ++out.candidates;
        if (!fits(c, i)) continue;
        bool blocked = false;
        for (const auto& r : p.arenas[pool[i]].reserved)
          blocked |= ranges_overlap(c, B[i].size, r.begin, r.end - r.begin);
        for (auto j : hard[i])
          if (placed[j] && pool[j] == pool[i]) blocked |= ranges_overlap(c, B[i].size, off[j], B[j].size);
        if (blocked) continue;
        Weight cost = 0;
        for (auto [j, w] : soft[i])
          if (placed[j] && ranges_overlap(c, B[i].size, off[j], B[j].size)) cost += w;
        if (!pick || std::pair(cost, c) < *pick) pick = std::pair(cost, c);
      }
      if (!pick) {
        ok = false;
        break;
      }
      off[i] = pick->second;
      placed[i] = true;
    }
    if (!ok) continue;
    Weight pen;
    Addr total, mx;
    objective(off, pen, total, mx);
    if (!best || std::tuple(pen, total, mx) < std::tuple(best_pen, best_total, best_max)) {
      best = off;
      best_pen = pen, best_total = total, best_max = mx;
      out.selected = k;
      out.ff_selected = false;
    }
  }
  if (!best) {
    out.status = Status::no_fit;
    return out;
  }
  out.status = Status::feasible;
  out.offsets = *best;
  out.penalty = best_pen, out.total = best_total, out.max = best_max;
  return out;
}

// ---------------------------------------------------------------------------
// Random problems: several arenas, reserved windows, odd alignments, tight
// capacities, separations with reasons, penalties, overflow edges, named ids.
Problem random_problem(std::mt19937_64& g) {
  auto pick = [&](std::uint64_t n) { return uniform_below(g, n); };
  Problem p;
  const std::size_t arenas = 1 + pick(3);
  const bool huge = pick(20) == 0;  // addresses near 2^64
  for (std::size_t k = 0; k < arenas; ++k) {
    Arena a;
    a.id = static_cast<std::int64_t>(k * 3 + pick(3));
    if (std::any_of(p.arenas.begin(), p.arenas.end(), [&](const Arena& x) { return x.id == a.id; }))
      a.id = 100 + k;
    a.capacity = huge ? max_addr - pick(64) : 24 + pick(400);
    for (std::size_t r = pick(4) == 0 ? 1 + pick(2) : 0; r > 0; --r) {
      const Addr b = huge ? max_addr / 2 + pick(1000) : pick(a.capacity / 2);
      a.reserved.push_back({b, std::min<Addr>(a.capacity, b + 1 + pick(40))});
    }
    p.arenas.push_back(std::move(a));
  }
  const std::size_t n = pick(5) == 0 ? pick(4) : 2 + pick(pick(4) == 0 ? 60 : 25);
  const bool named = pick(4) == 0;
  std::vector<std::size_t> ids(n);
  std::iota(ids.begin(), ids.end(), 0);
  paired_shuffle(ids, g);
  const Tick horizon = 2 + static_cast<Tick>(pick(30));
  for (std::size_t i = 0; i < n; ++i) {
    BufferSpec b;
    b.name =
        named ? "t" + std::to_string(ids[i]) : std::to_string(ids[i] * (1 + pick(2)) + (pick(2) ? 0 : n));
    static const Addr aligns[] = {1, 1, 2, 3, 4, 5, 7, 8, 16, 32, 64};
    b.alignment = aligns[pick(std::size(aligns))];
    b.size = huge && pick(3) == 0 ? max_addr / 4 + pick(100) : 1 + pick(pick(3) == 0 ? 120 : 40);
    b.arena = p.arenas[pick(arenas)].id;
    b.lifetime.begin = static_cast<Tick>(pick(static_cast<std::uint64_t>(horizon)));
    b.lifetime.end = b.lifetime.begin + 1 + static_cast<Tick>(pick(1 + pick(12)));
    p.buffers.push_back(std::move(b));
  }
  // Names must be unique: make repeats unique by suffixing their position.
  std::set<std::string> seen;
  for (std::size_t i = 0; i < n; ++i)
    if (!seen.insert(p.buffers[i].name).second) {
      p.buffers[i].name = named ? "u" + std::to_string(i) : std::to_string(1000 + i);
      seen.insert(p.buffers[i].name);
    }
  auto co_live = [&](std::size_t i, std::size_t j) {
    return p.buffers[i].lifetime.begin < p.buffers[j].lifetime.end &&
           p.buffers[j].lifetime.begin < p.buffers[i].lifetime.end;
  };
  if (n >= 2) {
    for (std::size_t s = pick(4) == 0 ? 0 : pick(n); s > 0; --s) {
      const auto a = pick(n), b = pick(n);
      if (a == b || p.buffers[a].arena != p.buffers[b].arena) continue;
      static const std::uint8_t reasons[] = {reason_explicit, reason_pipeline_stage, reason_pipeline_stage,
                                             reason_semantic_no_alias,
                                             reason_pipeline_stage | reason_target_hazard};
      p.separations.push_back(
          {static_cast<BufferId>(a), static_cast<BufferId>(b), reasons[pick(std::size(reasons))]});
    }
    for (std::size_t s = pick(3) == 0 ? 0 : pick(2 * n); s > 0; --s) {
      const auto a = pick(n), b = pick(n);
      if (a == b || p.buffers[a].arena != p.buffers[b].arena || co_live(a, b)) continue;
      p.penalties.push_back({static_cast<BufferId>(a), static_cast<BufferId>(b),
                             pick(5) == 0 ? 0 : 1 + pick(pick(2) ? 3 : 1000)});
    }
  }
  if (pick(40) == 0 && !p.buffers.empty()) p.buffers[0].size = 0;  // an invalid problem now and then
  return p;
}

std::vector<Addr> offsets_of(const GreedyResult& r) {
  std::vector<Addr> out;
  for (const auto& o : r.placement->offsets) out.push_back(*o);
  return out;
}

}  // namespace

TEST_CASE("compat mode equals the literal transcription of the rules on random problems") {
  std::mt19937_64 g(20260821);
  std::size_t feasible = 0, no_fit = 0, invalid = 0, restart_won = 0;
  for (int t = 0; t < 1500; ++t) {
    const Problem p = random_problem(g);
    const std::uint64_t seed = uniform_below(g, 4) == 0 ? uniform_below(g, 1000) : 0;
    const std::size_t restarts = uniform_below(g, 4) == 0 ? uniform_below(g, 8) : 4;
    CAPTURE(t);
    const Reference want = reference(p, seed, restarts);
    // The tree's leaf size must not matter: 0 puts every lifetime end on a
    // leaf boundary (pure tree), 2 mixes tree and raw buckets, 32 (the
    // default) keeps small problems in raw buckets.
    GreedyOptions options{seed, restarts, true};
    options.bucket_events = std::array<std::uint32_t, 3>{0, 2, 32}[t % 3];
    if (t % 5 == 0) {  // parallel passes reduce in order: nothing may change
      options.threads = 3;
      options.parallel_from = 0;
    }
    const GreedyResult got = canonical_greedy(p, options);
    REQUIRE(got.status == want.status);
    if (want.status == Status::invalid_input) {
      ++invalid;
      continue;
    }
    CHECK(got.statistics.candidates_evaluated == want.candidates);
    CHECK(got.statistics.orders_evaluated == want.orders);
    CHECK(got.statistics.first_fit_feasible == want.ff_feasible);
    if (want.status == Status::no_fit) {
      ++no_fit;
      CHECK_FALSE(got.placement);
      continue;
    }
    ++feasible;
    if (!want.ff_selected && want.selected >= 3) ++restart_won;
    REQUIRE(got.placement);
    CHECK(offsets_of(got) == want.offsets);
    CHECK(got.objective.penalty == want.penalty);
    CHECK(got.objective.total_peak == want.total);
    CHECK(got.objective.max_peak == want.max);
    CHECK(got.statistics.selected_first_fit == want.ff_selected);
    CHECK(got.statistics.selected_order == want.selected);
    const auto bad = validate(p, *got.placement);
    INFO(dump(bad));
    CHECK(bad.empty());
  }
  MESSAGE("feasible " << feasible << ", no fit " << no_fit << ", invalid " << invalid << ", won by a restart "
                      << restart_won);
  CHECK(feasible > 500);
  CHECK(no_fit > 100);
  CHECK(restart_won > 10);
}

TEST_CASE("fast mode places like compat mode unless it finds a strictly better placement") {
  std::mt19937_64 g(77);
  std::size_t improved = 0, rescued = 0;
  for (int t = 0; t < 700; ++t) {
    const Problem p = random_problem(g);
    CAPTURE(t);
    const auto compat = canonical_greedy(p, GreedyOptions{0, 4, true});
    GreedyOptions fast_options{0, 4, false};
    fast_options.bucket_events = t % 2 == 0 ? 1 : 32;
    const auto fast = canonical_greedy(p, fast_options);
    if (compat.status == Status::invalid_input) {
      CHECK(fast.status == Status::invalid_input);
      continue;
    }
    CHECK(fast.statistics.first_fit_feasible == compat.statistics.first_fit_feasible);
    CHECK(fast.statistics.orders_evaluated >= compat.statistics.orders_evaluated);
    if (fast.placement) {
      const auto bad = validate(p, *fast.placement);
      INFO(dump(bad));
      CHECK(bad.empty());
    }
    if (!compat.placement) {
      if (fast.placement) ++rescued;
      continue;
    }
    REQUIRE(fast.placement);
    CHECK_FALSE(compat.objective < fast.objective);
    if (fast.objective < compat.objective) {
      ++improved;
      CHECK(fast.statistics.selected_order >= compat.statistics.orders_evaluated);
    } else {
      CHECK(offsets_of(fast) == offsets_of(compat));
      CHECK(fast.statistics.selected_order == compat.statistics.selected_order);
      CHECK(fast.statistics.selected_first_fit == compat.statistics.selected_first_fit);
    }
    // Deterministic: the same input gives the same output, on any number
    // of worker threads.
    GreedyOptions threaded = fast_options;
    threaded.threads = 1 + t % 4;
    threaded.parallel_from = 0;
    const auto again = canonical_greedy(p, threaded);
    CHECK(offsets_of(again) == offsets_of(fast));
    CHECK(again.statistics.candidates_evaluated == fast.statistics.candidates_evaluated);
    CHECK(again.statistics.selected_order == fast.statistics.selected_order);
  }
  MESSAGE("fast mode strictly better on " << improved << " problems, found a fit where compat did not on "
                                          << rescued);
}

TEST_CASE("relaxation and pair counting follow the rules on random problems") {
  std::mt19937_64 g(4242);
  for (int t = 0; t < 600; ++t) {
    const Problem p = random_problem(g);
    if (has_errors(validate(p))) continue;
    CAPTURE(t);
    // A random selection of same-arena pairs, some separated, some duplicated.
    std::vector<BufferPair> pairs;
    for (const auto& s : p.separations)
      if (uniform_below(g, 2) == 0)
        pairs.push_back(uniform_below(g, 2) ? BufferPair{s.a, s.b} : BufferPair{s.b, s.a});
    if (!pairs.empty() && uniform_below(g, 3) == 0) pairs.push_back(pairs.front());
    const Weight w = 1 + uniform_below(g, 3);
    const Problem r = relax_separations_to_penalties(p, pairs, w);
    CHECK(r.buffers.size() == p.buffers.size());
    CHECK(r.arenas.size() == p.arenas.size());
    auto key = [](BufferId a, BufferId b) { return std::set<BufferId>{a, b}; };
    std::set<std::set<BufferId>> selected;
    for (const auto& [a, b] : pairs) selected.insert(key(a, b));
    // Unselected separations survive in order; selected ones all disappear.
    std::vector<Separation> kept;
    for (const auto& s : p.separations)
      if (!selected.count(key(s.a, s.b))) kept.push_back(s);
    REQUIRE(r.separations.size() == kept.size());
    for (std::size_t k = 0; k < kept.size(); ++k) {
      CHECK(r.separations[k].a == kept[k].a);
      CHECK(r.separations[k].b == kept[k].b);
    }
    // Penalties: one aggregate per pair, min id first, ascending, no zeros.
    std::map<std::set<BufferId>, Weight> want;
    for (const auto& pen : p.penalties) want[key(pen.a, pen.b)] += pen.weight;
    for (const auto& pr : selected) {
      const BufferId a = *pr.begin(), b = *pr.rbegin();
      if (!interferes(p.buffers[a].lifetime, p.buffers[b].lifetime)) want[pr] += w;
    }
    std::erase_if(want, [](const auto& e) { return e.second == 0; });
    REQUIRE(r.penalties.size() == want.size());
    const auto rank = id_ranks(p);
    for (std::size_t k = 0; k < r.penalties.size(); ++k) {
      const auto& pen = r.penalties[k];
      CHECK(pen.weight == want[key(pen.a, pen.b)]);
      CHECK(rank[pen.a] < rank[pen.b]);
      if (k > 0) {
        const auto& prev = r.penalties[k - 1];
        CHECK(std::pair(rank[prev.a], rank[prev.b]) < std::pair(rank[pen.a], rank[pen.b]));
      }
    }
    CHECK_FALSE(has_errors(validate(r)));
    // count_overlapping_pairs against brute force on a placement of r.
    const auto solved = canonical_greedy(r, GreedyOptions{});
    if (!solved.placement) continue;
    std::size_t overlapping = 0;
    for (const auto& [ia, ib] : pairs) {
      const Addr oa = *solved.placement->offsets[ia], ob = *solved.placement->offsets[ib];
      if (p.buffers[ia].arena == p.buffers[ib].arena &&
          ranges_overlap(oa, p.buffers[ia].size, ob, p.buffers[ib].size))
        ++overlapping;
    }
    CHECK(count_overlapping_pairs(p, *solved.placement, pairs) == overlapping);
  }
}

TEST_CASE("the driver relaxes exactly the pipeline-only, lifetime-compatible pairs") {
  std::mt19937_64 g(99);
  std::size_t relaxed = 0, hinted = 0;
  for (int t = 0; t < 400; ++t) {
    const Problem p = random_problem(g);
    if (has_errors(validate(p))) continue;
    CAPTURE(t);
    const auto pairs = pipeline_pairs(p);
    for (const auto& [a, b] : pairs) {
      CHECK_FALSE(interferes(p.buffers[a].lifetime, p.buffers[b].lifetime));
      for (const auto& s : p.separations)
        if ((s.a == a && s.b == b) || (s.a == b && s.b == a)) CHECK(s.reasons == reason_pipeline_stage);
    }
    const auto d = plan_dsa_rp(p, GreedyOptions{0, 4, false});
    const auto strict = canonical_greedy(p, GreedyOptions{0, 4, false});
    CHECK(d.relaxed.has_value() == (strict.status == Status::no_fit && !pairs.empty()));
    if (d.relaxed) ++relaxed;
    if (!d.greedy.placement) {
      CHECK(d.greedy.status == Status::no_fit);
      CHECK(pto_mem::test::mentions(d.greedy.diagnostics, "does not prove"));
      continue;
    }
    const auto bad = validate(d.solved(p), *d.greedy.placement);
    INFO(dump(bad));
    CHECK(bad.empty());
    const bool hint = std::any_of(d.greedy.diagnostics.begin(), d.greedy.diagnostics.end(),
                                  [](const Diagnostic& x) { return x.code == "PH-DSA-001"; });
    CHECK(hint == (d.overlapping_pairs > 0));
    CHECK(d.overlapping_pairs == count_overlapping_pairs(p, *d.greedy.placement, pairs));
    if (!d.relaxed) CHECK(d.overlapping_pairs == 0);
    hinted += hint;
  }
  MESSAGE("relaxed " << relaxed << ", PH-DSA-001 on " << hinted);
  CHECK(relaxed > 10);
  CHECK(hinted > 0);
}
