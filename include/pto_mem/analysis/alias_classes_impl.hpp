// The definitions behind analysis/alias_classes.hpp. Included by
// alias_classes.hpp in header-only mode; compiled once into
// pto_mem::compiled (src/planner.cpp) otherwise.
#pragma once

#include <cstddef>
#include <vector>

#include <boost/pending/disjoint_sets.hpp>

#include "pto_mem/analysis/alias_classes.hpp"

namespace pto_mem {

PTO_MEM_PLAN_INLINE AliasClasses alias_classes(const Problem& p, const ProblemIndex& index) {
  const std::size_t n = p.buffers.size();
  std::vector<std::size_t> rank(n, 0), parent(n);
  boost::disjoint_sets<std::size_t*, std::size_t*> sets(rank.data(), parent.data());
  for (std::size_t i = 0; i < n; ++i) sets.make_set(i);
  auto unite_all = [&](const std::vector<std::size_t>& members) {
    for (std::size_t k = 1; k < members.size(); ++k) sets.union_set(members[0], members[k]);
  };
  for (const auto& g : p.must_alias) {
    std::vector<std::size_t> members;
    for (const auto& m : g.members)
      if (auto i = index.buffer(m.buffer)) members.push_back(*i);
    unite_all(members);
  }
  for (const auto& d : p.declared) {
    std::vector<std::size_t> members;
    if (auto i = index.buffer(d.buffer)) members.push_back(*i);
    for (const auto& b : d.bindings)
      if (auto i = index.buffer(b.buffer)) members.push_back(*i);
    unite_all(members);
  }
  AliasClasses out;
  out.class_of.assign(n, 0);
  out.grouped.assign(n, false);
  std::vector<std::size_t> number(n, n), size(n, 0);
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t root = sets.find_set(i);
    if (number[root] == n) number[root] = out.count++;
    out.class_of[i] = number[root];
    ++size[out.class_of[i]];
  }
  for (std::size_t i = 0; i < n; ++i) out.grouped[i] = size[out.class_of[i]] > 1;
  return out;
}

PTO_MEM_PLAN_INLINE AliasClasses alias_classes(const Problem& p) { return alias_classes(p, ProblemIndex(p)); }

}  // namespace pto_mem
