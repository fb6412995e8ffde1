// Which bytes of one arena are taken during a window of time, by the buffers
// placed so far. This is the indexed structure behind the canonical greedy's
// "lowest feasible offset" (SPEC.md §2.5–2.6) without visiting every co-live
// neighbour: real traces keep thousands of buffers live at once (idealloc's
// Y_1: 62k buffers, 2.2e8 interfering pairs), so enumerating or sorting the
// placed neighbours per buffer is what makes a greedy pass slow.
//
// A segment tree over the arena's elementary time slots. A placed buffer is
// stored at the O(log T) canonical nodes that tile its lifetime ("here") and
// summarised in every node on the way down ("below", which includes "here").
// The buffers overlapping a window W are exactly those kept "here" at a node
// that partly overlaps W, plus those kept "below" a canonical node of W, so a
// query reads O(log T) sets. Each set is a union of byte ranges, merged: a
// merged range is fully taken by buffers that overlap W, so an offset that
// meets it must move past its end. Merging keeps the sets small (dense packing
// merges into a few ranges), which is what makes the structure fast.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "pto_mem/core/numeric.hpp"

namespace pto_mem::dsa {

/// Disjoint, non-touching byte ranges in ascending order.
class RangeUnion {
 public:
  [[nodiscard]] bool empty() const noexcept { return ranges_.empty(); }
  [[nodiscard]] std::size_t size() const noexcept { return ranges_.size(); }
  [[nodiscard]] const AddrRange& operator[](std::size_t k) const noexcept { return ranges_[k]; }
  void clear() noexcept { ranges_.clear(); }

  /// Adds [r.begin, r.end), merging with every range it overlaps or touches.
  void add(AddrRange r) {
    auto first = std::lower_bound(ranges_.begin(), ranges_.end(), r.begin,
                                  [](const AddrRange& x, Addr v) { return x.end < v; });
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

  /// Index of the first range that ends after `x` (size() when none).
  [[nodiscard]] std::size_t first_ending_after(Addr x) const noexcept {
    if (ranges_.size() <= 8) {  // most sets are tiny: a scan beats the branchy search
      std::size_t k = 0;
      while (k < ranges_.size() && ranges_[k].end <= x) ++k;
      return k;
    }
    return static_cast<std::size_t>(
        std::upper_bound(ranges_.begin(), ranges_.end(), x, [](Addr v, const AddrRange& y) { return v < y.end; }) -
        ranges_.begin());
  }

 private:
  std::vector<AddrRange> ranges_;
};

class OccupancyTree {
 public:
  /// Empties the tree for `slots` elementary time slots. With `keep_members`
  /// the buffers themselves are listed too (for the exact candidate count of
  /// the compat mode); otherwise only the merged byte ranges are kept.
  void reset(std::size_t slots, bool keep_members) {
    std::size_t width = 1;
    while (width < slots) width *= 2;
    if (width != width_ || nodes_.size() != 2 * width) {
      width_ = width;
      nodes_.assign(2 * width, Node{});
    } else {
      for (auto& n : nodes_) {
        n.here.clear();
        n.below.clear();
      }
    }
    keep_members_ = keep_members;
    if (!keep_members) members_.clear();
    else if (members_.size() != nodes_.size()) members_.assign(nodes_.size(), Members{});
    else
      for (auto& m : members_) {
        m.here.clear();
        m.below.clear();
      }
  }

  /// Records that `member` takes `bytes` during the slots [lo, hi).
  void insert(std::uint32_t lo, std::uint32_t hi, AddrRange bytes, std::uint32_t member) {
    insert(1, 0, width_, lo, hi, bytes, member);
  }

  /// Appends every non-empty set that a buffer living in slots [lo, hi) must
  /// avoid. Together they cover exactly the bytes of the placed buffers whose
  /// lifetimes overlap the window.
  void sets_for(std::uint32_t lo, std::uint32_t hi, std::vector<const RangeUnion*>& out) const {
    sets_for(1, 0, width_, lo, hi, out);
  }

  /// Calls f(member) for every placed buffer overlapping slots [lo, hi), some
  /// possibly more than once. Needs keep_members.
  template <class F>
  void for_each_member(std::uint32_t lo, std::uint32_t hi, F&& f) const {
    members_for(1, 0, width_, lo, hi, f);
  }

 private:
  struct Node {
    RangeUnion here;   ///< buffers whose lifetime covers this node's slots (canonical here)
    RangeUnion below;  ///< buffers kept here or in the subtree
  };
  struct Members {
    std::vector<std::uint32_t> here, below;  ///< the same, as buffer lists
  };

  void insert(std::size_t node, std::size_t nl, std::size_t nr, std::uint32_t lo, std::uint32_t hi, AddrRange bytes,
              std::uint32_t member) {
    Node& n = nodes_[node];
    n.below.add(bytes);
    if (keep_members_) members_[node].below.push_back(member);
    if (lo <= nl && nr <= hi) {
      n.here.add(bytes);
      if (keep_members_) members_[node].here.push_back(member);
      return;
    }
    const std::size_t mid = (nl + nr) / 2;
    if (lo < mid) insert(2 * node, nl, mid, lo, hi, bytes, member);
    if (hi > mid) insert(2 * node + 1, mid, nr, lo, hi, bytes, member);
  }

  void sets_for(std::size_t node, std::size_t nl, std::size_t nr, std::uint32_t lo, std::uint32_t hi,
                std::vector<const RangeUnion*>& out) const {
    const Node& n = nodes_[node];
    if (n.below.empty()) return;
    if (lo <= nl && nr <= hi) {
      out.push_back(&n.below);
      return;
    }
    if (!n.here.empty()) out.push_back(&n.here);
    const std::size_t mid = (nl + nr) / 2;
    if (lo < mid) sets_for(2 * node, nl, mid, lo, hi, out);
    if (hi > mid) sets_for(2 * node + 1, mid, nr, lo, hi, out);
  }

  template <class F>
  void members_for(std::size_t node, std::size_t nl, std::size_t nr, std::uint32_t lo, std::uint32_t hi, F& f) const {
    const Members& n = members_[node];
    if (n.below.empty()) return;
    if (lo <= nl && nr <= hi) {
      for (auto m : n.below) f(m);
      return;
    }
    for (auto m : n.here) f(m);
    const std::size_t mid = (nl + nr) / 2;
    if (lo < mid) members_for(2 * node, nl, mid, lo, hi, f);
    if (hi > mid) members_for(2 * node + 1, mid, nr, lo, hi, f);
  }

  std::vector<Node> nodes_;
  std::vector<Members> members_;
  std::size_t width_ = 0;
  bool keep_members_ = false;
};

}  // namespace pto_mem::dsa
