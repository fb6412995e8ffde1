// A set of bytes kept as its fewest ranges: sorted, disjoint and not
// touching, so "the first range that ends after x" is one search and a walk
// forward from it passes only taken bytes. The occupancy tree's node sets,
// the canonical placer's reserved windows and separated neighbours are
// RangeUnions. Hand-written rather than boost::icl::interval_set:
// bench/range_union_bench.cpp keeps the measurement.
#pragma once

#include <algorithm>
#include <cstddef>
#include <vector>

#include "pto_mem/core/numeric.hpp"

namespace pto_mem::dsa {

/// Disjoint, non-touching byte ranges in ascending order.
class RangeUnion {
 public:
  [[nodiscard]] bool empty() const noexcept { return ranges_.empty(); }
  [[nodiscard]] std::size_t size() const noexcept { return ranges_.size(); }
  [[nodiscard]] const AddrRange& operator[](std::size_t k) const noexcept { return ranges_[k]; }
  [[nodiscard]] const AddrRange* data() const noexcept { return ranges_.data(); }
  void clear() noexcept { ranges_.clear(); }

  /// Adds [r.begin, r.end), merging with every range it overlaps or touches.
  void add(AddrRange r) {
    auto first = std::lower_bound(ranges_.begin(), ranges_.end(), r.begin,
                                  [](const AddrRange& x, Addr v) { return x.end < v; });
    if (first != ranges_.end() && first->begin <= r.begin && r.end <= first->end) return;  // already covered
    auto last = first;
    while (last != ranges_.end() && last->begin <= r.end) {
      r.begin = std::min(r.begin, last->begin);
      r.end = std::max(r.end, last->end);
      ++last;
    }
    if (first == last) {
      ranges_.insert(first, r);
    } else {
      *first = r;
      ranges_.erase(first + 1, last);
    }
  }

  /// Replaces the contents with the union of `ranges` (which it sorts).
  void assign_union(std::vector<AddrRange>& ranges) {
    std::sort(ranges.begin(), ranges.end());
    assign_sorted_union(ranges);
  }

  /// The same for `ranges` already sorted by begin.
  void assign_sorted_union(const std::vector<AddrRange>& ranges) {
    ranges_.clear();
    for (const auto& r : ranges) append_sorted(r);
  }

  /// Adds a range that begins at or after every range added so far.
  void append_sorted(AddrRange r) {
    if (!ranges_.empty() && r.begin <= ranges_.back().end)
      ranges_.back().end = std::max(ranges_.back().end, r.end);
    else
      ranges_.push_back(r);
  }

  /// Index of the first range at or after `from` that ends after `x` (size()
  /// when none).
  [[nodiscard]] std::size_t first_ending_after(Addr x, std::size_t from = 0) const noexcept {
    if (ranges_.size() - from <= 8) {  // most sets are tiny: a scan beats the branchy search
      std::size_t k = from;
      while (k < ranges_.size() && ranges_[k].end <= x) ++k;
      return k;
    }
    return static_cast<std::size_t>(std::upper_bound(ranges_.begin() + static_cast<std::ptrdiff_t>(from),
                                                     ranges_.end(), x,
                                                     [](Addr v, const AddrRange& y) { return v < y.end; }) -
                                    ranges_.begin());
  }

 private:
  std::vector<AddrRange> ranges_;
};

}  // namespace pto_mem::dsa
