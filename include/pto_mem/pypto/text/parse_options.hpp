// What a parse is asked to do and what it gives back: the options, the
// result, and the failure the parser and the binder throw (caught at the
// entry point: parse_program never throws).
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_set>

#include "pto_mem/core/diagnostics.hpp"
#include "pto_mem/pypto/ir/function.hpp"
#include "pto_mem/pypto/ops/registry.hpp"

namespace pto_mem::pypto {

struct ParseOptions {
  /// Ops used to type unannotated assignments; null: default_registry().
  const OpRegistry* registry = nullptr;
  /// PyPTO compatibility: re-binding a name visible in the same block (or a
  /// parameter, in the function body) makes a fresh variable of the same
  /// name (SSA renaming) instead of an error. The `pto-mem` tool turns it on.
  bool allow_rebinding = false;
  /// The DSL shorthands `load(...)` / `create(...)` (no namespace) get
  /// `target_memory=Vec` when it is omitted, as PyPTO's Python defaults do.
  bool dsl_defaults = true;
  /// Deepest nesting of blocks, brackets and expression trees accepted.
  std::size_t max_depth = 200;
};

struct ParseResult {
  Program program;  ///< empty when parsing failed
  Diagnostics diagnostics;
  [[nodiscard]] bool ok() const noexcept { return !has_errors(diagnostics); }
};

namespace detail {

/// The first error of a parse: thrown, caught by parse_program.
struct ParseFailure {
  Diagnostic diagnostic;
};

/// Heterogeneous lookup of names by string_view.
struct StringHash {
  using is_transparent = void;
  std::size_t operator()(std::string_view s) const noexcept { return std::hash<std::string_view>{}(s); }
};
using NameSet = std::unordered_set<std::string, StringHash, std::equal_to<>>;

}  // namespace detail

}  // namespace pto_mem::pypto
