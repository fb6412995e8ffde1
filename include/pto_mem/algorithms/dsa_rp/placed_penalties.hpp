// The placed rule partners of a buffer, by address range, without listing
// the pairs (implicit_penalties.hpp).
//
// The canonical step needs, for the buffer it places, each placed soft
// neighbour's bytes and weight: the cost of a candidate offset is the weight
// of the neighbours it overlaps, the candidates are their aligned tops. Only
// sums over neighbours matter, so neighbours that occupy the same bytes can
// be one entry weighing their number. This index keeps the placed buffers of
// each (group, kind) cell bucketed by their bytes, and in each bucket the
// members' lifetime ends and begins: a buffer's rule partners in a bucket
// are the members of a paying kind that end before it begins or begin after
// it ends, two counts. A query costs O(buckets of its group's paying kinds),
// however many partners they hold; a long straight-line kernel, where every
// earlier allocation of a kind is a partner, keeps a handful of buckets.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "pto_mem/algorithms/dsa_rp/search_space.hpp"

namespace pto_mem::dsa {

/// A multiset of ticks that counts its members below or above a tick.
/// Sorted chunks (each chunk's ticks are at most the next chunk's), so an
/// insert moves at most one chunk and a count reads one size per chunk and
/// searches one chunk.
class TickCounter {
 public:
  /// Empties the set, keeping the first chunk's memory for reuse.
  void clear() {
    if (chunks_.size() > 1) chunks_.resize(1);
    if (!chunks_.empty()) chunks_.front().clear();
  }
  void insert(Tick t) {
    if (chunks_.empty()) chunks_.emplace_back();
    std::size_t k = 0;
    while (k + 1 < chunks_.size() && chunks_[k].back() < t) ++k;
    auto& c = chunks_[k];
    c.insert(std::upper_bound(c.begin(), c.end(), t), t);
    if (c.size() >= 2 * chunk) {
      std::vector<Tick> upper(c.begin() + chunk, c.end());
      c.resize(chunk);
      chunks_.insert(chunks_.begin() + static_cast<std::ptrdiff_t>(k) + 1, std::move(upper));
    }
  }
  /// Members < t.
  [[nodiscard]] std::size_t below(Tick t) const {
    std::size_t n = 0;
    for (const auto& c : chunks_) {
      if (c.empty()) return n;  // only a cleared set has an empty chunk
      if (c.back() >= t)
        return n + static_cast<std::size_t>(std::lower_bound(c.begin(), c.end(), t) - c.begin());
      n += c.size();
    }
    return n;
  }
  /// Members > t.
  [[nodiscard]] std::size_t above(Tick t) const {
    std::size_t n = 0;
    for (auto c = chunks_.rbegin(); c != chunks_.rend(); ++c) {
      if (c->empty()) return n;
      if (c->front() <= t)
        return n + static_cast<std::size_t>(c->end() - std::upper_bound(c->begin(), c->end(), t));
      n += c->size();
    }
    return n;
  }

 private:
  static constexpr std::size_t chunk = 256;
  std::vector<std::vector<Tick>> chunks_;
};

class PlacedRuleIndex {
 private:
  struct Key {
    std::uint32_t cell;
    Addr begin, end;
    friend bool operator==(const Key&, const Key&) = default;
  };
  struct KeyHash {
    std::size_t operator()(const Key& k) const noexcept {
      std::uint64_t h = k.cell * 0x9E3779B97F4A7C15ull;
      h ^= (k.begin + 0x7f4a7c15u) * 0xff51afd7ed558ccdull;
      h = (h ^ (h >> 29)) + k.end * 0xc4ceb9fe1a85ec53ull;
      return static_cast<std::size_t>(h ^ (h >> 32));
    }
  };

 public:
  struct Entry {
    AddrRange bytes;
    Weight weight;
  };

  explicit PlacedRuleIndex(const SearchSpace& s) : s_(&s) {
    if (!s.implicit) return;
    const ImplicitPenalties& r = *s.implicit;
    std::vector<std::pair<std::uint32_t, std::uint32_t>> cells;  // (group, kind)
    for (std::uint32_t i = 0; i < s.n; ++i)
      if (r.group[i] != ImplicitPenalties::none) cells.emplace_back(r.group[i], r.kind[i]);
    std::sort(cells.begin(), cells.end());
    cells.erase(std::unique(cells.begin(), cells.end()), cells.end());
    const std::uint32_t groups = cells.empty() ? 0 : cells.back().first + 1;
    group_start_.assign(groups + 1, 0);
    for (const auto& [g, k] : cells) {
      ++group_start_[g + 1];
      cell_kind_.push_back(k);
    }
    for (std::uint32_t g = 0; g < groups; ++g) group_start_[g + 1] += group_start_[g];
    node_cell_.assign(s.n, 0);
    for (std::uint32_t i = 0; i < s.n; ++i)
      if (r.group[i] != ImplicitPenalties::none)
        node_cell_[i] = static_cast<std::uint32_t>(
            std::lower_bound(cells.begin(), cells.end(), std::pair{r.group[i], r.kind[i]}) - cells.begin());
    cell_buckets_.resize(cells.size());
    node_bucket_.assign(s.n, 0);
  }

  /// Forgets every placed buffer. The buckets' memory is kept: the next
  /// pass reuses it.
  void clear() {
    if (!s_->implicit) return;
    for (auto& b : cell_buckets_) b.clear();
    live_ = 0;
    lookup_.clear();
  }

 private:
  /// Buckets by (cell, bytes): open addressing, slots stamped per pass so
  /// that clearing costs nothing and a pass allocates nothing once the
  /// table has grown.
  class BucketTable {
   public:
    void clear() {
      if (++now_ == 0) {
        for (auto& s : slots_) s.stamp = 0;
        now_ = 1;
      }
      used_ = 0;
    }
    /// The bucket of `key`, or `fresh` stored under it when it has none; and whether it was stored.
    std::pair<std::uint32_t, bool> find_or_add(const Key& key, std::uint32_t fresh) {
      if (2 * (used_ + 1) > slots_.size()) grow();
      const std::size_t mask = slots_.size() - 1;
      for (std::size_t h = KeyHash{}(key)&mask;; h = (h + 1) & mask) {
        Slot& s = slots_[h];
        if (s.stamp != now_) {
          s = Slot{key, fresh, now_};
          ++used_;
          return {fresh, true};
        }
        if (s.key == key) return {s.bucket, false};
      }
    }

   private:
    struct Slot {
      Key key{};
      std::uint32_t bucket = 0;
      std::uint32_t stamp = 0;
    };
    void grow() {
      std::vector<Slot> old = std::move(slots_);
      slots_.assign(std::max<std::size_t>(64, 2 * old.size()), Slot{});
      const std::uint32_t was = now_;
      now_ = 1;
      used_ = 0;
      const std::size_t mask = slots_.size() - 1;
      for (const Slot& s : old)
        if (s.stamp == was)
          for (std::size_t h = KeyHash{}(s.key) & mask;; h = (h + 1) & mask)
            if (slots_[h].stamp != now_) {
              slots_[h] = Slot{s.key, s.bucket, now_};
              ++used_;
              break;
            }
    }
    std::vector<Slot> slots_;
    std::uint32_t now_ = 1;
    std::size_t used_ = 0;
  };

 public:
  /// Records buffer i at `bytes`.
  void insert(std::uint32_t i, AddrRange bytes) {
    if (!s_->implicit || s_->implicit->group[i] == ImplicitPenalties::none) return;
    const std::uint32_t cell = node_cell_[i];
    const auto [at, fresh] =
        lookup_.find_or_add(Key{cell, bytes.begin, bytes.end}, static_cast<std::uint32_t>(live_));
    if (fresh) {
      if (live_ == buckets_.size()) buckets_.emplace_back();
      Bucket& b = buckets_[live_++];
      b.bytes = bytes;
      b.ends.clear();
      b.begins.clear();
      cell_buckets_[cell].push_back(at);
      if (stamp_.size() < buckets_.size()) {
        stamp_.resize(buckets_.size(), 0);
        slot_.resize(buckets_.size(), 0);
      }
    }
    Bucket& b = buckets_[at];
    b.ends.insert(s_->implicit->end[i]);
    b.begins.insert(s_->implicit->begin[i]);
    node_bucket_[i] = at;
  }

  /// Appends, per placed byte range, the number of buffer i's placed rule
  /// partners there (ranges with none are left out). `placed` marks the
  /// buffers inserted so far.
  void partners(std::uint32_t i, const std::vector<char>& placed, std::vector<Entry>& out) {
    if (!s_->implicit || s_->implicit->group[i] == ImplicitPenalties::none) return;
    const ImplicitPenalties& r = *s_->implicit;
    const std::uint32_t g = r.group[i], ki = r.kind[i];
    const Tick begin = r.begin[i], end = r.end[i];
    const std::size_t from = out.size();
    if (++now_ == 0) {  // stamps wrapped
      std::fill(stamp_.begin(), stamp_.end(), 0);
      now_ = 1;
    }
    for (std::uint32_t c = group_start_[g]; c < group_start_[g + 1]; ++c) {
      const bool earlier = r.pays(cell_kind_[c], ki), later = r.pays(ki, cell_kind_[c]);
      if (!earlier && !later) continue;
      for (std::uint32_t b : cell_buckets_[c]) {
        const Bucket& bucket = buckets_[b];
        const std::size_t n =
            (earlier ? bucket.ends.below(begin) : 0) + (later ? bucket.begins.above(end) : 0);
        if (n == 0) continue;
        stamp_[b] = now_;
        slot_[b] = out.size();
        out.push_back({bucket.bytes, static_cast<Weight>(n)});
      }
    }
    if (out.size() == from) return;
    // Partners the rule names but the search space does not count: each was
    // counted once, in its own bucket.
    bool emptied = false;
    for (auto [b, e] = s_->implicit_removed.of(i); b != e; ++b)
      if (placed[*b] && stamp_[node_bucket_[*b]] == now_) {
        emptied = --out[slot_[node_bucket_[*b]]].weight == 0 || emptied;
      }
    if (emptied)
      out.erase(std::remove_if(out.begin() + static_cast<std::ptrdiff_t>(from), out.end(),
                               [](const Entry& x) { return x.weight == 0; }),
                out.end());
  }

 private:
  struct Bucket {
    AddrRange bytes;
    TickCounter ends, begins;  // of the members
  };

  const SearchSpace* s_;
  std::vector<std::uint32_t> group_start_;  // per group: its cells [start, next start)
  std::vector<std::uint32_t> cell_kind_;
  std::vector<std::uint32_t> node_cell_;
  std::vector<std::vector<std::uint32_t>> cell_buckets_;
  std::vector<Bucket> buckets_;  // the first live_ are in use
  std::size_t live_ = 0;
  BucketTable lookup_;
  std::vector<std::uint32_t> node_bucket_;
  // Per bucket, for the removed partners of one query: where its entry is.
  std::vector<std::uint32_t> stamp_;
  std::vector<std::size_t> slot_;
  std::uint32_t now_ = 0;
};

}  // namespace pto_mem::dsa
