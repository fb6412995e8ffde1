// The abstract store of the tile-storage verifier: for every byte of every
// storage region, the set of SSA values that byte *definitely* holds (a
// must-analysis). A region is a memory space (absolute addresses, after
// PYPTO / DSA_RP placement) or one allocation base of a space (relative
// offsets, PTOAS), plus "virtual" regions for windows at a run-time slot of a
// declared allocation (`base + i % 2 * 16384`): such a window is tracked on
// its own, keyed by the slot expression, and any write that may touch its
// allocation's footprint forgets it.
//
// A region's bytes are a sorted vector of segments with their value sets
// (a few ids inline): a write is a binary search and a splice, where an
// interval map of std::sets allocated a tree node and a set node or two.
//
// Shares no code with the passes (pypto/passes/): it is their independent check.
#pragma once

#include <algorithm>
#include <array>
#include <compare>
#include <cstdint>
#include <initializer_list>
#include <iterator>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "pto_mem/pypto/ir/memory_space.hpp"
#include "pto_mem/pypto/ir/var.hpp"

namespace pto_mem::pypto::verify {

/// A dense id per SSA value the verifier tracks.
using ValueId = std::uint32_t;

/// The values a byte definitely holds: a sorted set of ids, up to three of
/// them inline (a byte is usually named by its value and a view or two).
class Names {
 public:
  Names() = default;
  Names(std::initializer_list<ValueId> ids) {
    for (ValueId v : ids) insert(v);
  }

  [[nodiscard]] bool empty() const noexcept { return size_ == 0; }
  [[nodiscard]] std::size_t size() const noexcept { return size_; }
  [[nodiscard]] const ValueId* begin() const noexcept {
    return heap_.empty() ? inline_.data() : heap_.data();
  }
  [[nodiscard]] const ValueId* end() const noexcept { return begin() + size_; }
  [[nodiscard]] std::size_t count(ValueId v) const noexcept {
    return std::binary_search(begin(), end(), v) ? 1 : 0;
  }

  void insert(ValueId v) {
    const ValueId* at = std::lower_bound(begin(), end(), v);
    if (at != end() && *at == v) return;
    const auto k = static_cast<std::size_t>(at - begin());
    if (heap_.empty() && size_ < inline_.size()) {
      for (std::size_t i = size_; i > k; --i) inline_[i] = inline_[i - 1];
      inline_[k] = v;
      ++size_;
      return;
    }
    if (heap_.empty()) heap_.assign(inline_.begin(), inline_.begin() + size_);
    heap_.insert(heap_.begin() + static_cast<std::ptrdiff_t>(k), v);
    ++size_;
  }
  void erase(ValueId v) {
    const ValueId* at = std::lower_bound(begin(), end(), v);
    if (at == end() || *at != v) return;
    const auto k = static_cast<std::size_t>(at - begin());
    --size_;
    if (heap_.empty()) {
      for (std::size_t i = k; i < size_; ++i) inline_[i] = inline_[i + 1];
      return;
    }
    heap_.erase(heap_.begin() + static_cast<std::ptrdiff_t>(k));
    if (size_ <= inline_.size()) {  // back inline
      std::copy(heap_.begin(), heap_.end(), inline_.begin());
      heap_ = {};
    }
  }
  /// The union with `o`.
  void merge(const Names& o) {
    for (ValueId v : o) insert(v);
  }
  /// The ids both hold.
  [[nodiscard]] static Names common(const Names& a, const Names& b) {
    Names out;
    for (ValueId v : a)
      if (b.count(v)) out.insert(v);
    return out;
  }
  friend bool operator==(const Names& a, const Names& b) noexcept {
    return a.size_ == b.size_ && std::equal(a.begin(), a.end(), b.begin());
  }

 private:
  std::uint32_t size_ = 0;
  std::array<ValueId, 3> inline_{};
  std::vector<ValueId> heap_;  ///< all the ids once there are more than fit inline
};

/// Bytes [begin, end) and the values each of them holds.
struct Segment {
  std::int64_t begin = 0, end = 0;
  Names names;
};

/// For every byte of a region, the values it holds, as sorted, disjoint,
/// non-empty segments; two touching segments never hold the same values
/// (they are one), so two maps are equal exactly when they agree on every
/// byte.
class ByteMap {
 public:
  using const_iterator = std::vector<Segment>::const_iterator;

  [[nodiscard]] bool empty() const noexcept { return segs_.empty(); }
  [[nodiscard]] const_iterator begin() const noexcept { return segs_.begin(); }
  [[nodiscard]] const_iterator end() const noexcept { return segs_.end(); }

  /// The segments that hold some byte of [b, e).
  [[nodiscard]] std::pair<const_iterator, const_iterator> overlapping(std::int64_t b, std::int64_t e) const {
    auto lo = first_after(b);
    auto hi = lo;
    while (hi != segs_.end() && hi->begin < e) ++hi;
    return {lo, hi};
  }
  [[nodiscard]] bool intersects(std::int64_t b, std::int64_t e) const {
    auto lo = first_after(b);
    return b < e && lo != segs_.end() && lo->begin < e;
  }

  /// Bytes [b, e) hold nothing.
  void erase(std::int64_t b, std::int64_t e) {
    if (b >= e) return;
    auto i = static_cast<std::size_t>(first_after(b) - segs_.begin());
    if (i == segs_.size() || segs_[i].begin >= e) return;
    if (segs_[i].begin < b && segs_[i].end > e) {  // inside one segment: split it
      Segment right{e, segs_[i].end, segs_[i].names};
      segs_[i].end = b;
      segs_.insert(segs_.begin() + static_cast<std::ptrdiff_t>(i) + 1, std::move(right));
      return;
    }
    if (segs_[i].begin < b) segs_[i++].end = b;
    std::size_t j = i;
    while (j < segs_.size() && segs_[j].end <= e) ++j;
    if (j < segs_.size() && segs_[j].begin < e) segs_[j].begin = e;
    segs_.erase(segs_.begin() + static_cast<std::ptrdiff_t>(i),
                segs_.begin() + static_cast<std::ptrdiff_t>(j));
  }

  /// Bytes [b, e) no longer hold `v`.
  void erase_value(std::int64_t b, std::int64_t e, ValueId v) {
    if (b >= e) return;
    auto [i, j] = split(b, e);
    for (std::size_t k = i; k < j; ++k) segs_[k].names.erase(v);
    normalize(i, j);
  }

  /// Bytes [b, e) hold exactly `n` (nothing when `n` is empty).
  void assign(std::int64_t b, std::int64_t e, const Names& n) {
    if (b >= e) return;
    auto [i, j] = split(b, e);
    if (n.empty()) {
      segs_.erase(segs_.begin() + static_cast<std::ptrdiff_t>(i),
                  segs_.begin() + static_cast<std::ptrdiff_t>(j));
      return;  // gaps on both sides: nothing to join
    }
    if (i == j) {
      segs_.insert(segs_.begin() + static_cast<std::ptrdiff_t>(i), Segment{b, e, n});
    } else {
      segs_[i] = Segment{b, e, n};
      segs_.erase(segs_.begin() + static_cast<std::ptrdiff_t>(i) + 1,
                  segs_.begin() + static_cast<std::ptrdiff_t>(j));
    }
    normalize(i, i + 1);
  }

  /// Bytes [b, e) also hold `n`.
  void add(std::int64_t b, std::int64_t e, const Names& n) {
    if (b >= e || n.empty()) return;
    auto [i, j] = split(b, e);
    if (i == j) {  // nothing there yet: one new segment
      segs_.insert(segs_.begin() + static_cast<std::ptrdiff_t>(i), Segment{b, e, n});
      normalize(i, i + 1);
      return;
    }
    // Fill the gaps of [b, e) between the segments i..j with `n`, merge `n` into those.
    std::vector<Segment> mid;
    mid.reserve(2 * (j - i) + 1);
    std::int64_t at = b;
    for (std::size_t k = i; k < j; ++k) {
      if (segs_[k].begin > at) mid.push_back(Segment{at, segs_[k].begin, n});
      mid.push_back(std::move(segs_[k]));
      mid.back().names.merge(n);
      at = mid.back().end;
    }
    if (at < e) mid.push_back(Segment{at, e, n});
    if (mid.size() == j - i) {
      std::move(mid.begin(), mid.end(), segs_.begin() + static_cast<std::ptrdiff_t>(i));
    } else {
      segs_.erase(segs_.begin() + static_cast<std::ptrdiff_t>(i),
                  segs_.begin() + static_cast<std::ptrdiff_t>(j));
      segs_.insert(segs_.begin() + static_cast<std::ptrdiff_t>(i), std::make_move_iterator(mid.begin()),
                   std::make_move_iterator(mid.end()));
    }
    normalize(i, i + mid.size());
  }

  /// A byte holds a value in the result when it does in both.
  [[nodiscard]] static ByteMap meet(const ByteMap& a, const ByteMap& b) {
    ByteMap m;
    auto x = a.segs_.begin(), y = b.segs_.begin();
    while (x != a.segs_.end() && y != b.segs_.end()) {
      const std::int64_t lo = std::max(x->begin, y->begin), hi = std::min(x->end, y->end);
      if (lo < hi) {
        Names common = Names::common(x->names, y->names);
        if (!common.empty()) {
          if (!m.segs_.empty() && m.segs_.back().end == lo && m.segs_.back().names == common)
            m.segs_.back().end = hi;
          else
            m.segs_.push_back(Segment{lo, hi, std::move(common)});
        }
      }
      if (x->end < y->end)
        ++x;
      else
        ++y;
    }
    return m;
  }

  friend bool operator==(const ByteMap& a, const ByteMap& b) noexcept {
    return std::equal(a.segs_.begin(), a.segs_.end(), b.segs_.begin(), b.segs_.end(),
                      [](const Segment& x, const Segment& y) {
                        return x.begin == y.begin && x.end == y.end && x.names == y.names;
                      });
  }

 private:
  /// The first segment ending after byte `b`.
  [[nodiscard]] std::vector<Segment>::const_iterator first_after(std::int64_t b) const {
    return std::upper_bound(segs_.begin(), segs_.end(), b,
                            [](std::int64_t x, const Segment& s) { return x < s.end; });
  }
  /// Splits the segments crossing b or e; returns the index range of the
  /// segments inside [b, e).
  std::pair<std::size_t, std::size_t> split(std::int64_t b, std::int64_t e) {
    auto i = static_cast<std::size_t>(first_after(b) - segs_.begin());
    if (i < segs_.size() && segs_[i].begin < b) {
      Segment right{b, segs_[i].end, segs_[i].names};
      segs_[i].end = b;
      segs_.insert(segs_.begin() + static_cast<std::ptrdiff_t>(++i), std::move(right));
    }
    std::size_t j = i;
    while (j < segs_.size() && segs_[j].end <= e) ++j;
    if (j < segs_.size() && segs_[j].begin < e) {
      Segment right{e, segs_[j].end, segs_[j].names};
      segs_[j].end = e;
      segs_.insert(segs_.begin() + static_cast<std::ptrdiff_t>(++j), std::move(right));
    }
    return {i, j};
  }
  /// Restores the invariant around segments [i, j) (and their neighbours):
  /// no empty segment, touching segments with equal values joined.
  void normalize(std::size_t i, std::size_t j) {
    std::size_t lo = i > 0 ? i - 1 : 0, hi = std::min(j + 1, segs_.size());
    std::size_t out = lo;
    for (std::size_t k = lo; k < hi; ++k) {
      if (segs_[k].names.empty()) continue;
      if (out > lo && segs_[out - 1].end == segs_[k].begin && segs_[out - 1].names == segs_[k].names) {
        segs_[out - 1].end = segs_[k].end;
        continue;
      }
      if (out != k) segs_[out] = std::move(segs_[k]);
      ++out;
    }
    segs_.erase(segs_.begin() + static_cast<std::ptrdiff_t>(out),
                segs_.begin() + static_cast<std::ptrdiff_t>(hi));
  }

  std::vector<Segment> segs_;
};

/// A storage region: a space (base null, slot empty), a base of a space, or a
/// run-time slot window of a base (slot = the slot expression's key).
struct RegionKey {
  MemorySpace space = MemorySpace::Vec;
  const Var* base = nullptr;
  std::string slot;
  friend auto operator<=>(const RegionKey&, const RegionKey&) = default;
  friend bool operator==(const RegionKey&, const RegionKey&) = default;
  [[nodiscard]] bool is_virtual() const noexcept { return !slot.empty(); }
};

/// Where a tile value's bytes are: [begin, end) of `region`. A virtual
/// region also names the physical bytes it may occupy (`footprint`).
struct Window {
  RegionKey region;
  std::int64_t begin = 0, end = 0;
  RegionKey physical;                         ///< for a virtual region: the region its slots live in
  std::int64_t foot_begin = 0, foot_end = 0;  ///< and the allocation's bytes there
};

/// The first byte of a window that does not hold a value, and what it holds.
struct Missing {
  std::int64_t byte = 0;
  Names holds;
};

/// Where a virtual region's slots may lie in physical storage.
struct Footprint {
  RegionKey region;
  std::int64_t begin = 0, end = 0;
};
using Footprints = std::map<RegionKey, Footprint>;

/// The byte facts at one program point. A state is either a root (it holds
/// every region) or a *fork* of a parent state: it holds only the regions
/// it changed (a removed region as an explicit "nothing here") and reads
/// the others through its parent. An if-arm, a loop iteration or the
/// parallel copy of a yield works on a fork and is merged back, so its cost
/// is the regions it touches, not the whole store (a kernel under PTOAS has
/// one region per allocation). A parent must outlive its forks and must not
/// change while they are in use.
class StorageState {
 public:
  /// `feet`: the footprint of every virtual region (a static fact of the
  /// program, shared by all states of one function; filled as windows are met).
  explicit StorageState(std::shared_ptr<const Footprints> feet) : feet_(std::move(feet)) {}
  StorageState(const StorageState&) = delete;
  StorageState& operator=(const StorageState&) = delete;
  StorageState(StorageState&&) = default;
  StorageState& operator=(StorageState&&) = default;

  /// A state equal to this one that records its own changes.
  [[nodiscard]] StorageState fork() const {
    StorageState f(feet_);
    f.parent_ = this;
    return f;
  }

  /// Takes over the changes of `child`, a fork of this state.
  void absorb(StorageState&& child) {
    for (auto& [key, m] : child.own_) {
      if (m)
        set(key, std::move(*m));
      else
        drop(key);
    }
    child.own_.clear();
    child.virtual_.clear();
  }

  /// `v` is written over `w`: every value on bytes `w` may touch is gone.
  void write(const Window& w, ValueId v) {
    if (w.region.is_virtual()) {
      clobber(w);
      edit(w.region).add(w.begin, w.end, Names{v});
      return;
    }
    // clobber(w) then add, in one edit of the region.
    forget_virtual(w.region, w.begin, w.end, nullptr);
    edit(w.region).assign(w.begin, w.end, Names{v});
  }

  /// Bytes `w` may touch lose every value (a scratch operand, an unknown write).
  void clobber(const Window& w) {
    if (w.region.is_virtual()) {
      erase(w.physical, w.foot_begin, w.foot_end, nullptr);
      erase(w.region, w.begin, w.end, nullptr);
      forget_virtual(w.physical, w.foot_begin, w.foot_end, &w.region);
    } else {
      erase(w.region, w.begin, w.end, nullptr);
      forget_virtual(w.region, w.begin, w.end, nullptr);
    }
  }

  /// `v` now also names every byte of `w` that holds `src` (a view, an alias,
  /// a phi or loop result taking a value, an iter-arg at loop entry).
  void add_where(const Window& w, ValueId src, ValueId v) {
    const ByteMap* m = find(w.region);
    if (!m) return;
    std::vector<std::pair<std::int64_t, std::int64_t>> where;
    auto [lo, hi] = m->overlapping(w.begin, w.end);
    for (auto s = lo; s != hi; ++s)
      if (s->names.count(src)) where.emplace_back(std::max(s->begin, w.begin), std::min(s->end, w.end));
    if (where.empty()) return;
    ByteMap& e = edit(w.region);
    for (const auto& [b, x] : where) e.add(b, x, Names{v});
  }

  /// A view `v` at a run-time offset (virtual window `w`) of a value `src`
  /// on physical bytes `src_w`: wherever the run-time offset puts it inside
  /// its allocation's footprint, it denotes bytes of `src` when `src` holds
  /// every byte of that footprint. Then `v` names its whole virtual window.
  void add_virtual_view(const Window& w, const Window& src_w, ValueId src, ValueId v) {
    if (!w.region.is_virtual() || src_w.region.is_virtual() || w.physical != src_w.region) return;
    if (w.foot_begin < src_w.begin || w.foot_end > src_w.end) return;
    Window foot;
    foot.region = src_w.region;
    foot.begin = w.foot_begin;
    foot.end = w.foot_end;
    if (missing(foot, src)) return;
    edit(w.region).add(w.begin, w.end, Names{v});
  }

  /// Every byte of `w` holds `v` and nothing else is known there (the caller
  /// proved it: a phi's run-time window on an arm whose value is where the
  /// arm's slot puts it; what the region held before was about other slots).
  void name_whole(const Window& w, ValueId v) { edit(w.region).assign(w.begin, w.end, Names{v}); }

  /// `v` now also names every byte of `w` that held `src` in `before`.
  void add_where(const StorageState& before, const Window& w, ValueId src, ValueId v) {
    const ByteMap* m = before.find(w.region);
    if (!m) return;
    auto [lo, hi] = m->overlapping(w.begin, w.end);
    for (auto s = lo; s != hi; ++s)
      if (s->names.count(src))
        edit(w.region).add(std::max(s->begin, w.begin), std::min(s->end, w.end), Names{v});
  }

  /// `v` no longer names any byte of `w` (an iter-arg about to be re-bound).
  void remove_name(const Window& w, ValueId v) { erase(w.region, w.begin, w.end, &v); }

  /// The first byte of `w` that does not hold `v`, or nullopt.
  [[nodiscard]] std::optional<Missing> missing(const Window& w, ValueId v) const {
    const ByteMap* m = find(w.region);
    if (!m) return Missing{w.begin, {}};
    std::int64_t at = w.begin;
    auto [lo, hi] = m->overlapping(w.begin, w.end);
    for (auto s = lo; s != hi; ++s) {
      const std::int64_t first = std::max(s->begin, w.begin);
      if (first > at) return Missing{at, {}};
      if (!s->names.count(v)) return Missing{first, s->names};
      at = std::min(s->end, w.end);
    }
    if (at < w.end) return Missing{at, {}};
    return std::nullopt;
  }

  /// Meet of two paths from `base` (each of `a`, `b` is `base` or a fork of
  /// it, directly or through forks): a byte holds a value only if it does
  /// on both. The result is a fork of `base`; only the regions either path
  /// changed are compared.
  [[nodiscard]] static StorageState join(const StorageState& base, const StorageState& a,
                                         const StorageState& b) {
    StorageState out = base.fork();
    for (const RegionKey& key : changed(base, a, b)) {
      const ByteMap* ma = a.find(key);
      const ByteMap* mb = b.find(key);
      ByteMap m;
      if (ma && mb) m = ByteMap::meet(*ma, *mb);
      if (m.empty())
        out.drop(key);
      else
        out.set(key, std::move(m));
    }
    return out;
  }

  /// Whether `a` and `b` (forks of `base`, as for join) hold the same facts.
  [[nodiscard]] static bool same(const StorageState& base, const StorageState& a, const StorageState& b) {
    for (const RegionKey& key : changed(base, a, b)) {
      const ByteMap* ma = a.find(key);
      const ByteMap* mb = b.find(key);
      if (!ma || !mb ? ma != mb : !(*ma == *mb)) return false;
    }
    return true;
  }

 private:
  /// The region's bytes as this state sees them (null: nothing known).
  [[nodiscard]] const ByteMap* find(const RegionKey& key) const {
    for (const StorageState* s = this; s; s = s->parent_)
      if (auto it = s->own_.find(key); it != s->own_.end()) return it->second ? &*it->second : nullptr;
    return nullptr;
  }
  /// The region's bytes, to change here (copied from the parent on first change).
  ByteMap& edit(const RegionKey& key) {
    auto it = own_.find(key);
    if (it == own_.end()) {
      const ByteMap* up = parent_ ? parent_->find(key) : nullptr;
      it = own_.emplace(key, up ? std::optional<ByteMap>(*up) : std::optional<ByteMap>(ByteMap{})).first;
      if (key.is_virtual()) virtual_.insert(key);
    } else if (!it->second) {
      it->second.emplace();
    }
    return *it->second;
  }
  void set(const RegionKey& key, ByteMap m) {
    own_.insert_or_assign(key, std::optional<ByteMap>(std::move(m)));
    if (key.is_virtual()) virtual_.insert(key);
  }
  /// The region holds nothing here.
  void drop(const RegionKey& key) {
    if (parent_ && parent_->find(key)) {
      own_.insert_or_assign(key, std::nullopt);
      if (key.is_virtual()) virtual_.insert(key);
    } else {
      own_.erase(key);
      virtual_.erase(key);
    }
  }
  /// The regions `a` or `b` changed since `base`.
  [[nodiscard]] static std::set<RegionKey> changed(const StorageState& base, const StorageState& a,
                                                   const StorageState& b) {
    std::set<RegionKey> keys;
    a.changed_since(base, keys);
    b.changed_since(base, keys);
    return keys;
  }
  /// The regions this state (and the forks between it and `base`) changed.
  void changed_since(const StorageState& base, std::set<RegionKey>& out) const {
    for (const StorageState* s = this; s && s != &base; s = s->parent_)
      for (const auto& [key, m] : s->own_) out.insert(key);
  }

  /// Removes `only` (or every value when null) from `range` of `key`.
  void erase(const RegionKey& key, std::int64_t begin, std::int64_t end, const ValueId* only) {
    const ByteMap* m = find(key);
    if (!m || !m->intersects(begin, end)) return;
    ByteMap& e = edit(key);
    if (!only)
      e.erase(begin, end);
    else
      e.erase_value(begin, end, *only);
    if (e.empty()) drop(key);
  }

  /// Forgets every virtual region whose footprint in `physical` overlaps
  /// [begin, end), except `keep`.
  void forget_virtual(const RegionKey& physical, std::int64_t begin, std::int64_t end,
                      const RegionKey* keep) {
    std::vector<RegionKey> hit;
    for (const StorageState* s = this; s; s = s->parent_)
      for (const RegionKey& key : s->virtual_) {
        if (keep && key == *keep) continue;
        const auto f = feet_->find(key);
        // A virtual region whose footprint is unknown may be anywhere: forget it.
        if (f == feet_->end() ||
            (f->second.region == physical && f->second.begin < end && begin < f->second.end))
          hit.push_back(key);
      }
    for (const RegionKey& key : hit)
      if (find(key)) drop(key);
  }

  const StorageState* parent_ = nullptr;
  /// The regions this state holds itself (nullopt: none here, whatever the parent has).
  std::map<RegionKey, std::optional<ByteMap>> own_;
  /// The virtual regions among own_'s keys.
  std::set<RegionKey> virtual_;
  std::shared_ptr<const Footprints> feet_;
};

}  // namespace pto_mem::pypto::verify
