// The tile-memory pipeline: parse → InferTileMemorySpace →
// InitMemRef → MaterializeSemanticAliases → MemoryReuse → AllocateMemoryAddr,
// with the planner deciding which passes run:
//
//   planner | infer init alias reuse alloc
//   pypto   |   x     x    x     x     x     (reuse + sequential placement)
//   dsa_rp  |   x     x    x     -     x     (canonical greedy; MemoryReuse skipped)
//   ptoas   |   x     x    x     -     -     (ptoas assigns addresses)
//
// `until` stops after the named stage; a stage the planner skips is a no-op,
// so `--until reuse` under dsa_rp gives the program after alias. The first
// pass that reports an error stops the pipeline. InferTileMemorySpace and
// InitMemRef are followed by their verifiers.
//
// Exit codes (the `pto-mem compile` contract): 0 success; 1 memory does not
// fit (only "capacity" errors, which AllocateMemoryAddr emits); 2 the input
// was rejected (parse, semantic or invariant error).
//
// The passes refine the program's variables in place; compile a clone to keep
// the input intact.
//
// Header-only or compiled (core/compiled_mode.hpp): this header declares
// compile() and compile_source(); pipeline_impl.hpp defines them and brings
// in every pass. Header-only (the default) it is included below, so this
// header is the whole pipeline. With PTO_MEM_PYPTO_COMPILED defined (the
// pto_mem::pypto_compiled target defines it for its users) the passes are
// compiled once, in src/pypto_pipeline.cpp, and a caller of compile() -- the
// tool, the Python module -- compiles only the IR, the parser and printer.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "pto_mem/core/compiled_mode.hpp"
#include "pto_mem/pypto/ir/function.hpp"
#include "pto_mem/pypto/ops/unknown_ops.hpp"
#include "pto_mem/pypto/passes/pass_context.hpp"
#include "pto_mem/pypto/report.hpp"
#include "pto_mem/pypto/text/parser.hpp"
#include "pto_mem/pypto/text/printer.hpp"

namespace pto_mem::pypto {

/// A point the pipeline can stop after.
enum class Stage : std::uint8_t { parse, infer, init, alias, reuse, alloc };

inline constexpr Stage all_stages[] = {Stage::parse, Stage::infer, Stage::init,
                                       Stage::alias, Stage::reuse, Stage::alloc};

[[nodiscard]] constexpr std::string_view to_string(Stage s) noexcept {
  switch (s) {
    case Stage::parse: return "parse";
    case Stage::infer: return "infer";
    case Stage::init: return "init";
    case Stage::alias: return "alias";
    case Stage::reuse: return "reuse";
    case Stage::alloc: return "alloc";
  }
  return "parse";
}

[[nodiscard]] constexpr std::optional<Stage> parse_stage(std::string_view s) noexcept {
  for (Stage x : all_stages)
    if (to_string(x) == s) return x;
  return std::nullopt;
}

/// The pass that implements a stage (for messages).
[[nodiscard]] constexpr std::string_view pass_name(Stage s) noexcept {
  switch (s) {
    case Stage::parse: return "parse";
    case Stage::infer: return "InferTileMemorySpace";
    case Stage::init: return "InitMemRef";
    case Stage::alias: return "MaterializeSemanticAliases";
    case Stage::reuse: return "MemoryReuse";
    case Stage::alloc: return "AllocateMemoryAddr";
  }
  return "parse";
}

[[nodiscard]] constexpr std::optional<Planner> parse_planner(std::string_view s) noexcept {
  for (Planner p : {Planner::pypto, Planner::dsa_rp, Planner::ptoas})
    if (to_string(p) == s) return p;
  return std::nullopt;
}

/// Whether `planner` runs the pass of `stage`.
[[nodiscard]] constexpr bool runs(Planner planner, Stage stage) noexcept {
  if (stage == Stage::reuse) return planner == Planner::pypto;
  if (stage == Stage::alloc) return planner != Planner::ptoas;
  return true;
}

struct CompileOptions {
  SocPolicy soc = soc_a2a3();
  Planner planner = Planner::pypto;
  Stage until = Stage::alloc;
  const OpRegistry* ops = nullptr;  ///< null: default_registry()
  std::vector<Stage> dump_after;    ///< print the program after each of these stages that ran
  bool verify = true;               ///< run the TileMemoryInferred / HasMemRefs verifiers
  /// Non-empty: run exactly these passes, in this order, on a program that is
  /// already in the state they need (planner's skips and `until` ignored).
  /// Each pass first checks the properties it requires (run_one_pass.hpp).
  std::vector<Stage> passes;
  PrintOptions print_options;  ///< spelling of the dumps
  bool verify_storage =
      true;               ///< run the tile-storage verifier on the planned program (verify/tile_storage.hpp)
  bool buffer_ir = true;  ///< Buffer IR storage legalisation (PassContext::buffer_ir); false: legacy
  bool logical_tile_selection = false;  ///< PassContext::logical_tile_selection (opt-in)
  /// A call of an op the registry does not describe (`tile.expp`): a warning
  /// naming it, the closest registered op and what the passes assume
  /// (`warn`, the default), or an error that stops the compile before any
  /// pass (`error`; ops/unknown_ops.hpp). `pto-mem compile --unknown-ops`.
  UnknownOps unknown_ops = UnknownOps::warn;
};

/// The program text after one stage.
struct PassDump {
  Stage stage = Stage::parse;
  std::string text;
};

struct CompileResult {
  Program program;
  Diagnostics diagnostics;
  std::vector<InsertedMove> moves;  ///< every tile.move a pass inserted
  std::vector<Stage> ran;           ///< the stages that ran and succeeded, in order (parse: compile_source)
  bool addresses_assigned = false;  ///< AllocateMemoryAddr ran and succeeded
  /// Start address of every allocation, per function then base name (only
  /// when addresses_assigned): the address of a window minus its offset
  /// relative to the allocation before AllocateMemoryAddr.
  std::map<std::string, std::map<std::string, std::int64_t>> allocation_addresses;
  std::vector<PassDump> dumps;

  [[nodiscard]] bool ok() const noexcept { return !has_errors(diagnostics); }

  /// 0 ok; 1 only "capacity" errors (memory does not fit); 2 rejected input.
  [[nodiscard]] int exit_code() const noexcept {
    bool any = false, other = false;
    for (const auto& d : diagnostics)
      if (d.severity == Severity::error) {
        any = true;
        other |= d.code != "capacity";
      }
    return !any ? 0 : other ? 2 : 1;
  }

  /// What report_json needs beyond the program.
  [[nodiscard]] ReportOptions report_options() const {
    ReportOptions o;
    o.addresses_assigned = addresses_assigned;
    o.moves = moves;
    o.allocation_addresses = allocation_addresses;
    return o;
  }
};

/// Runs the passes of `options.planner` up to `options.until` on `program`.
[[nodiscard]] PTO_MEM_PYPTO_INLINE CompileResult compile(const Program& program,
                                                         const CompileOptions& options = {});

/// Parses `text` (named `file` in diagnostics) and compiles it; a parse
/// error is reported like a pass error (exit code 2).
[[nodiscard]] PTO_MEM_PYPTO_INLINE CompileResult compile_source(std::string_view text, std::string file,
                                                                const CompileOptions& options = {},
                                                                ParseOptions parse_options = {});

}  // namespace pto_mem::pypto

#if !defined(PTO_MEM_PYPTO_COMPILED)
#include "pto_mem/pypto/passes/pipeline_impl.hpp"
#endif
