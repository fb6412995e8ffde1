// The abstract store of the tile-storage verifier: for every byte of every
// storage region, the set of SSA values that byte *definitely* holds (a
// must-analysis). A region is a memory space (absolute addresses, after
// PYPTO / DSA_RP placement) or one allocation base of a space (relative
// offsets, PTOAS), plus "virtual" regions for windows at a run-time slot of a
// declared allocation (`base + i % 2 * 16384`): such a window is tracked on
// its own, keyed by the slot expression, and any write that may touch its
// allocation's footprint forgets it.
//
// Shares no code with the passes (pypto/passes/): it is their independent check.
#pragma once

#include <boost/icl/interval_map.hpp>

#include <algorithm>
#include <compare>
#include <cstdint>
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
/// The values a byte definitely holds.
using Names = std::set<ValueId>;
using ByteMap = boost::icl::interval_map<std::int64_t, Names>;
using ByteRange = boost::icl::discrete_interval<std::int64_t>;

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
  RegionKey physical;                        ///< for a virtual region: the region its slots live in
  std::int64_t foot_begin = 0, foot_end = 0; ///< and the allocation's bytes there
  [[nodiscard]] ByteRange range() const { return ByteRange::right_open(begin, end); }
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
      if (m) set(key, std::move(*m));
      else drop(key);
    }
    child.own_.clear();
    child.virtual_.clear();
  }

  /// `v` is written over `w`: every value on bytes `w` may touch is gone.
  void write(const Window& w, ValueId v) {
    clobber(w);
    edit(w.region).add(std::make_pair(w.range(), Names{v}));
  }

  /// Bytes `w` may touch lose every value (a scratch operand, an unknown write).
  void clobber(const Window& w) {
    if (w.region.is_virtual()) {
      erase(w.physical, ByteRange::right_open(w.foot_begin, w.foot_end), nullptr);
      erase(w.region, w.range(), nullptr);
      forget_virtual(w.physical, w.foot_begin, w.foot_end, &w.region);
    } else {
      erase(w.region, w.range(), nullptr);
      forget_virtual(w.region, w.begin, w.end, nullptr);
    }
  }

  /// `v` now also names every byte of `w` that holds `src` (a view, an alias,
  /// a phi or loop result taking a value, an iter-arg at loop entry).
  void add_where(const Window& w, ValueId src, ValueId v) {
    const ByteMap* m = find(w.region);
    if (!m) return;
    std::vector<ByteRange> where;
    auto [lo, hi] = m->equal_range(w.range());
    for (auto s = lo; s != hi; ++s)
      if (s->second.count(src)) where.push_back(s->first & w.range());
    if (where.empty()) return;
    ByteMap& e = edit(w.region);
    for (const auto& r : where) e.add(std::make_pair(r, Names{v}));
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
    edit(w.region).add(std::make_pair(w.range(), Names{v}));
  }

  /// Every byte of `w` holds `v` and nothing else is known there (the caller
  /// proved it: a phi's run-time window on an arm whose value is where the
  /// arm's slot puts it; what the region held before was about other slots).
  void name_whole(const Window& w, ValueId v) {
    ByteMap& e = edit(w.region);
    e.erase(w.range());
    e.add(std::make_pair(w.range(), Names{v}));
  }

  /// `v` now also names every byte of `w` that held `src` in `before`.
  void add_where(const StorageState& before, const Window& w, ValueId src, ValueId v) {
    const ByteMap* m = before.find(w.region);
    if (!m) return;
    auto [lo, hi] = m->equal_range(w.range());
    for (auto s = lo; s != hi; ++s)
      if (s->second.count(src)) edit(w.region).add(std::make_pair(s->first & w.range(), Names{v}));
  }

  /// `v` no longer names any byte of `w` (an iter-arg about to be re-bound).
  void remove_name(const Window& w, ValueId v) { erase(w.region, w.range(), &v); }

  /// The first byte of `w` that does not hold `v`, or nullopt.
  [[nodiscard]] std::optional<Missing> missing(const Window& w, ValueId v) const {
    const ByteMap* m = find(w.region);
    if (!m) return Missing{w.begin, {}};
    std::int64_t at = w.begin;
    auto [lo, hi] = m->equal_range(w.range());
    for (auto s = lo; s != hi; ++s) {
      const auto first = boost::icl::first(s->first & w.range());
      if (first > at) return Missing{at, {}};
      if (!s->second.count(v)) return Missing{first, s->second};
      at = boost::icl::last(s->first & w.range()) + 1;
    }
    if (at < w.end) return Missing{at, {}};
    return std::nullopt;
  }

  /// Meet of two paths from `base` (each of `a`, `b` is `base` or a fork of
  /// it, directly or through forks): a byte holds a value only if it does
  /// on both. The result is a fork of `base`; only the regions either path
  /// changed are compared.
  [[nodiscard]] static StorageState join(const StorageState& base, const StorageState& a, const StorageState& b) {
    StorageState out = base.fork();
    for (const RegionKey& key : changed(base, a, b)) {
      const ByteMap* ma = a.find(key);
      const ByteMap* mb = b.find(key);
      ByteMap m;
      if (ma && mb) m = meet(*ma, *mb);
      if (m.empty()) out.drop(key);
      else out.set(key, std::move(m));
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
  [[nodiscard]] static ByteMap meet(const ByteMap& ma, const ByteMap& mb) {
    ByteMap m;
    auto x = ma.begin(), y = mb.begin();
    while (x != ma.end() && y != mb.end()) {
      const auto both = x->first & y->first;
      if (!boost::icl::is_empty(both)) {
        Names common;
        std::set_intersection(x->second.begin(), x->second.end(), y->second.begin(), y->second.end(),
                              std::inserter(common, common.end()));
        if (!common.empty()) m.add(std::make_pair(both, std::move(common)));
      }
      if (boost::icl::upper(x->first) < boost::icl::upper(y->first))
        ++x;
      else
        ++y;
    }
    return m;
  }

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
  void erase(const RegionKey& key, const ByteRange& range, const ValueId* only) {
    const ByteMap* m = find(key);
    if (!m || !boost::icl::intersects(*m, range)) return;
    ByteMap& e = edit(key);
    if (!only) {
      e.erase(range);
    } else {
      std::vector<std::pair<ByteRange, Names>> keep;
      auto [lo, hi] = e.equal_range(range);
      for (auto s = lo; s != hi; ++s) {
        Names n = s->second;
        n.erase(*only);
        if (!n.empty()) keep.emplace_back(s->first & range, std::move(n));
      }
      e.erase(range);
      for (auto& k : keep) e.add(std::move(k));
    }
    if (e.empty()) drop(key);
  }

  /// Forgets every virtual region whose footprint in `physical` overlaps
  /// [begin, end), except `keep`.
  void forget_virtual(const RegionKey& physical, std::int64_t begin, std::int64_t end, const RegionKey* keep) {
    std::vector<RegionKey> hit;
    for (const StorageState* s = this; s; s = s->parent_)
      for (const RegionKey& key : s->virtual_) {
        if (keep && key == *keep) continue;
        const auto f = feet_->find(key);
        // A virtual region whose footprint is unknown may be anywhere: forget it.
        if (f == feet_->end() || (f->second.region == physical && f->second.begin < end && begin < f->second.end))
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
