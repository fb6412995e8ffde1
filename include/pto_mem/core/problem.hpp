// The default problem model: arenas, buffers and the constraints between them.
// Every planner and the validator read this; make_problem.hpp builds one from
// a compiler's own buffer types through the concepts.
#pragma once

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "pto_mem/core/compiled_mode.hpp"
#include "pto_mem/core/lifetime.hpp"
#include "pto_mem/core/numeric.hpp"

namespace pto_mem {

/// An independent address space with a fixed capacity.
struct Arena {
  std::int64_t id = 0;              ///< unique; buffers refer to it
  std::string name;                 ///< for reports ("Vec", "arena0"); may be empty
  Addr capacity = 0;                ///< offset + size <= capacity
  std::vector<AddrRange> reserved;  ///< windows no buffer may overlap (may overlap each other)
};

/// A buffer's identity: its position in Problem::buffers. Every constraint,
/// placement and algorithm refers to buffers by this index; names are only
/// labels for files and messages.
using BufferId = std::uint32_t;

/// A fixed offset: the buffer sits at `offset` in its arena; no planner moves
/// it. An exclusive pin also keeps every other buffer of the arena off its
/// bytes for the whole horizon, whatever the lifetimes (a region the program
/// owns outside the planned code).
struct Pin {
  Addr offset = 0;
  bool exclusive = false;
};

/// One allocation request.
struct BufferSpec {
  std::string name;        ///< label for files and messages; may be empty
                           ///< (then the index, in decimal, stands for it)
  Addr size = 0;           ///< bytes, > 0
  Addr alignment = 1;      ///< offset % alignment == 0; any positive integer
  std::int64_t arena = 0;  ///< Arena::id (with candidate_arenas: the first candidate)
  Interval lifetime;       ///< half-open [begin, end), 0 <= begin < end; with
                           ///< `live`, the hull of its intervals
  /// Optional: the buffer is live only on these half-open intervals (sorted,
  /// disjoint, none empty; their hull is `lifetime`), e.g. a value live
  /// before a loop and again after it but dead inside. Empty: live over
  /// `lifetime`.
  std::vector<Interval> live = {};
  /// Optional: a fixed offset (in `arena`).
  std::optional<Pin> pin = std::nullopt;
  /// Optional: the arenas the planner may put the buffer in, most preferred
  /// first; `arena` is the first. The chosen arena is Placement::arenas[i];
  /// the objective prefers earlier candidates before every other term.
  /// Empty: `arena` only.
  std::vector<std::int64_t> candidate_arenas = {};
};

/// A member of a must-alias group sits `offset` bytes above the group's start.
struct AliasMember {
  BufferId buffer = 0;
  Addr offset = 0;
};

/// Semantic aliases: the members are one allocation (views, in-place results,
/// loop carries). They may overlap each other; they move as a unit.
struct MustAliasGroup {
  std::vector<AliasMember> members;
};

/// Why a pair is hard-separated; only the hard-then-relaxed driver reads it.
enum SeparationReason : std::uint8_t {
  reason_explicit = 0,
  reason_semantic_no_alias = 1,
  reason_target_hazard = 2,
  reason_pipeline_stage = 4,
  reason_declared_allocation = 8,
};

/// The two buffers may never overlap in bytes, whatever their lifetimes.
struct Separation {
  BufferId a = 0, b = 0;
  std::uint8_t reasons = reason_explicit;  ///< bit set of SeparationReason
};

/// `weight` is paid when a and b (lifetime-disjoint) overlap in bytes.
struct Penalty {
  BufferId a = 0, b = 0;
  Weight weight = 1;
};

/// A buffer bound to one slot of a declared allocation; `slot` is nullopt when
/// the slot is chosen at run time.
struct SlotBinding {
  BufferId buffer = 0;
  std::optional<std::uint32_t> slot;
};

/// An author-declared allocation of `slots` equal slots. `buffer` names the
/// whole declaration (its size covers every slot). Each binding lives at
/// offset(buffer) + slot * slot_size. The declaration is closed: no buffer
/// other than its bindings may share its bytes, even when lifetimes allow.
struct DeclaredAllocation {
  BufferId buffer = 0;
  std::uint32_t slots = 1;
  Addr slot_size = 0;
  std::vector<SlotBinding> bindings;
};

/// The two buffers are never live at the same time although their intervals
/// may overlap (two exclusive branches of a conditional): they may share
/// bytes.
struct Exclusion {
  BufferId a = 0, b = 0;
};

/// An edge of an explicit conflict graph: the two buffers are live together.
struct Conflict {
  BufferId a = 0, b = 0;
};

struct Problem {
  std::vector<Arena> arenas;
  std::vector<BufferSpec> buffers;
  std::vector<MustAliasGroup> must_alias;
  std::vector<Separation> separations;
  std::vector<Penalty> penalties;
  std::vector<DeclaredAllocation> declared;
  /// Pairs that never live at once (see Exclusion).
  std::vector<Exclusion> exclusions = {};
  /// Optional: when set, two buffers are live together exactly when this
  /// list names the pair (lifetimes then only order the buffers and decide
  /// nothing about sharing), for compilers that compute liveness as a graph.
  std::optional<std::vector<Conflict>> conflict_graph = std::nullopt;
};

/// Two buffers conflict in time (must not share bytes, unless a planner may
/// choose different arenas for them) when their lifetimes overlap -- the
/// conflict graph's edge when there is one, else an overlap of their live
/// intervals -- and no exclusion separates them. A problem that uses none of
/// `live`, `pin`, `candidate_arenas`, `exclusions` or `conflict_graph` is
/// "plain": one interval per buffer, one fixed arena.
[[nodiscard]] inline bool is_plain(const Problem& p) noexcept {
  if (!p.exclusions.empty() || p.conflict_graph) return false;
  for (const auto& b : p.buffers)
    if (!b.live.empty() || b.pin || !b.candidate_arenas.empty()) return false;
  return true;
}

/// A capacity under which any placement of arena `arena_id`'s buffers fits:
/// the highest reserved end plus every buffer's aligned size and alignment
/// (saturating), counting every buffer that may go there (its arena or one
/// of its candidate arenas), and at least every pin's end there. Readers and
/// make_problem give it to an arena without a capacity, and plan() reads it
/// as "no capacity was given" (see PlanOptions::goal).
[[nodiscard]] inline Addr always_fitting_capacity(const Problem& p, std::int64_t arena_id) {
  Addr cap = 0, pins = 0;
  for (const auto& a : p.arenas)
    if (a.id == arena_id)
      for (const auto& r : a.reserved) cap = std::max(cap, r.end);
  for (const auto& b : p.buffers) {
    const bool here = b.arena == arena_id || std::find(b.candidate_arenas.begin(), b.candidate_arenas.end(),
                                                       arena_id) != b.candidate_arenas.end();
    if (!here) continue;
    const Addr align = std::max<Addr>(b.alignment, 1);
    cap = saturating_add(saturating_add(cap, align_up(b.size, align).value_or(max_addr)), align);
    if (b.pin && b.arena == arena_id) pins = std::max(pins, saturating_add(b.pin->offset, b.size));
  }
  return std::max<Addr>({cap, pins, 1});
}

/// always_fitting_capacity of every arena (by position), in one pass over
/// the buffers instead of one per arena: the same saturating sums in the
/// same order, per arena id. An arena whose capacity equals its entry here
/// has no capacity of its own (the readers' and writers' rule).
[[nodiscard]] inline std::vector<Addr> always_fitting_capacities(const Problem& p) {
  if (!is_plain(p)) {  // candidates and pins: arena by arena
    std::vector<Addr> cap;
    for (const auto& a : p.arenas) cap.push_back(always_fitting_capacity(p, a.id));
    return cap;
  }
  std::unordered_map<std::int64_t, Addr> by_id;
  for (const auto& a : p.arenas) {
    Addr& c = by_id[a.id];
    for (const auto& r : a.reserved) c = std::max(c, r.end);
  }
  for (const auto& b : p.buffers) {
    const auto it = by_id.find(b.arena);
    if (it == by_id.end()) continue;
    const Addr align = std::max<Addr>(b.alignment, 1);
    it->second =
        saturating_add(saturating_add(it->second, align_up(b.size, align).value_or(max_addr)), align);
  }
  std::vector<Addr> cap;
  cap.reserve(p.arenas.size());
  for (const auto& a : p.arenas) cap.push_back(std::max<Addr>(by_id[a.id], 1));
  return cap;
}

/// The union of `windows` (an arena's reserved windows) as the fewest
/// windows covering the same bytes: sorted, disjoint and not touching
/// (overlapping or touching windows merge; empty ones drop). The one home of
/// that union: the bytes it covers, the lower bound, and the placers' free
/// space and occupied sets all start from it.
[[nodiscard]] inline std::vector<AddrRange> window_union(std::vector<AddrRange> windows) {
  std::erase_if(windows, [](const AddrRange& r) { return r.empty(); });
  std::sort(windows.begin(), windows.end());
  std::size_t kept = 0;
  for (const auto& r : windows) {
    if (kept > 0 && r.begin <= windows[kept - 1].end)
      windows[kept - 1].end = std::max(windows[kept - 1].end, r.end);
    else
      windows[kept++] = r;
  }
  windows.resize(kept);
  return windows;
}

/// The bytes the union of `windows` covers (overlapping windows count once;
/// empty ones add nothing): the bytes of an arena no buffer may use.
[[nodiscard]] inline Addr covered_bytes(std::vector<AddrRange> windows) {
  Addr bytes = 0;
  for (const auto& r : window_union(std::move(windows))) bytes = saturating_add(bytes, r.size());
  return bytes;
}

/// The label of buffer `b` in files and messages: its name, or its index in
/// decimal when it has none.
[[nodiscard]] inline std::string buffer_label(const Problem& p, BufferId b) {
  if (b < p.buffers.size() && !p.buffers[b].name.empty()) return p.buffers[b].name;
  return std::to_string(b);
}

/// The first buffer named `name` (a linear scan: for callers that build a
/// problem by hand; readers resolve names once with their own table).
[[nodiscard]] inline std::optional<BufferId> find_buffer(const Problem& p, std::string_view name) {
  for (std::size_t i = 0; i < p.buffers.size(); ++i)
    if (p.buffers[i].name == name) return static_cast<BufferId>(i);
  return std::nullopt;
}

/// Looks up arenas by id; the first occurrence wins when ids repeat (the
/// validator reports repeats). Buffers need no lookup: a BufferId is their
/// position, and buffer() only checks that the problem has it. The problem
/// must outlive the index.
class ProblemIndex {
 public:
  PTO_MEM_PLAN_INLINE explicit ProblemIndex(const Problem& p);
  /// `b` when the problem has a buffer at that position (constraints of a
  /// problem not yet validated may point past the end).
  [[nodiscard]] std::optional<std::size_t> buffer(BufferId b) const noexcept {
    if (b < p_->buffers.size()) return static_cast<std::size_t>(b);
    return std::nullopt;
  }
  [[nodiscard]] std::optional<std::size_t> arena(std::int64_t id) const {
    if (dense_arenas_)  // arena k has id k: no lookup (the usual case)
      return id >= 0 && id < static_cast<std::int64_t>(p_->arenas.size())
                 ? std::optional<std::size_t>(static_cast<std::size_t>(id))
                 : std::nullopt;
    auto it = arena_.find(id);
    if (it == arena_.end()) return std::nullopt;
    return it->second;
  }

 private:
  const Problem* p_;
  bool dense_arenas_ = true;
  std::unordered_map<std::int64_t, std::size_t> arena_;
};

/// True when `s` is a decimal integer in canonical form ("0", "-3", "42").
[[nodiscard]] inline std::optional<std::int64_t> parse_integer_id(std::string_view s) noexcept {
  if (s.empty()) return std::nullopt;
  std::int64_t v = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc{} || ptr != s.data() + s.size()) return std::nullopt;
  if (std::to_string(v) != s) return std::nullopt;  // "007", "+1" are names, not numbers
  return v;
}

/// The rank of each buffer under the label order used for tie-breaking:
/// numeric when every label (buffer_label) is an integer, lexicographic
/// otherwise. Equal labels share a rank. Ordering by label (rather than by
/// position) keeps results independent of the order a file lists buffers in.
[[nodiscard]] inline std::vector<std::uint32_t> id_ranks(const Problem& p) {
  const std::size_t n = p.buffers.size();
  std::vector<std::int64_t> numbers(n);
  bool numeric = true;
  for (std::size_t i = 0; i < n && numeric; ++i) {
    auto v = p.buffers[i].name.empty() ? std::optional<std::int64_t>(static_cast<std::int64_t>(i))
                                       : parse_integer_id(p.buffers[i].name);
    if (v)
      numbers[i] = *v;
    else
      numeric = false;
  }
  std::vector<std::string> unnamed;  // decimal labels of unnamed buffers, built only when compared as text
  if (!numeric) {
    unnamed.resize(n);
    for (std::size_t i = 0; i < n; ++i)
      if (p.buffers[i].name.empty()) unnamed[i] = std::to_string(i);
  }
  auto label = [&](std::uint32_t i) -> const std::string& {
    return p.buffers[i].name.empty() ? unnamed[i] : p.buffers[i].name;
  };
  std::vector<std::uint32_t> order(n);
  for (std::size_t i = 0; i < n; ++i) order[i] = static_cast<std::uint32_t>(i);
  auto less = [&](std::uint32_t a, std::uint32_t b) {
    if (numeric) return numbers[a] < numbers[b];
    return label(a) < label(b);
  };
  std::sort(order.begin(), order.end(),
            [&](std::uint32_t a, std::uint32_t b) { return less(a, b) || (!less(b, a) && a < b); });
  std::vector<std::uint32_t> rank(n);
  std::uint32_t r = 0;
  for (std::size_t k = 0; k < n; ++k) {
    if (k > 0 && less(order[k - 1], order[k])) ++r;
    rank[order[k]] = r;
  }
  return rank;
}

}  // namespace pto_mem

#if !defined(PTO_MEM_COMPILED)
#include "pto_mem/core/problem_impl.hpp"
#endif
