// The memory contract of one op: which spaces each
// argument accepts, how the output space is decided, whether the output is
// one of the inputs' buffers, which inputs it must not share a buffer with,
// and what the op does to memory for the reuse-penalty recognizer
// (its access evidence: no access, functional — reads its tile operands and
// writes its result —, or unknown).
//
// Built with chained setters, so a table entry reads like a row of an op table:
//
//     OpSpec("tile.add").arg("lhs", {Vec}).arg("rhs", {Vec}).fixed(Vec)
//                       .access(AccessEvidence::functional).typed(type_rules::like_arg(0));
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "pto_mem/core/hazard_route.hpp"
#include "pto_mem/pypto/ir/expr.hpp"
#include "pto_mem/pypto/ir/fwd.hpp"
#include "pto_mem/pypto/ir/memory_space.hpp"
#include "pto_mem/pypto/soc/pipe.hpp"

namespace pto_mem::pypto {

/// How the output's memory space is decided.
enum class OutputSpace : std::uint8_t {
  none,           ///< no tile result (tensor, scalar, Ptr or nothing)
  fixed,          ///< always `output_space`
  kwarg,          ///< `target_memory` kwarg, default `output_space`; never retargeted
  retargetable,   ///< `target_memory` kwarg, no default: InferTileMemorySpace may choose it
  inherit_input,  ///< the first tile input's space
  call_type,      ///< no resolver: the result type's space, else Vec (tpop)
};

[[nodiscard]] constexpr std::string_view to_string(OutputSpace o) noexcept {
  switch (o) {
    case OutputSpace::none: return "none";
    case OutputSpace::fixed: return "fixed";
    case OutputSpace::kwarg: return "kwarg";
    case OutputSpace::retargetable: return "retargetable";
    case OutputSpace::inherit_input: return "inherit_input";
    case OutputSpace::call_type: return "call_type";
  }
  return "none";
}

/// What the op returns.
enum class ResultKind : std::uint8_t { tile, tensor, scalar, ptr, none };

/// Whether the output is a view of argument 0 (the "view" column of an op table).
enum class ViewKind : std::uint8_t {
  none,
  alias,    ///< `V`: inherit-input and in-place safe: the output is a window of argument 0's buffer
  permute,  ///< `T`: inherit-input but data-permuting (tile.transpose): a fresh buffer
};

struct ArgSpec {
  std::string name;
  std::vector<MemorySpace> allowed;  ///< empty: unconstrained; the first entry is the canonical space
  bool optional = false;             ///< may be absent (`[valid_shape:*]`)
  bool scratch = false;              ///< a tmp / scratch operand the op writes as workspace
};

/// On a given SoC the op forbids aliasing only these arguments (A5 tile.prelu).
struct SocForbidOverride {
  std::string soc;
  std::vector<std::size_t> forbidden;
};

/// The result type of a call from its arguments, or null when it cannot be
/// told (the text then needs an annotation).
using TypeRule = std::function<TypePtr(const Call&)>;

struct OpSpec {
  std::string name;
  std::vector<ArgSpec> args;
  std::vector<std::string> kwargs;  ///< attributes relevant to planning (informational)
  ResultKind result = ResultKind::tile;
  OutputSpace output = OutputSpace::none;
  MemorySpace output_space = MemorySpace::Vec;   ///< for fixed, and the kwarg default
  std::vector<MemorySpace> legal_targets;        ///< accepted `target_memory` values; empty = any
  std::optional<std::size_t> reuses_input;       ///< output *is* argument k's buffer
  bool inplace_safe = true;                      ///< false: `not_inplace_safe` (no-alias ALL)
  std::vector<std::size_t> forbid_output_alias;  ///< argument indices the output may not share
  bool widening_cast_forbids_input = false;      ///< tile.cast: {0} when the output dtype is wider
  std::vector<SocForbidOverride> soc_forbid_overrides;
  bool no_memory_spec = false;  ///< opted out of memory specs (alloc, tpop, tpush)
  AccessEvidence evidence = AccessEvidence::unknown;
  std::optional<Pipe> pipe;  ///< op-specific pipe hook (none at PyPTO HEAD)
  TypeRule type_rule;
  std::string notes;

  OpSpec() = default;
  explicit OpSpec(std::string n) : name(std::move(n)) {}

  // ---- chained setters (the table's vocabulary) ----------------------------------
  OpSpec& arg(std::string n, std::initializer_list<MemorySpace> allowed = {}) {
    args.push_back(ArgSpec{std::move(n), allowed, false, false});
    return *this;
  }
  OpSpec& optional_arg(std::string n, std::initializer_list<MemorySpace> allowed = {}) {
    args.push_back(ArgSpec{std::move(n), allowed, true, false});
    return *this;
  }
  OpSpec& scratch_arg(std::string n, std::initializer_list<MemorySpace> allowed = {},
                      bool is_optional = false) {
    args.push_back(ArgSpec{std::move(n), allowed, is_optional, true});
    return *this;
  }
  OpSpec& kw(std::initializer_list<const char*> names) {
    for (const char* n : names) kwargs.emplace_back(n);
    return *this;
  }
  OpSpec& returns(ResultKind r) {
    result = r;
    return *this;
  }
  OpSpec& fixed(MemorySpace s) {
    output = OutputSpace::fixed;
    output_space = s;
    return *this;
  }
  OpSpec& target_kwarg(MemorySpace default_space = MemorySpace::Vec) {
    output = OutputSpace::kwarg;
    output_space = default_space;
    return *this;
  }
  OpSpec& retargetable(std::initializer_list<MemorySpace> legal = {}) {
    output = OutputSpace::retargetable;
    legal_targets = legal;
    return *this;
  }
  OpSpec& inherit() {
    output = OutputSpace::inherit_input;
    return *this;
  }
  OpSpec& call_type() {
    output = OutputSpace::call_type;
    return *this;
  }
  OpSpec& reuses(std::size_t k) {
    reuses_input = k;
    return *this;
  }
  OpSpec& not_inplace_safe() {
    inplace_safe = false;
    return *this;
  }
  OpSpec& forbid_alias(std::initializer_list<std::size_t> ks) {
    forbid_output_alias.insert(forbid_output_alias.end(), ks);
    return *this;
  }
  OpSpec& widening_cast() {
    widening_cast_forbids_input = true;
    return *this;
  }
  OpSpec& soc_forbid(std::string soc, std::initializer_list<std::size_t> ks) {
    soc_forbid_overrides.push_back(SocForbidOverride{std::move(soc), ks});
    return *this;
  }
  OpSpec& without_memory_spec() {
    no_memory_spec = true;
    return *this;
  }
  OpSpec& access(AccessEvidence e) {
    evidence = e;
    return *this;
  }
  OpSpec& on_pipe(Pipe p) {
    pipe = p;
    return *this;
  }
  OpSpec& typed(TypeRule r) {
    type_rule = std::move(r);
    return *this;
  }
  OpSpec& note(std::string n) {
    notes = std::move(n);
    return *this;
  }

  // ---- derived predicates ---------------------------------------------------------
  [[nodiscard]] bool is_inherit_input() const noexcept { return output == OutputSpace::inherit_input; }
  /// Buffer-aliasing view: inherit-input and in-place safe (excludes tile.transpose).
  [[nodiscard]] bool is_view() const noexcept { return is_inherit_input() && inplace_safe; }
  [[nodiscard]] ViewKind view_kind() const noexcept {
    if (!is_inherit_input()) return ViewKind::none;
    return inplace_safe ? ViewKind::alias : ViewKind::permute;
  }
  /// The output lands in a source buffer: a view, or output-reuses-input.
  [[nodiscard]] bool lands_in_source() const noexcept { return is_view() || reuses_input.has_value(); }
  [[nodiscard]] bool is_retargetable() const noexcept { return output == OutputSpace::retargetable; }
  [[nodiscard]] bool has_target_memory() const noexcept {
    return output == OutputSpace::kwarg || output == OutputSpace::retargetable;
  }
  [[nodiscard]] bool has_input_constraints() const noexcept {
    for (const auto& a : args)
      if (!a.allowed.empty()) return true;
    return false;
  }
  /// Allowed spaces of argument i (empty: unconstrained, also past the list).
  [[nodiscard]] std::span<const MemorySpace> allowed_spaces(std::size_t i) const noexcept {
    if (i >= args.size()) return {};
    return args[i].allowed;
  }
  [[nodiscard]] std::optional<MemorySpace> canonical_space(std::size_t i) const noexcept {
    auto a = allowed_spaces(i);
    if (a.empty()) return std::nullopt;
    return a.front();
  }
  [[nodiscard]] bool accepts(std::size_t i, MemorySpace s) const noexcept {
    auto a = allowed_spaces(i);
    if (a.empty()) return true;
    for (auto x : a)
      if (x == s) return true;
    return false;
  }
  [[nodiscard]] bool accepts_target(MemorySpace s) const noexcept {
    if (legal_targets.empty()) return true;
    for (auto x : legal_targets)
      if (x == s) return true;
    return false;
  }

  /// The output space the op's resolver gives for `c` without looking at the
  /// arguments: fixed; kwarg value or default; retargetable only when the
  /// kwarg is present. nullopt for inherit-input, call-type and undecided.
  [[nodiscard]] std::optional<MemorySpace> resolve_output(const Call& c) const noexcept {
    switch (output) {
      case OutputSpace::fixed: return output_space;
      case OutputSpace::kwarg:
        if (const ExprPtr* k = c.kwarg("target_memory"))
          if (auto s = as_space(*k)) return s;
        return output_space;
      case OutputSpace::retargetable:
        if (const ExprPtr* k = c.kwarg("target_memory")) return as_space(*k);
        return std::nullopt;
      default: return std::nullopt;
    }
  }

  /// Argument indices whose buffer the output must not share:
  /// every argument when not in-place safe (or the SoC override), else the
  /// forbid_output_alias set, plus argument 0 for a widening cast.
  [[nodiscard]] std::vector<std::size_t> forbidden_operands(std::size_t num_args, std::string_view soc = {},
                                                            bool widening = false) const {
    std::vector<std::size_t> out;
    if (!inplace_safe) {
      for (const auto& o : soc_forbid_overrides)
        if (o.soc == soc) {
          for (auto k : o.forbidden)
            if (k < num_args) out.push_back(k);
          return out;
        }
      for (std::size_t k = 0; k < num_args; ++k) out.push_back(k);
      return out;
    }
    for (auto k : forbid_output_alias)
      if (k < num_args) out.push_back(k);
    if (widening_cast_forbids_input && widening && num_args > 0) {
      bool has0 = false;
      for (auto k : out) has0 |= k == 0;
      if (!has0) out.insert(out.begin(), 0);
    }
    return out;
  }
};

}  // namespace pto_mem::pypto
