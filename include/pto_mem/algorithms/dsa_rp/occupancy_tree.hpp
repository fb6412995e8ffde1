// Which bytes of one arena are taken during a window of time, by the buffers
// placed so far. This is the indexed structure behind the canonical greedy's
// "lowest feasible offset" without visiting every co-live
// neighbour: real traces keep thousands of buffers live at once (idealloc's
// Y_1: 62k buffers, 2.2e8 interfering pairs), so enumerating or sorting the
// placed neighbours per buffer is what makes a greedy pass slow.
//
// A segment tree over the arena's elementary time slots, 16 children a node
// (shallower than a binary tree: fewer levels, so fewer "below" sets to
// update per insert and fewer dependent cache misses per query; measured
// faster at 100k buffers, same placements). A placed buffer is stored at the
// O(log T) canonical nodes that tile its lifetime ("here") and
// summarised in every node on the way down ("below", which includes "here").
// The buffers overlapping a window W are exactly those kept "here" at a node
// that partly overlaps W, plus those kept "below" a canonical node of W, so a
// query reads O(log T) sets. Each set is a union of byte ranges, merged: a
// merged range is fully taken by buffers that overlap W, so an offset that
// meets it must move past its end. Merging keeps the sets small (dense packing
// merges into a few ranges), which is what makes the structure fast.
//
// The leaves are buckets of consecutive time slots: a buffer that covers a
// bucket only in part is listed raw in that bucket and filtered exactly at
// query time. Buckets are cut so that at most `bucket_events` lifetime ends
// fall strictly inside one, which bounds every raw list; a tick where many
// lifetimes start or end simply becomes a cut. Bucketing shrinks the tree to
// a size that stays in cache: the pass is bound by memory latency.
//
// Every window is known before the first pass (the buffers' lifetimes), so
// each buffer's path through the tree is computed once and reused by every
// pass (and shared by the copies other workers place with), and a set that
// no query will ever read is not maintained.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "pto_mem/algorithms/dsa_rp/range_union.hpp"
#include "pto_mem/core/numeric.hpp"

namespace pto_mem::dsa {

/// A cache hint: start loading the line holding `p` (no effect elsewhere).
inline void prefetch([[maybe_unused]] const void* p) noexcept {
#if defined(__GNUC__) || defined(__clang__)
  __builtin_prefetch(p);
  // A loop whose body only prefetches has no effect the compiler must keep:
  // g++ 12 at -O2/-O3 deletes it whole (it did delete prefetch_sets' loop).
  // An empty asm that "uses" the address keeps the loop and its hints.
  __asm__ volatile("" : : "r"(p));
#endif
}

/// Cache hints for the first `bytes` bytes at `p`, at most `max_lines` lines.
inline void prefetch_lines(const void* p, std::size_t bytes, std::size_t max_lines = 16) noexcept {
  const char* c = static_cast<const char*>(p);
  const std::size_t lines = std::min(max_lines, (bytes + 63) / 64);
  for (std::size_t k = 0; k < lines; ++k) prefetch(c + 64 * k);
}

class OccupancyTree {
 public:
  using Window = std::pair<std::uint32_t, std::uint32_t>;  ///< elementary slots [lo, hi)

  OccupancyTree() = default;

  /// A tree over `slots` elementary time slots for buffers living in
  /// `windows` (indexed by the tree's own buffer numbers 0..windows.size()).
  OccupancyTree(std::size_t slots, std::vector<Window> windows_in, std::uint32_t bucket_events = 128) {
    auto layout = std::make_shared<Layout>();
    Layout& l = *layout;
    l.windows = std::move(windows_in);
    const std::vector<Window>& windows = l.windows;
    slots = std::max<std::size_t>(slots, 1);
    // Cut buckets: ends[t] counts lifetimes that start or end at slot boundary t.
    std::vector<std::uint32_t> ends(slots + 1, 0);
    for (const auto& [lo, hi] : windows) {
      ++ends[lo];
      ++ends[hi];
    }
    std::vector<std::uint32_t> bucket_of(slots);  // per slot
    std::vector<std::uint32_t> bucket_start{0};   // per bucket: first slot; one past the end last
    std::uint32_t inside = 0;
    for (std::uint32_t t = 0; t < slots; ++t) {
      // Slot t joins the current bucket unless boundary t would push the
      // bucket past its budget of interior ends.
      if (t > bucket_start.back() && inside + ends[t] > bucket_events) {
        bucket_start.push_back(t);
        inside = 0;
      } else if (t > bucket_start.back()) {
        inside += ends[t];
      }
      bucket_of[t] = static_cast<std::uint32_t>(bucket_start.size() - 1);
    }
    bucket_start.push_back(static_cast<std::uint32_t>(slots));
    const std::size_t buckets = bucket_start.size() - 1;
    std::size_t width = 1, first_leaf = 0;  // leaves, and the number of the first
    while (width < buckets) {
      first_leaf += width;
      width *= fanout;
    }
    const std::size_t node_count = first_leaf + width;
    nodes_.assign(node_count, Node{});
    population_.assign(node_count, 0);
    here_population_.assign(node_count, 0);
    raw_.assign(buckets, {});
    // Which nodes are canonical for some window: only there is a "below"
    // set ever read, and only there is a "here" set ever written. An
    // ancestor step at any other node would neither read nor write
    // anything, so no path lists it (on long traces, the upper half of
    // every path). A first walk marks them; the second writes the paths.
    std::vector<std::uint32_t> steps;
    auto full_buckets = [&](const Window& w) {
      const std::uint32_t first = bucket_of[w.first], last = bucket_of[w.second - 1];
      const std::uint32_t full_lo = w.first == bucket_start[first] ? first : first + 1;
      const std::uint32_t full_hi = w.second == bucket_start[last + 1] ? last + 1 : last;
      return std::array<std::uint32_t, 4>{first, last, full_lo, full_hi};
    };
    for (const auto& w : windows) {
      const auto [first, last, full_lo, full_hi] = full_buckets(w);
      if (full_lo < full_hi) walk(0, 0, width, full_lo, full_hi, nullptr);
    }
    l.path_start.resize(windows.size() + 1);
    for (std::size_t w = 0; w < windows.size(); ++w) {
      const auto [first, last, full_lo, full_hi] = full_buckets(windows[w]);
      steps.clear();
      if (full_lo < full_hi) walk(0, 0, width, full_lo, full_hi, &steps);
      for (std::uint32_t b : {first, last}) {
        if (b >= full_lo && b < full_hi) continue;  // fully covered: in the walk
        steps.push_back(b | bucket_step);
        for (std::size_t node = first_leaf + b;; node = (node - 1) / fanout) {
          steps.push_back(static_cast<std::uint32_t>(node));
          if (node == 0) break;
        }
      }
      std::sort(steps.begin(), steps.end());
      steps.erase(std::unique(steps.begin(), steps.end()), steps.end());
      for (std::uint32_t step : steps) {
        if ((step & kind_mask) == ancestor_step) {
          if (!nodes_[step].read_below) continue;
          nodes_[step].read_here = true;
        }
        l.path.push_back(step);
      }
      l.path_start[w + 1] = l.path.size();
    }
    layout_ = std::move(layout);
  }

  /// Empties the tree. With `keep_tops` every placed buffer's top (offset +
  /// size) is listed too, for the exact candidate count of the compat mode.
  void reset(bool keep_tops) {
    for (auto& n : nodes_) {
      n.here.clear();
      n.below.clear();
    }
    std::fill(population_.begin(), population_.end(), 0);
    std::fill(here_population_.begin(), here_population_.end(), 0);
    for (auto& r : raw_) r.clear();
    keep_tops_ = keep_tops;
    if (!keep_tops)
      tops_.clear();
    else if (tops_.size() != nodes_.size())
      tops_.assign(nodes_.size(), Tops{});
    else
      for (auto& m : tops_) {
        m.here.clear();
        m.below.clear();
      }
  }

  /// Records that buffer `b` (a tree number) takes `bytes`.
  void insert(std::size_t b, AddrRange bytes) {
    const Layout& l = *layout_;
    for (std::size_t k = l.path_start[b]; k < l.path_start[b + 1]; ++k) {
      const std::uint32_t step = l.path[k];
      const std::uint32_t index = step & index_mask;
      if ((step & kind_mask) == bucket_step) {
        // Kept sorted by offset, so that a query merges instead of sorting.
        raw_[index].insert(l.windows[b], bytes);
        continue;
      }
      Node& n = nodes_[index];
      ++population_[index];
      if (n.read_below) n.below.add(bytes);
      if (keep_tops_) tops_[index].below.push_back(bytes.end);
      if ((step & kind_mask) == canonical_step) {
        ++here_population_[index];
        if (n.read_here) n.here.add(bytes);
        if (keep_tops_) tops_[index].here.push_back(bytes.end);
      }
    }
  }

  /// Cache hints for a pass that knows which buffers come next (a pass is
  /// bound by memory latency: each buffer's path, bucket lists and sets sit
  /// far from the previous one's). Call `prefetch_path_start(b)` a few
  /// buffers ahead, `prefetch_path(b)` nearer, `prefetch_nodes(b)` nearer
  /// still, `prefetch_sets(b)` nearest; each stage reads only what the one
  /// before it brought in.
  void prefetch_path_start(std::size_t b) const noexcept { prefetch(&layout_->path_start[b]); }
  void prefetch_path(std::size_t b) const noexcept {
    prefetch(&layout_->windows[b]);
    prefetch(layout_->path.data() + layout_->path_start[b]);
  }
  /// The headers of every set on b's path, and its counters.
  void prefetch_nodes(std::size_t b) const noexcept {
    const Layout& l = *layout_;
    for (std::size_t k = l.path_start[b]; k < l.path_start[b + 1]; ++k) {
      const std::uint32_t step = l.path[k];
      const std::uint32_t index = step & index_mask;
      if ((step & kind_mask) == bucket_step) {
        prefetch(&raw_[index].when);  // both vectors' headers share a line or two
        prefetch(&raw_[index].bytes);
        continue;
      }
      prefetch(&nodes_[index]);
      prefetch(&population_[index]);
      prefetch(&here_population_[index]);
    }
  }
  /// The contents of every set that a query or an insert of b reads: the
  /// bucket lists and the node sets, whole (up to a few lines each; the
  /// searches in them jump, so the hardware's stream prefetch cannot help).
  void prefetch_sets(std::size_t b) const noexcept {
    const Layout& l = *layout_;
    for (std::size_t k = l.path_start[b]; k < l.path_start[b + 1]; ++k) {
      const std::uint32_t step = l.path[k];
      const std::uint32_t index = step & index_mask;
      if ((step & kind_mask) == bucket_step) {
        const RawList& r = raw_[index];
        prefetch_lines(r.when.data(), r.when.size() * sizeof(Window));
        prefetch_lines(r.bytes.data(), r.bytes.size() * sizeof(AddrRange));
        continue;
      }
      const Node& n = nodes_[index];
      prefetch_lines(n.below.data(), n.below.size() * sizeof(AddrRange));
      prefetch_lines(n.here.data(), n.here.size() * sizeof(AddrRange));
    }
  }

  /// Appends every non-empty set that buffer `b` must avoid. Together they
  /// cover exactly the bytes of the placed buffers whose lifetimes overlap
  /// b's. Valid until the next call.
  void sets_for(std::size_t b, std::vector<const RangeUnion*>& out) {
    const auto [lo, hi] = layout_->windows[b];
    const RawList* buckets[2] = {nullptr, nullptr};  // the window's first and last, if cut
    const Layout& l = *layout_;
    for (std::size_t k = l.path_start[b]; k < l.path_start[b + 1]; ++k) {
      const std::uint32_t step = l.path[k];
      const std::uint32_t index = step & index_mask;
      // The counters live apart from the sets so that this scan stays in cache.
      switch (step & kind_mask) {
        case bucket_step: buckets[buckets[0] ? 1 : 0] = &raw_[index]; break;
        case canonical_step:
          if (population_[index] != 0) out.push_back(&nodes_[index].below);
          break;
        default:
          if (here_population_[index] != 0) out.push_back(&nodes_[index].here);
      }
    }
    // The raw buffers that overlap the window, merged straight from the
    // (offset-sorted) bucket lists into their union.
    if (!buckets[0]) return;
    partial_.clear();
    // The live entries' indices, found without a branch per entry (whether
    // an entry is live is a coin toss for the branch predictor).
    const std::size_t x_live = buckets[0]->live(lo, hi, live_[0]);  // first: it may grow live_[0]
    const std::uint32_t *x = live_[0].data(), *x_end = x + x_live;
    const AddrRange* xb = buckets[0]->bytes.data();
    if (!buckets[1]) {
      for (; x != x_end; ++x) partial_.append_sorted(xb[*x]);
    } else {
      const std::size_t y_live = buckets[1]->live(lo, hi, live_[1]);
      const std::uint32_t *y = live_[1].data(), *y_end = y + y_live;
      const AddrRange* yb = buckets[1]->bytes.data();
      while (x != x_end || y != y_end) {
        if (y == y_end || (x != x_end && xb[*x].begin <= yb[*y].begin))
          partial_.append_sorted(xb[*x++]);
        else
          partial_.append_sorted(yb[*y++]);
      }
    }
    if (!partial_.empty()) out.push_back(&partial_);
  }

  /// Calls f(top) for every placed buffer overlapping buffer b's lifetime,
  /// some possibly more than once. Needs keep_tops.
  template <class F>
  void for_each_top(std::size_t b, F&& f) const {
    const auto [lo, hi] = layout_->windows[b];
    const Layout& l = *layout_;
    for (std::size_t k = l.path_start[b]; k < l.path_start[b + 1]; ++k) {
      const std::uint32_t step = l.path[k];
      const std::uint32_t index = step & index_mask;
      switch (step & kind_mask) {
        case bucket_step:
          for (std::size_t k = 0; k < raw_[index].when.size(); ++k)
            if (raw_[index].when[k].first < hi && lo < raw_[index].when[k].second)
              f(raw_[index].bytes[k].end);
          break;
        case canonical_step:
          for (Addr top : tops_[index].below) f(top);
          break;
        default:
          for (Addr top : tops_[index].here) f(top);
      }
    }
  }

 private:
  // A path step: a node or bucket index with its kind in the top two bits.
  static constexpr std::uint32_t ancestor_step = 0;          ///< node partly overlapping the window
  static constexpr std::uint32_t canonical_step = 1u << 30;  ///< node inside the window
  static constexpr std::uint32_t bucket_step = 2u << 30;     ///< bucket the window covers in part
  static constexpr std::uint32_t kind_mask = 3u << 30;
  static constexpr std::uint32_t index_mask = ~kind_mask;
  static constexpr std::size_t fanout = 16;  ///< children per node

  struct Node {
    RangeUnion here;   ///< buffers whose lifetime covers this node's buckets (canonical here)
    RangeUnion below;  ///< buffers kept here, below, or raw in its buckets
    bool read_here = false, read_below = false;
  };
  struct Tops {
    std::vector<Addr> here, below;  ///< the same buffers' tops (offset + size)
  };
  /// The buffers that cover a bucket only in part, sorted by offset: their
  /// windows and their bytes apart, so that the filter by window streams 8
  /// bytes an entry and reads the bytes of the live ones only.
  struct RawList {
    std::vector<Window> when;
    std::vector<AddrRange> bytes;

    void clear() noexcept {
      when.clear();
      bytes.clear();
    }
    void insert(Window w, AddrRange r) {
      const auto at = std::upper_bound(bytes.begin(), bytes.end(), r.begin,
                                       [](Addr v, const AddrRange& x) { return v < x.begin; });
      const auto k = at - bytes.begin();
      bytes.insert(at, r);
      when.insert(when.begin() + k, w);
    }
    /// Writes to the front of `out` the indices of the entries whose window
    /// overlaps [lo, hi), in order, and returns their number.
    std::size_t live(std::uint32_t lo, std::uint32_t hi, std::vector<std::uint32_t>& out) const {
      if (out.size() < when.size()) out.resize(std::max(when.size(), 2 * out.size()));
      std::uint32_t* o = out.data();
      std::uint32_t count = 0;
      const Window* w = when.data();
      for (std::uint32_t k = 0, n = static_cast<std::uint32_t>(when.size()); k < n; ++k) {
        o[count] = k;
        count += static_cast<std::uint32_t>((w[k].first < hi) & (lo < w[k].second));
      }
      return count;
    }
  };

  /// Records the canonical decomposition of buckets [lo, hi) with the nodes
  /// that partly overlap it.
  void walk(std::size_t node, std::size_t nl, std::size_t nr, std::uint32_t lo, std::uint32_t hi,
            std::vector<std::uint32_t>* steps) {
    if (lo <= nl && nr <= hi) {
      if (steps)
        steps->push_back(static_cast<std::uint32_t>(node) | canonical_step);
      else
        nodes_[node].read_below = true;
      return;
    }
    if (steps) steps->push_back(static_cast<std::uint32_t>(node));
    const std::size_t part = (nr - nl) / fanout;
    for (std::size_t c = 0; c < fanout; ++c) {
      const std::size_t cl = nl + c * part, cr = cl + part;
      if (cl < hi && lo < cr) walk(fanout * node + 1 + c, cl, cr, lo, hi, steps);
    }
  }

  /// What the windows fix before any buffer is placed: each buffer's window
  /// and its path of steps. Copies of a tree (workers placing other orders)
  /// share it.
  struct Layout {
    std::vector<Window> windows;
    std::vector<std::uint32_t> path;      // per buffer: its steps
    std::vector<std::size_t> path_start;  // buffer b's steps are path[path_start[b] .. path_start[b + 1])
  };

  std::shared_ptr<const Layout> layout_;
  std::vector<Node> nodes_;
  std::vector<std::uint32_t> population_;       // per node: buffers kept here, below or raw below
  std::vector<std::uint32_t> here_population_;  // per node: buffers kept here
  std::vector<Tops> tops_;
  std::vector<RawList> raw_;            // per bucket
  std::vector<std::uint32_t> live_[2];  // scratch of sets_for: live entries of the window's cut buckets
  bool keep_tops_ = false;
  RangeUnion partial_;  // the union of the raw buffers overlapping the window being queried
};

}  // namespace pto_mem::dsa
