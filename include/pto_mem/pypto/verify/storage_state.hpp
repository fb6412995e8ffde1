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

class StorageState {
 public:
  /// `feet`: the footprint of every virtual region (a static fact of the
  /// program, shared by all states of one function; filled as windows are met).
  explicit StorageState(std::shared_ptr<const Footprints> feet) : feet_(std::move(feet)) {}

  /// `v` is written over `w`: every value on bytes `w` may touch is gone.
  void write(const Window& w, ValueId v) {
    clobber(w);
    maps_[w.region].add(std::make_pair(w.range(), Names{v}));
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
    auto it = maps_.find(w.region);
    if (it == maps_.end()) return;
    std::vector<ByteRange> where;
    auto [lo, hi] = it->second.equal_range(w.range());
    for (auto s = lo; s != hi; ++s)
      if (s->second.count(src)) where.push_back(s->first & w.range());
    for (const auto& r : where) it->second.add(std::make_pair(r, Names{v}));
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
    maps_[w.region].add(std::make_pair(w.range(), Names{v}));
  }

  /// `v` now also names every byte of `w` that held `src` in `before`.
  void add_where(const StorageState& before, const Window& w, ValueId src, ValueId v) {
    auto it = before.maps_.find(w.region);
    if (it == before.maps_.end()) return;
    auto [lo, hi] = it->second.equal_range(w.range());
    for (auto s = lo; s != hi; ++s)
      if (s->second.count(src)) maps_[w.region].add(std::make_pair(s->first & w.range(), Names{v}));
  }

  /// `v` no longer names any byte of `w` (an iter-arg about to be re-bound).
  void remove_name(const Window& w, ValueId v) { erase(w.region, w.range(), &v); }

  /// The first byte of `w` that does not hold `v`, or nullopt.
  [[nodiscard]] std::optional<Missing> missing(const Window& w, ValueId v) const {
    auto it = maps_.find(w.region);
    if (it == maps_.end()) return Missing{w.begin, {}};
    std::int64_t at = w.begin;
    auto [lo, hi] = it->second.equal_range(w.range());
    for (auto s = lo; s != hi; ++s) {
      const auto first = boost::icl::first(s->first & w.range());
      if (first > at) return Missing{at, {}};
      if (!s->second.count(v)) return Missing{first, s->second};
      at = boost::icl::last(s->first & w.range()) + 1;
    }
    if (at < w.end) return Missing{at, {}};
    return std::nullopt;
  }

  /// Meet of two paths: a byte holds a value only if it does on both.
  [[nodiscard]] static StorageState join(const StorageState& a, const StorageState& b) {
    StorageState out(a.feet_);
    for (const auto& [key, ma] : a.maps_) {
      auto jt = b.maps_.find(key);
      if (jt == b.maps_.end()) continue;
      ByteMap m;
      auto x = ma.begin(), y = jt->second.begin();
      while (x != ma.end() && y != jt->second.end()) {
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
      if (!m.empty()) out.maps_.emplace(key, std::move(m));
    }
    return out;
  }

  friend bool operator==(const StorageState& a, const StorageState& b) { return a.maps_ == b.maps_; }

 private:
  /// Removes `only` (or every value when null) from `range` of `key`.
  void erase(const RegionKey& key, const ByteRange& range, const ValueId* only) {
    auto it = maps_.find(key);
    if (it == maps_.end()) return;
    if (!only) {
      it->second.erase(range);
    } else {
      std::vector<std::pair<ByteRange, Names>> keep;
      auto [lo, hi] = it->second.equal_range(range);
      for (auto s = lo; s != hi; ++s) {
        Names n = s->second;
        n.erase(*only);
        if (!n.empty()) keep.emplace_back(s->first & range, std::move(n));
      }
      it->second.erase(range);
      for (auto& k : keep) it->second.add(std::move(k));
    }
    if (it->second.empty()) maps_.erase(it);
  }

  /// Forgets every virtual region whose footprint in `physical` overlaps
  /// [begin, end), except `keep`.
  void forget_virtual(const RegionKey& physical, std::int64_t begin, std::int64_t end, const RegionKey* keep) {
    for (auto it = maps_.begin(); it != maps_.end();) {
      bool hit = false;
      if (it->first.is_virtual() && (!keep || it->first != *keep)) {
        const auto f = feet_->find(it->first);
        // A virtual region whose footprint is unknown may be anywhere: forget it.
        hit = f == feet_->end() ||
              (f->second.region == physical && f->second.begin < end && begin < f->second.end);
      }
      it = hit ? maps_.erase(it) : std::next(it);
    }
  }

  std::map<RegionKey, ByteMap> maps_;
  std::shared_ptr<const Footprints> feet_;
};

}  // namespace pto_mem::pypto::verify
