// The definitions behind algorithms/alias.hpp: unify_aliases() and
// expand_placement(). Included by alias.hpp in header-only mode; compiled
// once into pto_mem::compiled (src/planner.cpp) otherwise.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <numeric>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "pto_mem/algorithms/alias.hpp"
#include "pto_mem/analysis/alias_classes.hpp"
#include "pto_mem/core/diagnostics.hpp"
#include "pto_mem/core/placement.hpp"
#include "pto_mem/core/problem.hpp"

namespace pto_mem {

namespace detail::alias {

__extension__ typedef __int128 i128;
__extension__ typedef unsigned __int128 u128;

/// x ≡ r (mod m).
struct Congruence {
  Addr r = 0;
  Addr m = 1;
};

/// Inverse of a modulo m (gcd(a, m) == 1, m >= 1).
inline Addr inverse_mod(Addr a, Addr m) {
  i128 old_r = a % m, r = m, old_s = 1, s = 0;
  while (r != 0) {
    const i128 q = old_r / r;
    std::swap(old_r, r);
    r -= q * old_r;
    std::swap(old_s, s);
    s -= q * old_s;
  }
  i128 x = old_s % static_cast<i128>(m);
  if (x < 0) x += m;
  return static_cast<Addr>(x);
}

enum class MergeError { none, no_solution, too_large };

/// Both congruences at once (Chinese remainder theorem, any moduli).
inline MergeError merge(Congruence& a, const Congruence& b) {
  const Addr g = std::gcd(a.m, b.m);
  if (a.r % g != b.r % g) return MergeError::no_solution;
  const auto lcm = checked_mul(a.m / g, b.m);
  if (!lcm) return MergeError::too_large;
  const Addr m2 = b.m / g;
  if (m2 > 1) {
    const Addr diff = static_cast<Addr>((static_cast<u128>(b.r) + b.m - a.r % b.m) % b.m) / g;
    const Addr t = static_cast<Addr>(static_cast<u128>(diff) * inverse_mod((a.m / g) % m2, m2) % m2);
    a.r = static_cast<Addr>((static_cast<u128>(a.r) + static_cast<u128>(a.m) * t) % *lcm);
  }
  a.m = *lcm;
  return MergeError::none;
}

inline std::string quote(const std::string& s) { return "'" + s + "'"; }

}  // namespace detail::alias

PTO_MEM_PLAN_INLINE AliasUnification unify_aliases(const Problem& p, const UnifyOptions& options) {
  using detail::alias::i128;
  using detail::alias::quote;
  AliasUnification out;
  const std::size_t n = p.buffers.size();
  out.allocation_of.resize(n);
  out.member_offset.assign(n, 0);

  if (p.must_alias.empty() && p.declared.empty()) {
    out.problem = p;
    if (!p.separations.empty()) {  // drop the vacuous ones (two arenas)
      const ProblemIndex index(p);
      std::erase_if(out.problem.separations, [&](const Separation& s) {
        const auto a = index.buffer(s.a), b = index.buffer(s.b);
        return a && b && p.buffers[*a].arena != p.buffers[*b].arena;
      });
    }
    out.members.resize(n);
    for (std::size_t i = 0; i < n; ++i) {
      out.allocation_of[i] = i;
      out.members[i] = {i};
    }
    out.closed.assign(n, false);
    return out;
  }

  const ProblemIndex index(p);
  const AliasClasses classes = alias_classes(p, index);
  const std::size_t na = classes.count;
  auto err = [&](std::string m) { out.diagnostics.push_back(error(std::move(m))); };

  // A bipartite graph: buffers (0..n) and anchors (n..) with an edge "member
  // sits `offset` above anchor". A must-alias group is an anchor; a
  // declaration's anchor is the declaration buffer itself.
  struct Edge {
    std::size_t to;
    Addr offset;
    bool up;  // true: `to` sits above this node; false: this node sits above `to`
  };
  std::vector<std::vector<Edge>> adj(n + p.must_alias.size());
  std::vector<std::string> anchor_name(p.must_alias.size());
  auto link = [&](std::size_t anchor, std::size_t member, Addr offset) {
    adj[anchor].push_back({member, offset, true});
    adj[member].push_back({anchor, offset, false});
  };
  for (std::size_t g = 0; g < p.must_alias.size(); ++g) {
    anchor_name[g] = "must-alias group " + std::to_string(g);
    for (const auto& m : p.must_alias[g].members)
      if (auto i = index.buffer(m.buffer)) link(n + g, *i, m.offset);
  }
  std::vector<std::size_t> declaration_of(na, n);  // a declared buffer per allocation, n = none
  for (const auto& d : p.declared) {
    const auto di = index.buffer(d.buffer);
    if (!di) continue;
    const std::size_t a = classes.class_of[*di];
    if (declaration_of[a] == n || *di < declaration_of[a]) declaration_of[a] = *di;
    for (const auto& b : d.bindings) {
      const auto bi = index.buffer(b.buffer);
      if (!bi) continue;
      const Addr at = b.slot ? checked_mul(*b.slot, d.slot_size).value_or(max_addr) : 0;
      link(*di, *bi, at);
    }
  }

  // Positions within each class, relative to its first member (signed: a
  // group may start below it).
  std::vector<std::optional<i128>> pos(adj.size());
  out.members.resize(na);
  for (std::size_t i = 0; i < n; ++i) out.members[classes.class_of[i]].push_back(i);
  std::vector<std::vector<std::size_t>> anchors(na);  // group anchors per class
  std::vector<bool> broken(na, false);
  for (std::size_t a = 0; a < na; ++a) {
    const std::size_t root = out.members[a].front();
    pos[root] = 0;
    std::vector<std::size_t> stack{root};
    while (!stack.empty() && !broken[a]) {
      const std::size_t v = stack.back();
      stack.pop_back();
      for (const auto& e : adj[v]) {
        const i128 want = e.up ? *pos[v] + e.offset : *pos[v] - static_cast<i128>(e.offset);
        if (!pos[e.to]) {
          pos[e.to] = want;
          stack.push_back(e.to);
          if (e.to >= n) anchors[a].push_back(e.to);
          continue;
        }
        if (*pos[e.to] == want) continue;
        // Two paths put one buffer at two offsets: name it and the anchor
        // (group or declaration) that disagrees.
        const std::size_t anchor = e.up ? v : e.to;
        const std::string where =
            anchor >= n ? anchor_name[anchor - n]
                        : "declared allocation " + quote(buffer_label(p, static_cast<BufferId>(anchor)));
        const std::size_t who = e.to < n ? e.to : v;
        const i128 first = e.to < n ? *pos[e.to] : *pos[v];
        const i128 second = e.to < n ? want : *pos[e.to] + e.offset;
        auto text = [](i128 x) {
          std::string t = std::to_string(static_cast<unsigned long long>(x < 0 ? -x : x));
          if (x < 0) t.insert(t.begin(), '-');
          return t;
        };
        err("buffer " + quote(buffer_label(p, static_cast<BufferId>(who))) +
            " is placed at two different offsets relative to " +
            quote(buffer_label(p, static_cast<BufferId>(root))) + " (" + text(first) + " and " +
            text(second) + " bytes) by " + where +
            " and the other aliases of its allocation; one buffer has one address, so fix the member "
            "offsets");
        broken[a] = true;
        break;
      }
    }
  }

  // Geometry of each allocation.
  out.problem.arenas = p.arenas;
  out.problem.buffers.resize(na);
  out.closed.assign(na, false);
  for (std::size_t a = 0; a < na; ++a) {
    const auto& ms = out.members[a];
    const std::size_t rep = declaration_of[a] != n ? declaration_of[a] : ms.front();
    BufferSpec& s = out.problem.buffers[a];
    s.name = buffer_label(p, static_cast<BufferId>(rep));
    s.arena = p.buffers[rep].arena;
    s.lifetime = p.buffers[ms.front()].lifetime;
    for (std::size_t i : ms) {
      s.lifetime.begin = std::min(s.lifetime.begin, p.buffers[i].lifetime.begin);
      s.lifetime.end = std::max(s.lifetime.end, p.buffers[i].lifetime.end);
    }
    out.closed[a] = declaration_of[a] != n;
    if (ms.size() == 1) {
      s.size = p.buffers[rep].size;
      s.alignment = p.buffers[rep].alignment;
      out.allocation_of[rep] = a;
      continue;
    }
    for (std::size_t i : ms) out.allocation_of[i] = a;
    if (broken[a]) {
      s.size = p.buffers[rep].size;
      s.alignment = std::max<Addr>(p.buffers[rep].alignment, 1);
      continue;
    }
    i128 low = 0;
    for (std::size_t i : ms) low = std::min(low, *pos[i]);
    for (std::size_t g : anchors[a]) low = std::min(low, *pos[g]);
    detail::alias::Congruence start{0, 1};  // where the lowest point may sit
    bool fits = true;
    i128 high = 0;
    for (std::size_t i : ms) {
      const i128 rel = *pos[i] - low;
      const i128 end = rel + p.buffers[i].size;
      if (end > static_cast<i128>(max_addr)) {
        err("buffer " + quote(buffer_label(p, static_cast<BufferId>(i))) +
            " ends more than 2^64 bytes above the start of the allocation of " + quote(s.name) +
            "; check the member offsets");
        fits = false;
        break;
      }
      high = std::max(high, end);
      const Addr align = std::max<Addr>(p.buffers[i].alignment, 1);
      const Addr r = static_cast<Addr>(rel % align);
      const detail::alias::Congruence c{r == 0 ? 0 : align - r, align};
      const auto e = detail::alias::merge(start, c);
      if (e == detail::alias::MergeError::none) continue;
      fits = false;
      if (e == detail::alias::MergeError::too_large) {
        err("the allocation of " + quote(s.name) +
            " would need an alignment above 2^64 to align every member (" +
            quote(buffer_label(p, static_cast<BufferId>(i))) + " adds alignment " + std::to_string(align) +
            ")");
        break;
      }
      // Name a member whose alignment contradicts this one.
      std::string other;
      for (std::size_t j : ms) {
        if (j == i) continue;
        const Addr aj = std::max<Addr>(p.buffers[j].alignment, 1);
        const Addr g = std::gcd(align, aj);
        const Addr rj = static_cast<Addr>((*pos[j] - low) % aj);
        if ((r % g) != (rj % g)) {
          other = buffer_label(p, static_cast<BufferId>(j));
          break;
        }
      }
      err("must-alias members " + quote(other.empty() ? s.name : other) + " and " +
          quote(buffer_label(p, static_cast<BufferId>(i))) +
          " cannot both be aligned: their offsets differ by a non-multiple of the alignments they share; "
          "change a member offset or an alignment");
      break;
    }
    if (!fits) {
      s.size = p.buffers[rep].size;
      s.alignment = std::max<Addr>(p.buffers[rep].alignment, 1);
      continue;
    }
    // The lowest point sits at start.r above a multiple of start.m: the
    // allocation begins at that multiple and carries start.r leading bytes.
    const i128 size = high + start.r;
    if (size > static_cast<i128>(max_addr)) {
      err("the allocation of " + quote(s.name) + " needs more than 2^64 bytes");
      continue;
    }
    s.size = static_cast<Addr>(size);
    s.alignment = start.m;
    for (std::size_t i : ms) out.member_offset[i] = static_cast<Addr>(*pos[i] - low + start.r);
  }

  // Two declarations in one allocation must not overlap each other.
  {
    std::map<std::size_t, std::vector<std::size_t>> declared_in;
    for (const auto& d : p.declared)
      if (auto di = index.buffer(d.buffer)) declared_in[out.allocation_of[*di]].push_back(*di);
    for (auto& [a, ds] : declared_in) {
      std::sort(ds.begin(), ds.end());
      ds.erase(std::unique(ds.begin(), ds.end()), ds.end());
      for (std::size_t x = 0; x < ds.size(); ++x)
        for (std::size_t y = x + 1; y < ds.size(); ++y) {
          const auto& bx = p.buffers[ds[x]];
          const auto& by = p.buffers[ds[y]];
          const Addr ox = out.member_offset[ds[x]], oy = out.member_offset[ds[y]];
          if (overlaps(AddrRange{ox, ox + bx.size}, AddrRange{oy, oy + by.size}))
            err("declared allocations " + quote(buffer_label(p, static_cast<BufferId>(ds[x]))) + " and " +
                quote(buffer_label(p, static_cast<BufferId>(ds[y]))) +
                " are joined into one allocation and overlap; each declaration needs bytes of its own");
        }
    }
  }

  // Separations.
  std::map<std::pair<std::size_t, std::size_t>, std::uint8_t> separated;
  for (const auto& sep : p.separations) {
    const auto ia = index.buffer(sep.a);
    const auto ib = index.buffer(sep.b);
    if (!ia || !ib || p.buffers[*ia].arena != p.buffers[*ib].arena) continue;  // two arenas: vacuous
    const std::size_t a = out.allocation_of[*ia], b = out.allocation_of[*ib];
    if (a == b) {
      if (*ia != *ib)
        err("separation (" + quote(buffer_label(p, sep.a)) + ", " + quote(buffer_label(p, sep.b)) +
            ") joins two buffers that must alias (one allocation); drop the separation or the alias");
      continue;
    }
    separated[{std::min(a, b), std::max(a, b)}] |= sep.reasons;
  }
  {
    std::map<std::int64_t, std::vector<std::size_t>> by_arena;
    for (std::size_t a = 0; a < na; ++a) by_arena[out.problem.buffers[a].arena].push_back(a);
    std::map<std::int64_t, Interval> horizon;  // of the original buffers of each arena
    for (const auto& b : p.buffers) {
      auto [it, fresh] = horizon.try_emplace(b.arena, b.lifetime);
      it->second.begin = std::min(it->second.begin, b.lifetime.begin);
      it->second.end = std::max(it->second.end, b.lifetime.end);
    }
    for (std::size_t a = 0; a < na; ++a) {
      if (!out.closed[a]) continue;
      if (!options.closed_by_separations) {
        out.problem.buffers[a].lifetime = horizon[out.problem.buffers[a].arena];
        continue;
      }
      for (std::size_t b : by_arena[out.problem.buffers[a].arena])
        if (b != a) separated[{std::min(a, b), std::max(a, b)}] |= reason_declared_allocation;
    }
  }
  out.problem.separations.reserve(separated.size());
  for (const auto& [pair, reasons] : separated)
    out.problem.separations.push_back(
        {static_cast<BufferId>(pair.first), static_cast<BufferId>(pair.second), reasons});

  // Penalties.
  std::map<std::pair<std::size_t, std::size_t>, Weight> priced;
  for (const auto& pen : p.penalties) {
    const auto ia = index.buffer(pen.a);
    const auto ib = index.buffer(pen.b);
    if (!ia || !ib) continue;
    const std::size_t a = out.allocation_of[*ia], b = out.allocation_of[*ib];
    if (a == b || interferes(out.problem.buffers[a].lifetime, out.problem.buffers[b].lifetime)) continue;
    auto& w = priced[{std::min(a, b), std::max(a, b)}];
    w = saturating_add(w, pen.weight);
  }
  for (const auto& [pair, w] : priced)
    if (w != 0)
      out.problem.penalties.push_back(
          {static_cast<BufferId>(pair.first), static_cast<BufferId>(pair.second), w});
  return out;
}

PTO_MEM_PLAN_INLINE Placement expand_placement(const AliasUnification& u, const Placement& reduced) {
  Placement out;
  out.offsets.resize(u.allocation_of.size());
  for (std::size_t i = 0; i < u.allocation_of.size(); ++i) {
    const std::size_t a = u.allocation_of[i];
    if (a < reduced.offsets.size() && reduced.offsets[a])
      out.offsets[i] = checked_add(*reduced.offsets[a], u.member_offset[i]);
  }
  return out;
}

}  // namespace pto_mem
