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
//
// Every window is known before the first pass (the buffers' lifetimes), so
// each buffer's path through the tree is computed once and reused by every
// pass, and a set that no query will ever read is not maintained.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <utility>
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

  /// Index of the first range at or after `from` that ends after `x` (size()
  /// when none).
  [[nodiscard]] std::size_t first_ending_after(Addr x, std::size_t from = 0) const noexcept {
    if (ranges_.size() - from <= 8) {  // most sets are tiny: a scan beats the branchy search
      std::size_t k = from;
      while (k < ranges_.size() && ranges_[k].end <= x) ++k;
      return k;
    }
    return static_cast<std::size_t>(std::upper_bound(ranges_.begin() + static_cast<std::ptrdiff_t>(from), ranges_.end(),
                                                     x, [](Addr v, const AddrRange& y) { return v < y.end; }) -
                                    ranges_.begin());
  }

 private:
  std::vector<AddrRange> ranges_;
};

class OccupancyTree {
 public:
  using Window = std::pair<std::uint32_t, std::uint32_t>;  ///< elementary slots [lo, hi)

  OccupancyTree() = default;

  /// A tree over `slots` elementary time slots for buffers living in
  /// `windows` (indexed by the tree's own buffer numbers 0..windows.size()).
  OccupancyTree(std::size_t slots, const std::vector<Window>& windows) {
    width_ = 1;
    while (width_ < slots) width_ *= 2;
    nodes_.assign(2 * width_, Node{});
    population_.assign(2 * width_, 0);
    here_population_.assign(2 * width_, 0);
    path_start_.reserve(windows.size() + 1);
    path_start_.push_back(0);
    for (const auto& [lo, hi] : windows) {
      walk(1, 0, width_, lo, hi);
      path_start_.push_back(path_.size());
    }
    // A node's "below" set is read only where it is canonical for some
    // window, its "here" set only where it partly overlaps one.
    for (std::uint32_t step : path_) {
      Node& n = nodes_[step & node_mask];
      if (step & canonical_bit) n.read_below = true;
      else n.read_here = true;
    }
  }

  /// Empties the tree. With `keep_members` the buffers themselves are listed
  /// too (for the exact candidate count of the compat mode).
  void reset(bool keep_members) {
    for (auto& n : nodes_) {
      n.here.clear();
      n.below.clear();
    }
    std::fill(population_.begin(), population_.end(), 0);
    std::fill(here_population_.begin(), here_population_.end(), 0);
    keep_members_ = keep_members;
    if (!keep_members) members_.clear();
    else if (members_.size() != nodes_.size()) members_.assign(nodes_.size(), Members{});
    else
      for (auto& m : members_) {
        m.here.clear();
        m.below.clear();
      }
  }

  /// Records that buffer `b` (a tree number) takes `bytes`; `member` is what
  /// for_each_member reports for it.
  void insert(std::size_t b, AddrRange bytes, std::uint32_t member) {
    for (std::size_t k = path_start_[b]; k < path_start_[b + 1]; ++k) {
      const std::uint32_t step = path_[k];
      const std::uint32_t node = step & node_mask;
      Node& n = nodes_[node];
      ++population_[node];
      if (n.read_below) n.below.add(bytes);
      if (keep_members_) members_[node].below.push_back(member);
      if (step & canonical_bit) {
        ++here_population_[node];
        if (n.read_here) n.here.add(bytes);
        if (keep_members_) members_[node].here.push_back(member);
      }
    }
  }

  /// Appends every non-empty set that buffer `b` must avoid. Together they
  /// cover exactly the bytes of the placed buffers whose lifetimes overlap b's.
  void sets_for(std::size_t b, std::vector<const RangeUnion*>& out) const {
    for (std::size_t k = path_start_[b]; k < path_start_[b + 1]; ++k) {
      const std::uint32_t step = path_[k];
      const std::uint32_t node = step & node_mask;
      // The counters live apart from the sets so that this scan stays in cache.
      if (step & canonical_bit) {
        if (population_[node] != 0) out.push_back(&nodes_[node].below);
      } else if (here_population_[node] != 0) {
        out.push_back(&nodes_[node].here);
      }
    }
  }

  /// Calls f(member) for every placed buffer overlapping buffer b's lifetime,
  /// some possibly more than once. Needs keep_members.
  template <class F>
  void for_each_member(std::size_t b, F&& f) const {
    for (std::size_t k = path_start_[b]; k < path_start_[b + 1]; ++k) {
      const std::uint32_t step = path_[k];
      const Members& m = members_[step & node_mask];
      for (auto j : (step & canonical_bit) ? m.below : m.here) f(j);
    }
  }

 private:
  static constexpr std::uint32_t canonical_bit = 0x80000000u;
  static constexpr std::uint32_t node_mask = ~canonical_bit;

  struct Node {
    RangeUnion here;   ///< buffers whose lifetime covers this node's slots (canonical here)
    RangeUnion below;  ///< buffers kept here or in the subtree
    bool read_here = false, read_below = false;
  };
  struct Members {
    std::vector<std::uint32_t> here, below;  ///< the same, as buffer lists
  };

  /// Records the path of a window: the nodes that partly overlap it and the
  /// canonical nodes that tile it.
  void walk(std::size_t node, std::size_t nl, std::size_t nr, std::uint32_t lo, std::uint32_t hi) {
    if (lo <= nl && nr <= hi) {
      path_.push_back(static_cast<std::uint32_t>(node) | canonical_bit);
      return;
    }
    path_.push_back(static_cast<std::uint32_t>(node));
    const std::size_t mid = (nl + nr) / 2;
    if (lo < mid) walk(2 * node, nl, mid, lo, hi);
    if (hi > mid) walk(2 * node + 1, mid, nr, lo, hi);
  }

  std::vector<Node> nodes_;
  std::vector<std::uint32_t> population_;       // per node: buffers kept here or below
  std::vector<std::uint32_t> here_population_;  // per node: buffers kept here
  std::vector<Members> members_;
  std::vector<std::uint32_t> path_;       // per buffer: node ids, canonical_bit on canonical nodes
  std::vector<std::size_t> path_start_;   // buffer b's path is path_[path_start_[b] .. path_start_[b + 1])
  std::size_t width_ = 0;
  bool keep_members_ = false;
};

}  // namespace pto_mem::dsa
