// Calls of ops the registry does not describe. The passes plan such a call
// with no memory contract (a `tile.*` result is a fresh Vec tile whatever its
// annotation says, its operands may be in any space, it may take the buffer
// of an operand it reads last, and nothing is known about what it reads or
// writes), which is right for nothing but an op the registry lacks on purpose:
// a typo (`tile.expp` for `tile.exp`) would be planned wrong without a word.
// So each call gets a diagnostic that names the op and the statement, the
// closest registered name (edit distance) and what was assumed;
// `UnknownOps::error` makes it an error instead of a warning.
//
// Checked: `tile.*` names (every tile op that touches on-chip memory belongs
// in the registry) and `system.*` names outside PyPTO's system ops (a
// misspelt `system.reserve_buffer` would silently drop a reserved window).
// Not checked: calls of the program's own functions, PyPTO's block-index
// queries (`tile.get_block_idx`, ...), and `tensor.*` ops (DDR data, never
// planned).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "pto_mem/core/diagnostics.hpp"
#include "pto_mem/pypto/ir/function.hpp"
#include "pto_mem/pypto/ir/visitor.hpp"
#include "pto_mem/pypto/ops/registry.hpp"
#include "pto_mem/pypto/text/dsl_names.hpp"

namespace pto_mem::pypto {

/// What a call of an unregistered op gets.
enum class UnknownOps : std::uint8_t {
  warn,   ///< a warning; the call is planned with no memory contract (the default)
  error,  ///< an error (the `pto-mem compile` exit status 2)
};

[[nodiscard]] constexpr std::string_view to_string(UnknownOps u) noexcept {
  return u == UnknownOps::error ? "error" : "warn";
}

[[nodiscard]] constexpr std::optional<UnknownOps> parse_unknown_ops(std::string_view s) noexcept {
  if (s == "warn") return UnknownOps::warn;
  if (s == "error") return UnknownOps::error;
  return std::nullopt;
}

/// Levenshtein distance (insert, delete, substitute: 1 each).
[[nodiscard]] inline std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diag = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

/// The registered op whose name is nearest to `name` (ties: the first in name
/// order), and the distance; nullopt for an empty registry.
struct NearestOp {
  std::string name;
  std::size_t distance = 0;
};
[[nodiscard]] inline std::optional<NearestOp> closest_op(const OpRegistry& ops, std::string_view name) {
  std::optional<NearestOp> best;
  for (const OpSpec* s : ops.ops()) {
    const std::size_t d = edit_distance(name, s->name);
    if (!best || d < best->distance) best = NearestOp{s->name, d};
  }
  return best;
}

/// Whether a call of `op` must be in the registry (see the header comment).
[[nodiscard]] inline bool needs_registration(std::string_view op) {
  if (op.starts_with("tile."))
    return op != "tile.get_block_idx" && op != "tile.get_block_num" && op != "tile.get_subblock_idx";
  if (op.starts_with("system.")) {
    const std::string_view rest = op.substr(7);
    return std::none_of(dsl::system_names.begin(), dsl::system_names.end(),
                        [&](std::string_view n) { return n == rest; });
  }
  return false;
}

namespace detail {

class UnknownOpFinder : public IRVisitor {
 public:
  UnknownOpFinder(const Program& p, const OpRegistry& ops, UnknownOps policy, Diagnostics& out)
      : program_(p), ops_(ops), policy_(policy), out_(out) {}

  void visit_stmt(const StmtPtr& s) override {
    if (!s) return;
    const Loc saved = loc_;
    if (s->loc.known()) loc_ = s->loc;
    IRVisitor::visit_stmt(s);
    loc_ = saved;
  }
  void visit_call(const Call& c) override {
    if (needs_registration(c.op) && !ops_.find(c.op) && !program_.find(c.op)) report(c);
    IRVisitor::visit_call(c);
  }

 private:
  void report(const Call& c) {
    std::string msg = "op " + in_quotes(c.op) + " is not registered";
    if (auto near = closest_op(ops_, c.op))
      msg += "; the closest registered op is " + in_quotes(near->name) + " (edit distance " +
             std::to_string(near->distance) + ")";
    if (policy_ == UnknownOps::warn) msg += ". Assumed: " + assumption(c.op);
    msg += ". Fix the name, or register the op (OpRegistry::add) with its memory contract";
    msg += policy_ == UnknownOps::warn
               ? "; --unknown-ops=error (CompileOptions::unknown_ops) makes this an error"
               : "; --unknown-ops=warn plans it with no memory contract";
    Diagnostic d{policy_ == UnknownOps::error ? Severity::error : Severity::warning, "unknown-op",
                 std::move(msg), std::nullopt};
    if (loc_.known() || !program_.file.empty()) d.location = to_source_location(program_.file, loc_);
    out_.push_back(std::move(d));
  }
  /// What the passes do with a call that has no spec.
  static std::string assumption(std::string_view op) {
    if (!op.starts_with("tile."))
      return "it has no memory contract: it reads and writes no tile and reserves no memory";
    const char* space = op.starts_with("tile.matmul_mx") ? "Acc" : "Vec";
    return std::string("its result is a fresh ") + space +
           " tile (a space in its annotation is replaced), its operands may be in any space, the result may "
           "take "
           "the buffer of an operand it reads last, and what it reads and writes is unknown to the "
           "reuse-penalty "
           "model";
  }
  static std::string in_quotes(const std::string& s) { return "'" + s + "'"; }

  const Program& program_;
  const OpRegistry& ops_;
  UnknownOps policy_;
  Diagnostics& out_;
  Loc loc_;
};

}  // namespace detail

/// One diagnostic per call of an unregistered op in `program` (program
/// order), a warning or an error as `policy` says.
[[nodiscard]] inline Diagnostics check_unknown_ops(const Program& program, const OpRegistry& ops,
                                                   UnknownOps policy = UnknownOps::warn) {
  Diagnostics out;
  detail::UnknownOpFinder finder(program, ops, policy, out);
  for (const auto& f : program.functions) finder.visit_function(f);
  return out;
}

}  // namespace pto_mem::pypto
