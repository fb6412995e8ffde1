// Statement paths of an index stored flat: the indexes of the storage
// passes (DefSites, UseIndex) record the chain of enclosing statements of
// every definition and read. One vector per path was one allocation per
// statement on every index build; here all paths share one array, and
// consecutive records with the same path share its entries.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "pto_mem/pypto/ir/visitor.hpp"

namespace pto_mem::pypto::passes {

class PathPool {
 public:
  /// Where a path lies in the pool (stable while the pool grows).
  struct Handle {
    std::uint32_t offset = 0;
    std::uint32_t size = 0;
  };

  /// Stores `path` (or finds it as the last path stored).
  Handle intern(StmtPath path) {
    if (have_last_ && last_.size == path.size() &&
        std::equal(
            path.begin(), path.end(), entries_.begin() + last_.offset,
            [](const PathEntry& a, const PathEntry& b) { return a.stmt == b.stmt && a.child == b.child; }))
      return last_;
    last_ = Handle{static_cast<std::uint32_t>(entries_.size()), static_cast<std::uint32_t>(path.size())};
    have_last_ = true;
    // push_back per entry: a path is one to a few entries, and vector's
    // range insert was a call of ~150 instructions per path.
    for (const PathEntry& e : path) entries_.push_back(e);
    return last_;
  }

  /// The path of `h`; valid until the next intern.
  [[nodiscard]] StmtPath operator[](Handle h) const noexcept { return {entries_.data() + h.offset, h.size}; }

  void reserve(std::size_t entries) { entries_.reserve(entries); }

 private:
  std::vector<PathEntry> entries_;
  Handle last_;
  bool have_last_ = false;
};

}  // namespace pto_mem::pypto::passes
