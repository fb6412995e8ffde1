// The check DSA-RP runs on every placement it considers (upstream's
// ValidateSolution after each order), on the dense model and by
// a sweep over time (analysis/lifetime_sweep.hpp), so it costs O(n log n) instead of upstream's all-pairs
// scan. It shares nothing with the placer but the search space. The placement
// the solver returns is checked once more by the full validator.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <optional>
#include <queue>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "pto_mem/algorithms/dsa_rp/search_space.hpp"
#include "pto_mem/analysis/lifetime_sweep.hpp"

namespace pto_mem::dsa {

class PlacementCheck {
 public:
  explicit PlacementCheck(const SearchSpace& s) : s_(s), sweep_(s.n) {
    std::vector<std::tuple<std::uint32_t, Tick, std::uint32_t>> keys(
        s.n);  // sorting copied keys is cache-friendly
    for (std::uint32_t i = 0; i < s.n; ++i) keys[i] = {s.arena[i], s.begin[i], i};
    std::sort(keys.begin(), keys.end());
    for (std::size_t k = 0; k < s.n; ++k) sweep_[k] = std::get<2>(keys[k]);
  }

  /// The first broken invariant of a complete placement, in words, or nullopt.
  [[nodiscard]] std::optional<std::string> first_conflict(const std::vector<Addr>& offset) const {
    auto name = [](std::uint32_t i) { return "buffer #" + std::to_string(i); };
    for (std::uint32_t i = 0; i < s_.n; ++i) {
      const Addr o = offset[i], size = s_.size[i], cap = s_.capacity[s_.arena[i]];
      if (o % s_.alignment[i] != 0) return name(i) + " is misaligned";
      if (size > cap || o > cap - size) return name(i) + " exceeds its arena's capacity";
      for (const auto& r : s_.reserved[s_.arena[i]])
        if (overlaps(AddrRange{o, o + size}, r)) return name(i) + " overlaps a reserved window";
      for (auto [b, e] = s_.separated.of(i); b != e; ++b)
        if (overlaps(range(offset, i), range(offset, *b))) return name(i) + " overlaps a separated buffer";
    }
    // Co-live buffers of one arena: the live set stays pairwise disjoint (or
    // we stop), so a newcomer overlaps some member iff it overlaps its
    // neighbour by offset on either side.
    using Live = std::set<std::pair<Addr, std::uint32_t>>;
    Live live;
    std::vector<Live::iterator> in_live(s_.n);  // to erase without a search
    LiveSweep<std::uint32_t> sweep;
    std::optional<std::uint32_t> arena;
    for (std::uint32_t i : sweep_) {
      if (arena != s_.arena[i]) {
        live.clear();
        sweep.clear();
        arena = s_.arena[i];
      }
      sweep.leave_until(s_.begin[i], [&](std::uint32_t j) { live.erase(in_live[j]); });
      auto next = live.lower_bound({offset[i], 0});
      if (next != live.end() && overlaps(range(offset, i), range(offset, next->second)))
        return name(i) + " and " + name(next->second) + " are live together and overlap";
      if (next != live.begin() && overlaps(range(offset, i), range(offset, std::prev(next)->second)))
        return name(i) + " and " + name(std::prev(next)->second) + " are live together and overlap";
      in_live[i] = live.insert({offset[i], i}).first;
      sweep.enter(s_.end[i], i);
    }
    return std::nullopt;
  }

 private:
  [[nodiscard]] AddrRange range(const std::vector<Addr>& offset, std::uint32_t i) const {
    return {offset[i], offset[i] + s_.size[i]};
  }

  const SearchSpace& s_;
  std::vector<std::uint32_t> sweep_;
};

}  // namespace pto_mem::dsa
