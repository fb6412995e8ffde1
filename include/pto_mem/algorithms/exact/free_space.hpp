// The usable bytes of one arena under a capacity: [0, capacity) minus the
// reserved windows. It answers the one question every canonical placement
// asks: "the lowest aligned offset at or above h where `size` bytes fit
// without touching a reserved window" -- and how many usable bytes lie above
// a height (for the remaining-capacity bounds).
#pragma once

#include <algorithm>
#include <optional>
#include <vector>

#include "pto_mem/core/numeric.hpp"
#include "pto_mem/core/problem.hpp"  // window_union

namespace pto_mem::exact {

class FreeSpace {
 public:
  FreeSpace() = default;
  /// `reserved` may be unsorted and overlapping; empty windows are dropped.
  FreeSpace(Addr capacity, const std::vector<AddrRange>& reserved)
      : capacity_(capacity), windows_(window_union(reserved)) {}

  [[nodiscard]] Addr capacity() const noexcept { return capacity_; }
  [[nodiscard]] bool has_windows() const noexcept { return !windows_.empty(); }
  [[nodiscard]] const std::vector<AddrRange>& windows() const noexcept { return windows_; }

  /// The same windows under another capacity (the peak probes of minimisation).
  [[nodiscard]] FreeSpace with_capacity(Addr capacity) const {
    FreeSpace f = *this;
    f.capacity_ = capacity;
    return f;
  }

  /// Lowest x >= h with x % alignment == 0, [x, x + size) inside the capacity
  /// and clear of every window; nullopt when there is none. The answer is
  /// align_up(h) or align_up(end of a window), never anything else.
  [[nodiscard]] std::optional<Addr> lowest_fit(Addr h, Addr size, Addr alignment) const noexcept {
    const Addr x = lowest_fit_or_max(h, size, alignment);
    if (x == max_addr) return std::nullopt;
    return x;
  }

  /// lowest_fit, with max_addr for "none": the search's hot path (no
  /// std::optional round trip through memory, no division for alignment 1).
  [[nodiscard]] Addr lowest_fit_or_max(Addr h, Addr size, Addr alignment) const noexcept {
    if (windows_.empty() && alignment == 1) return h <= capacity_ && size <= capacity_ - h ? h : max_addr;
    return general_fit(h, size, alignment).value_or(max_addr);
  }

 private:
  [[nodiscard]] std::optional<Addr> general_fit(Addr h, Addr size, Addr alignment) const noexcept {
    auto x = align_up(h, alignment);
    if (!x) return std::nullopt;
    if (!windows_.empty()) {
      // First window that ends above x; later windows start later (merged, sorted).
      auto it = std::upper_bound(windows_.begin(), windows_.end(), *x,
                                 [](Addr v, const AddrRange& w) { return v < w.end; });
      for (; it != windows_.end(); ++it) {
        const auto end = checked_add(*x, size);
        if (!end) return std::nullopt;
        if (*end <= it->begin) break;  // fits below this window
        x = align_up(it->end, alignment);
        if (!x) return std::nullopt;
      }
    }
    const auto end = checked_add(*x, size);
    if (!end || *end > capacity_) return std::nullopt;
    return x;
  }

 public:
  /// Usable (unreserved) bytes in [h, capacity). Windows are few (a handful
  /// per arena), so a scan is the fast way.
  [[nodiscard]] Addr usable_above(Addr h) const noexcept {
    if (h >= capacity_) return 0;
    Addr bytes = capacity_ - h;
    for (const auto& w : windows_) {
      const Addr from = std::max(w.begin, h);
      const Addr to = std::min(w.end, capacity_);
      if (to > from) bytes -= to - from;
    }
    return bytes;
  }

 private:
  Addr capacity_ = 0;
  std::vector<AddrRange> windows_;
};

}  // namespace pto_mem::exact
