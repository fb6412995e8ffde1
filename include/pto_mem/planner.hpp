// The front door.
//
//   plan(buffers, policy, constraints, options[, out])  -- your own objects
//   plan(problem, options)                              -- the Problem model
//   explain(problem, result, options)                   -- why nothing fits
//                                                          (algorithms/explain.hpp)
//
// Every placement a strategy produces is checked by the independent validator
// before it is returned; a planner bug becomes a diagnostic, never a wrong
// address. This header holds the model, the traits and the declarations; the
// templates over the user's types only read each object into plain records
// (detail::ProblemRecords, ErasedConstraints), call one non-template
// function (detail::plan_records) and write the offsets back. That function
// and the solvers are in planner_impl.hpp, included here unless
// PTO_MEM_COMPILED is defined (link pto_mem::compiled, which defines it and
// holds them compiled once; core/compiled_mode.hpp).
#pragma once

#include <concepts>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <memory>
#include <optional>
#include <ranges>
#include <stop_token>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "pto_mem/core/arena_policy.hpp"
#include "pto_mem/core/buffer.hpp"
#include "pto_mem/core/compiled_mode.hpp"
#include "pto_mem/core/make_problem.hpp"
#include "pto_mem/core/problem.hpp"
#include "pto_mem/core/result.hpp"
#include "pto_mem/core/search_control.hpp"

namespace pto_mem {

/// The planners `plan` runs (docs/planners.md).
enum class Strategy {
  sequential,  ///< every buffer its own bytes, in id order: reproducibility, debugging
  reuse,       ///< PyPTO's default: lifetime-disjoint allocations share slots, then sequential
  greedy,      ///< DSA-RP canonical greedy: fast and good
  exact,       ///< complete branch and bound: proofs, tight capacities
  portfolio,   ///< greedy, then exact under the budget when the goal asks for more (the default)
};

[[nodiscard]] constexpr std::string_view to_string(Strategy s) noexcept {
  switch (s) {
    case Strategy::sequential: return "sequential";
    case Strategy::reuse: return "reuse";
    case Strategy::greedy: return "greedy";
    case Strategy::exact: return "exact";
    case Strategy::portfolio: return "portfolio";
  }
  return "portfolio";
}

/// The strategy named `name` (a command-line word), or nullopt.
[[nodiscard]] constexpr std::optional<Strategy> parse_strategy(std::string_view name) noexcept {
  for (Strategy s :
       {Strategy::sequential, Strategy::reuse, Strategy::greedy, Strategy::exact, Strategy::portfolio})
    if (to_string(s) == name) return s;
  return std::nullopt;
}

/// The strategies `plan` accepts, in the order the tool lists them.
[[nodiscard]] inline std::vector<std::string> strategies() {
  return {"sequential", "reuse", "greedy", "exact", "portfolio"};
}

/// PlanOptions::strategy: a Strategy. A string literal is accepted too and
/// checked while compiling (`o.strategy = "greedy"`; a typo does not
/// compile). Names only known at run time go through parse_strategy.
class StrategyChoice {
 public:
  constexpr StrategyChoice(Strategy s) noexcept : value_(s) {}  // NOLINT: implicit by design
  template <std::size_t N>
  consteval StrategyChoice(const char (&name)[N])
      : value_(checked(std::string_view(name, N - 1))) {}  // NOLINT
  [[nodiscard]] constexpr Strategy value() const noexcept { return value_; }
  friend constexpr bool operator==(StrategyChoice, StrategyChoice) = default;

 private:
  static consteval Strategy checked(std::string_view name) {
    const auto s = parse_strategy(name);
    if (!s) throw "unknown pto_mem strategy name: use one of sequential, reuse, greedy, exact, portfolio";
    return *s;
  }
  Strategy value_;
};

/// The default search-node budget when neither a node limit nor a time limit
/// is given (see PlanOptions::node_limit): 250,000 nodes up to 2,000
/// allocations -- several times what the hardest MiniMalloc instances need
/// to fit, a fraction of a second on a 200-buffer kernel the greedy does not
/// settle -- then inversely proportional to the allocations, down to 20,000
/// at 25,000 allocations, 20,000 up to 100,000, and inversely proportional
/// again above (2,000 at a million). A canonical dive of a part too large to
/// search counts one node per 1,024 heap steps, about one per 64 buffers:
/// 20,000 nodes pay for a dozen dives at 100,000 buffers (the third one
/// took random instances from 1.85 % to 0.21 % above the max load), and
/// not for one at a million, where a dive costs more than the greedy and
/// did not beat it (docs/benchmarks.md, "A million buffers").
/// Deterministic.
[[nodiscard]] constexpr std::uint64_t default_node_limit(std::size_t allocations) noexcept {
  constexpr std::uint64_t most = 250'000, least = 20'000, small = 2'000, large = 100'000;
  const auto n = static_cast<std::uint64_t>(allocations);
  if (n <= small) return most;
  if (n > large) return least * large / n;
  const std::uint64_t scaled = most * small / n;
  return scaled < least ? least : scaled;
}

/// How plan() runs. The defaults are deterministic (a node budget, never a
/// wall clock; one search thread) and fast; see docs/index.md, "Options".
/// The tool and the Python module start from these same defaults.
struct PlanOptions {
  StrategyChoice strategy = Strategy::portfolio;
  /// What `exact` and `portfolio` aim at. Unset (the default): the question
  /// the problem asks -- `fit` when an arena has a capacity, `minimise` when
  /// no arena has one (every capacity is always_fitting_capacity, as for a
  /// policy whose capacity() is nullopt). The tool uses the same rule.
  std::optional<Goal> goal = std::nullopt;
  /// Search nodes for `exact` and `portfolio`, counted over all workers;
  /// 0 = no node limit. Unset (the default): no node limit when a time limit
  /// is given (the time limit is then the whole budget), else
  /// default_node_limit(allocations). Deterministic: the same answer on
  /// every machine.
  std::optional<std::uint64_t> node_limit = std::nullopt;
  /// A wall-clock budget in seconds; 0 (the default) = none, and so is any
  /// value of unlimited_seconds or more. Negative and NaN are invalid input.
  /// Every strategy honours it (sequential and reuse stop sharing and
  /// finish with their own bytes for what is left). A clock cut can change
  /// the answer from run to run: use it for interactive tools, not in a
  /// compiler whose output must be reproducible.
  double time_limit_s = 0.0;
  /// Worker threads: 1 = the caller's thread; 0 or >= 2 = two workers.
  /// Unset (the default): two for `greedy` on a machine with two cores or
  /// more (its passes are reduced in order: the same placement on any number
  /// of workers), one for `exact` and `portfolio` (two exact workers are
  /// deterministic too, but may answer differently from one).
  std::optional<unsigned> threads = std::nullopt;
  std::uint64_t seed = 0;     ///< seeded restarts (DSA-RP); the exact search's randomised dives
  std::size_t restarts = 4;   ///< seeded restarts (DSA-RP)
  bool compat_pypto = false;  ///< reproduce PyPTO's DSA-RP placements bit for bit
  /// The caller guarantees that validate(problem) reports nothing -- a
  /// reader's ProblemFile is well formed by contract (io/problem_file.hpp) --
  /// so plan() does not check the problem again (at a million buffers the
  /// check costs a second). The placement is validated all the same. A
  /// false guarantee breaks plan()'s precondition: leave it false for
  /// problems built by hand.
  bool problem_validated = false;
  /// A caller's cancellation (another thread, a signal handler's watcher,
  /// an IDE): every strategy stops at its next check (the searches within a
  /// few milliseconds) and returns its best placement so far, with
  /// PlanResult::stopped_by = interrupted. Like a clock, it makes the answer
  /// depend on timing.
  std::stop_token stop = {};
  /// Told the best total peak and penalty, the proved total bound and the
  /// elapsed time as the search improves (on the caller's thread); for
  /// progress bars and for deciding when to request a stop.
  ProgressCallback progress = {};
};

/// Plans `problem` with `options.strategy`. The result's status is honest:
/// `optimal` only when the placement is proved least, `infeasible` only with
/// a proof (the max-load bound or a complete search), `no_fit` when a bounded
/// search found nothing, `invalid_input` for malformed problems,
/// `unsupported` for a request the strategy cannot take, `internal_error`
/// for a planner bug the validator caught.
///
/// Every strategy places allocations, not raw buffers: must-alias groups and
/// declared allocations are first unified (algorithms/alias.hpp), the
/// strategy plans the reduced problem, and its placement is expanded to every
/// original buffer and validated against the original problem.
[[nodiscard]] PTO_MEM_PLAN_INLINE PlanResult plan(const Problem& problem, const PlanOptions& options = {});

// ---- the front door over the user's own objects ------------------------------

/// One of the user's buffer objects, named in a constraint. It refers to an
/// element of the range given to plan() (by address), so it must not be a
/// temporary.
template <class B>
class BufferRef {
 public:
  BufferRef(const B& b) noexcept : p_(std::addressof(b)) {}  // NOLINT: implicit by design
  BufferRef(const B&&) = delete;                             // a temporary is not in the range
  [[nodiscard]] const B* get() const noexcept { return p_; }

 private:
  const B* p_;
};

/// Constraints between the user's own objects (elements of the range given
/// to plan), so that no one builds string ids:
///
///     pto_mem::Constraints<Tile> c;
///     c.separate(q, k)                        // never share a byte
///      .penalise(a, b, 3)                     // avoid sharing; weight 3 when they do
///      .alias({whole, {half, 64}})            // one allocation; half sits 64 bytes above whole
///      .declare(ring, 2, 4096, {{x, 0}, {y, 1}, {z}})   // 2 slots; z's slot is chosen at run time
///      .exclude(then_tile, else_tile);        // never live at once (two branches): may share
///
/// For a liveness computed as a graph, `live_together(a, b)` lists the pairs
/// live at the same time; once any is given (or `use_conflict_graph()` is
/// called), the graph alone decides which buffers may share bytes and
/// lifetimes only order them.
template <class B>
class Constraints {
 public:
  struct Member {
    Member(const B& b, Addr offset_bytes = 0) noexcept : buffer(b), offset(offset_bytes) {}  // NOLINT
    Member(const B&&, Addr = 0) = delete;
    BufferRef<B> buffer;
    Addr offset;
  };
  struct Binding {
    Binding(const B& b, std::optional<std::uint32_t> at = std::nullopt) noexcept
        : buffer(b), slot(at) {}  // NOLINT
    Binding(const B&&, std::optional<std::uint32_t> = std::nullopt) = delete;
    BufferRef<B> buffer;
    std::optional<std::uint32_t> slot;  ///< nullopt: chosen at run time
  };
  struct Pair {
    BufferRef<B> a, b;
    Weight weight = 1;
  };
  struct Declaration {
    BufferRef<B> whole;
    std::uint32_t slots;
    Addr slot_size;
    std::vector<Binding> bindings;
  };

  /// a and b never overlap in bytes, whatever their lifetimes.
  Constraints& separate(BufferRef<B> a, BufferRef<B> b) {
    separations.push_back({a, b, 1});
    return *this;
  }
  /// `weight` is paid when a and b (lifetime-disjoint) overlap in bytes.
  Constraints& penalise(BufferRef<B> a, BufferRef<B> b, Weight weight = 1) {
    penalties.push_back({a, b, weight});
    return *this;
  }
  /// The members are one allocation; each sits `offset` bytes above its start.
  Constraints& alias(std::initializer_list<Member> members) {
    must_alias.emplace_back(members);
    return *this;
  }
  Constraints& alias(std::vector<Member> members) {
    must_alias.push_back(std::move(members));
    return *this;
  }
  /// `whole` is a declared allocation of `slots` slots of `slot_size` bytes;
  /// each binding lives on its slot (or on any, when its slot is nullopt).
  Constraints& declare(BufferRef<B> whole, std::uint32_t slots, Addr slot_size,
                       std::vector<Binding> bindings) {
    declared.push_back({whole, slots, slot_size, std::move(bindings)});
    return *this;
  }

  /// a and b are never live at once (exclusive branches), whatever their lifetimes say.
  Constraints& exclude(BufferRef<B> a, BufferRef<B> b) {
    exclusions.push_back({a, b, 1});
    return *this;
  }
  /// a and b are live at the same time: an edge of the conflict graph.
  Constraints& live_together(BufferRef<B> a, BufferRef<B> b) {
    conflicts.push_back({a, b, 1});
    conflict_graph = true;
    return *this;
  }
  /// Plan from the conflict graph (even one without edges), not from lifetimes.
  Constraints& use_conflict_graph() {
    conflict_graph = true;
    return *this;
  }

  std::vector<Pair> separations;
  std::vector<Pair> penalties;
  std::vector<std::vector<Member>> must_alias;
  std::vector<Declaration> declared;
  std::vector<Pair> exclusions;
  std::vector<Pair> conflicts;
  bool conflict_graph = false;
};

/// What plan() over user objects returns. offsets[i] answers for the i-th
/// buffer of the range; it is nullopt for buffers in arenas the policy does
/// not plan, or when nothing fit.
template <class Key>
struct BufferPlan {
  PlanResult result;
  ProblemWithKeys<Key> model;
  std::vector<std::optional<Addr>> offsets;

  [[nodiscard]] bool fits() const noexcept { return result.fits(); }
  /// The arena the i-th buffer of the range went to (one of its candidate
  /// arenas, or its arena); nullopt when it was not placed.
  [[nodiscard]] std::optional<Key> arena(std::size_t i) const {
    if (i >= model.buffer_index.size() || !model.buffer_index[i] || !result.placement) return std::nullopt;
    const std::size_t b = *model.buffer_index[i];
    const auto& pl = *result.placement;
    const std::int64_t id = pl.arenas.empty() ? model.problem.buffers[b].arena : pl.arenas[b];
    return model.arena_keys[static_cast<std::size_t>(id)];
  }
};

namespace detail {

/// Constraints<B> with each object named by its address: what the compiled
/// side reads, whatever the user's type.
struct ErasedConstraints {
  struct Pair {
    const void* a;
    const void* b;
    Weight weight;
  };
  struct Member {
    const void* buffer;
    Addr offset;
  };
  struct Binding {
    const void* buffer;
    std::optional<std::uint32_t> slot;
  };
  struct Declaration {
    const void* whole;
    std::uint32_t slots;
    Addr slot_size;
    std::vector<Binding> bindings;
  };
  std::vector<Pair> separations;
  std::vector<Pair> penalties;
  std::vector<std::vector<Member>> must_alias;
  std::vector<Declaration> declared;
  std::vector<Pair> exclusions;
  std::vector<Pair> conflicts;
  bool conflict_graph = false;
};

/// What the compiled side returns for plan() over user objects.
struct ObjectsPlan {
  PlanResult result;
  BuiltProblem built;
  std::vector<std::optional<Addr>> offsets;
};

/// plan() over user objects once they are read: builds the Problem from
/// `records`, adds the constraints (`objects[i]` is the address of the
/// range's i-th element), plans it and maps the offsets back to the range.
/// Constraints on buffers the policy does not plan are dropped (separations,
/// penalties) or reported (aliases, declarations).
[[nodiscard]] PTO_MEM_PLAN_INLINE ObjectsPlan plan_records(ProblemRecords records,
                                                           const std::vector<const void*>& objects,
                                                           const ErasedConstraints& constraints,
                                                           const PlanOptions& options);

/// Turns `result` into `unsupported`: the offset of buffer #`index` does not
/// fit the output member's type.
PTO_MEM_PLAN_INLINE void report_narrow_output(PlanResult& result, std::size_t index, Addr offset);

template <class T>
struct is_optional : std::false_type {};
template <class T>
struct is_optional<std::optional<T>> : std::true_type {
  using type = T;
};

/// Writes the offsets back through `out`: a data-member pointer (an integral
/// or std::optional<integral> member) or a callable out(element, offset).
/// All or nothing: a member too narrow for an offset writes none.
template <class R, class Out, class Key>
void write_back(R& buffers, Out& out, BufferPlan<Key>& plan) {
  if (!plan.result.fits()) return;
  if constexpr (std::is_member_object_pointer_v<Out>) {
    using M = std::remove_cvref_t<decltype(std::invoke(out, *std::ranges::begin(buffers)))>;
    using V = typename std::conditional_t<is_optional<M>::value, is_optional<M>, std::type_identity<M>>::type;
    static_assert(std::integral<V>,
                  "pto_mem::plan: the output member must be an integer or a std::optional of one");
    for (std::size_t i = 0; i < plan.offsets.size(); ++i)
      if (plan.offsets[i] && !std::in_range<V>(*plan.offsets[i])) {
        report_narrow_output(plan.result, i, *plan.offsets[i]);
        return;
      }
    std::size_t i = 0;
    for (auto it = std::ranges::begin(buffers); it != std::ranges::end(buffers); ++it, ++i)
      if (plan.offsets[i]) std::invoke(out, *it) = static_cast<V>(*plan.offsets[i]);
  } else {
    std::size_t i = 0;
    for (auto it = std::ranges::begin(buffers); it != std::ranges::end(buffers); ++it, ++i)
      if (plan.offsets[i]) std::invoke(out, *it, *plan.offsets[i]);
  }
}

/// The front door's work, once the checks have passed: read the user's
/// objects into records, hand them to the compiled side, wrap its answer.
template <class R, class Policy, class B>
auto plan_objects(const R& buffers, const Policy& policy, const Constraints<B>& c,
                  const PlanOptions& options) {
  using Key = buffer_arena_t<B>;
  BufferPlan<Key> out;
  std::vector<const void*> objects;
  for (const auto& b : buffers) objects.push_back(static_cast<const void*>(std::addressof(b)));
  ErasedConstraints erased;
  for (const auto& s : c.separations) erased.separations.push_back({s.a.get(), s.b.get(), s.weight});
  for (const auto& s : c.penalties) erased.penalties.push_back({s.a.get(), s.b.get(), s.weight});
  for (const auto& s : c.exclusions) erased.exclusions.push_back({s.a.get(), s.b.get(), 1});
  for (const auto& s : c.conflicts) erased.conflicts.push_back({s.a.get(), s.b.get(), 1});
  erased.conflict_graph = c.conflict_graph;
  for (const auto& g : c.must_alias) {
    auto& members = erased.must_alias.emplace_back();
    for (const auto& m : g) members.push_back({m.buffer.get(), m.offset});
  }
  for (const auto& d : c.declared) {
    auto& e = erased.declared.emplace_back();
    e.whole = d.whole.get();
    e.slots = d.slots;
    e.slot_size = d.slot_size;
    for (const auto& bind : d.bindings) e.bindings.push_back({bind.buffer.get(), bind.slot});
  }
  ObjectsPlan done =
      plan_records(read_records(buffers, policy, out.model.arena_keys), objects, erased, options);
  out.result = std::move(done.result);
  out.model.problem = std::move(done.built.problem);
  out.model.buffer_index = std::move(done.built.buffer_index);
  out.model.diagnostics = std::move(done.built.diagnostics);
  out.offsets = std::move(done.offsets);
  return out;
}

template <class R>
using range_buffer_t = std::remove_cvref_t<std::ranges::range_reference_t<R>>;

}  // namespace detail

/// Plans the user's own buffers (any forward range whose elements model
/// Buffer, read through buffer_traits) under an ArenaPolicy, with
/// constraints between them. Element i of the range gets offsets[i].
template <std::ranges::forward_range R, class Policy, class B = detail::range_buffer_t<R>>
[[nodiscard]] auto plan(const R& buffers, const Policy& policy, const Constraints<B>& constraints,
                        const PlanOptions& options = {}) {
  // Each check names the property and the trait to specialise; the body is
  // only compiled when both pass, so that their message is the only one.
  constexpr bool buffer_ok = check_buffer<B>();
  if constexpr (buffer_ok) {
    using Key = buffer_arena_t<B>;
    constexpr bool policy_ok = check_policy<Policy, Key>();
    if constexpr (policy_ok) return detail::plan_objects(buffers, policy, constraints, options);
  }
}
/// As above, then writes each placed buffer's offset back through `out`:
/// `&MyTile::offset` (an integral or std::optional member) or a callable
/// `out(element, offset)`. Nothing is written unless the plan fits.
template <std::ranges::forward_range R, class Policy, class Out, class B = detail::range_buffer_t<R>>
requires std::is_member_object_pointer_v<Out> || std::invocable<Out&, std::ranges::range_reference_t<R>, Addr>
auto plan(R&& buffers, const Policy& policy, const Constraints<B>& constraints, const PlanOptions& options,
          Out out) {
  using Result = decltype(plan(std::as_const(buffers), policy, constraints, options));
  if constexpr (std::is_void_v<Result>) {
    plan(std::as_const(buffers), policy, constraints,
         options);  // a check failed: its message says what to fix
  } else {
    Result result = plan(std::as_const(buffers), policy, constraints, options);
    detail::write_back(buffers, out, result);
    return result;
  }
}

/// Without constraints.
template <std::ranges::forward_range R, class Policy, class B = detail::range_buffer_t<R>>
[[nodiscard]] auto plan(const R& buffers, const Policy& policy, const PlanOptions& options = {}) {
  return plan(buffers, policy, Constraints<B>{}, options);
}

}  // namespace pto_mem

#if !defined(PTO_MEM_COMPILED)
#include "pto_mem/planner_impl.hpp"
#endif
