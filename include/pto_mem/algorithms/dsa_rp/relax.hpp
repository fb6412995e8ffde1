// Problem transforms of the hard-then-relaxed driver:
// which separations only carry pipeline intent, how they become unit
// penalties, and how many of them a placement ended up overlapping.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "pto_mem/core/placement.hpp"
#include "pto_mem/core/problem.hpp"

namespace pto_mem {

/// An unordered pair of buffers.
using BufferPair = std::pair<BufferId, BufferId>;

namespace detail {

/// The label order of a problem's buffers (id_ranks), ties by position; a
/// BufferId past the end sorts after every buffer, by value.
class IdLess {
 public:
  explicit IdLess(const Problem& p) : rank_(id_ranks(p)) {}
  bool operator()(BufferId a, BufferId b) const { return key(a) < key(b); }
  BufferPair canonical(BufferId a, BufferId b) const {
    return (*this)(b, a) ? BufferPair{b, a} : BufferPair{a, b};
  }
  bool operator()(const BufferPair& x, const BufferPair& y) const {
    if ((*this)(x.first, y.first)) return true;
    if ((*this)(y.first, x.first)) return false;
    return (*this)(x.second, y.second);
  }

 private:
  std::pair<std::uint64_t, BufferId> key(BufferId b) const {
    return {b < rank_.size() ? rank_[b] : std::uint64_t{1} << 32, b};
  }
  std::vector<std::uint32_t> rank_;
};

}  // namespace detail

/// The separations a bounded search may relax: pairs whose every separation
/// carries exactly the pipeline-stage reason and whose lifetimes do not
/// interfere (a co-live pair stays hard anyway). Ascending in label order,
/// each pair once. Unknown or cross-arena pairs are skipped.
[[nodiscard]] inline std::vector<BufferPair> pipeline_pairs(const Problem& p) {
  // Most problems have no pipeline-only separation at all: skip the id-ordered map.
  if (std::none_of(p.separations.begin(), p.separations.end(),
                   [](const Separation& s) { return s.reasons == reason_pipeline_stage; }))
    return {};
  const ProblemIndex index(p);
  const detail::IdLess less(p);
  std::map<BufferPair, bool, detail::IdLess> relaxable(less);
  for (const auto& s : p.separations) {
    const auto a = index.buffer(s.a), b = index.buffer(s.b);
    if (!a || !b || *a == *b) continue;
    const auto& ba = p.buffers[*a];
    const auto& bb = p.buffers[*b];
    const bool ok =
        s.reasons == reason_pipeline_stage && ba.arena == bb.arena && !interferes(ba.lifetime, bb.lifetime);
    auto [it, fresh] = relaxable.try_emplace(less.canonical(s.a, s.b), ok);
    if (!fresh) it->second = it->second && ok;
  }
  std::vector<BufferPair> out;
  for (const auto& [pair, ok] : relaxable)
    if (ok) out.push_back(pair);
  return out;
}

/// Removes every separation on a selected pair (duplicates
/// included), adds `weight` to each selected pair whose buffers are known and
/// not co-live, and rewrites the penalty list as one aggregate per pair in
/// ascending label order, zero totals dropped (saturating sums).
/// Arenas and buffers are unchanged; pass same-arena pairs only.
[[nodiscard]] inline Problem relax_separations_to_penalties(const Problem& p,
                                                            const std::vector<BufferPair>& pairs,
                                                            Weight weight) {
  const ProblemIndex index(p);
  const detail::IdLess less(p);
  std::set<BufferPair, detail::IdLess> selected(less);
  for (const auto& [a, b] : pairs) selected.insert(less.canonical(a, b));

  Problem out = p;
  out.separations.clear();
  for (const auto& s : p.separations)
    if (!selected.contains(less.canonical(s.a, s.b))) out.separations.push_back(s);

  std::map<BufferPair, Weight, detail::IdLess> total(less);
  for (const auto& pen : p.penalties) {
    auto& w = total[less.canonical(pen.a, pen.b)];
    w = saturating_add(w, pen.weight);
  }
  for (const auto& pair : selected) {
    const auto a = index.buffer(pair.first), b = index.buffer(pair.second);
    if (!a || !b || interferes(p.buffers[*a].lifetime, p.buffers[*b].lifetime)) continue;
    auto& w = total[pair];
    w = saturating_add(w, weight);
  }
  out.penalties.clear();
  for (const auto& [pair, w] : total)
    if (w != 0) out.penalties.push_back({pair.first, pair.second, w});
  return out;
}

/// How many entries of `pairs` (duplicates counted) name two
/// known, placed buffers of one arena whose bytes overlap. Lifetimes are not
/// consulted.
[[nodiscard]] inline std::size_t count_overlapping_pairs(const Problem& p, const Placement& pl,
                                                         const std::vector<BufferPair>& pairs) {
  const ProblemIndex index(p);
  auto range = [&](std::size_t i) -> std::optional<AddrRange> {
    if (i >= pl.offsets.size() || !pl.offsets[i]) return std::nullopt;
    const auto end = checked_add(*pl.offsets[i], p.buffers[i].size);
    if (!end) return std::nullopt;
    return AddrRange{*pl.offsets[i], *end};
  };
  std::size_t count = 0;
  for (const auto& [a, b] : pairs) {
    const auto ia = index.buffer(a), ib = index.buffer(b);
    if (!ia || !ib || p.buffers[*ia].arena != p.buffers[*ib].arena) continue;
    const auto ra = range(*ia), rb = range(*ib);
    if (ra && rb && overlaps(*ra, *rb)) ++count;
  }
  return count;
}

}  // namespace pto_mem
