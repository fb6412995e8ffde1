// The tile-memory pipeline (SPEC.md §7.1): parse → InferTileMemorySpace →
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
// InitMemRef are followed by their verifiers (SPEC §3.7, §4.7).
//
// Exit codes (the `pto-mem compile` contract): 0 success; 1 memory does not
// fit (only "capacity" errors, which AllocateMemoryAddr emits); 2 the input
// was rejected (parse, semantic or invariant error).
//
// The passes refine the program's variables in place; compile a clone to keep
// the input intact.
#pragma once

#include <algorithm>
#include <cstdint>
#include <exception>
#include <functional>
#include <map>
#include <new>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "pto_mem/pypto/ir/visitor.hpp"
#include "pto_mem/pypto/passes/allocate_memory_addr.hpp"
#include "pto_mem/pypto/passes/infer_tile_memory_space.hpp"
#include "pto_mem/pypto/passes/init_memref.hpp"
#include "pto_mem/pypto/passes/materialize_semantic_aliases.hpp"
#include "pto_mem/pypto/passes/memory_reuse.hpp"
#include "pto_mem/pypto/passes/pass_context.hpp"
#include "pto_mem/pypto/passes/pass_requirements.hpp"
#include "pto_mem/pypto/passes/stmt_walk.hpp"
#include "pto_mem/pypto/report.hpp"
#include "pto_mem/pypto/text/parser.hpp"
#include "pto_mem/pypto/text/printer.hpp"
#include "pto_mem/pypto/verify/tile_storage.hpp"

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

/// Whether `planner` runs the pass of `stage` (§7.1).
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
  bool verify_storage = true;       ///< run the tile-storage verifier on the planned program (verify/tile_storage.hpp)
  bool buffer_ir = true;            ///< Buffer IR storage legalisation (PassContext::buffer_ir); false: legacy
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

namespace detail::pipeline {

/// The properties the pass of `s` requires of its input (pass_requirements.hpp).
inline bool check_requirements(Stage s, const Program& p, PassContext& ctx) {
  using passes::Property;
  const std::string name(pass_name(s));
  switch (s) {
    case Stage::parse:
    case Stage::infer: return true;
    case Stage::init: return passes::require(Property::TileMemoryInferred, name, p, ctx);
    case Stage::alias:
    case Stage::reuse:
    case Stage::alloc:
      return passes::require(Property::TileMemoryInferred, name, p, ctx) &&
             passes::require(Property::HasMemRefs, name, p, ctx);
  }
  return true;
}

/// The offset expression of every tile window, per function and variable
/// name, taken just before AllocateMemoryAddr.
using RelativeOffsets = std::unordered_map<std::string, std::unordered_map<std::string, ExprPtr>>;

/// Calls fn(var, memref) for every tile variable `f` defines that has a MemRef.
template <class F>
void for_each_window(const Function& f, F&& fn) {
  for_each_def(f, [&](const VarPtr& v) {
    const auto* t = as_tile(v->type);
    if (t && t->memref && t->memref->base) fn(*v, *t->memref);
  });
}

[[nodiscard]] inline RelativeOffsets relative_offsets(const Program& p) {
  RelativeOffsets out;
  for (const auto& f : p.functions) {
    auto& m = out[f.name];
    for_each_window(f, [&](const Var& v, const MemRef& r) {
      if (r.byte_offset) m.emplace(v.name, r.byte_offset);
    });
  }
  return out;
}

/// The allocation's start given a window's offset before (`rel`) and after
/// (`abs`) AllocateMemoryAddr: abs - rel when both are constants, else c when
/// abs is `c + rel` or `rel + c` (a runtime slot: SPEC §7.3 step 4), and 0
/// when abs is rel itself (`0 + rel` folds to rel).
[[nodiscard]] inline std::optional<std::int64_t> start_address(const ExprPtr& abs, const ExprPtr& rel) {
  auto a = as_const_int(abs), r = as_const_int(rel);
  if (a && r) return *a - *r;
  if (abs && rel && same_expr(abs, rel)) return 0;
  const auto* b = abs ? abs->as<BinaryExpr>() : nullptr;
  if (!b || b->op != BinaryOp::Add) return std::nullopt;
  if (auto c = as_const_int(b->lhs); c && same_expr(b->rhs, rel)) return c;
  if (auto c = as_const_int(b->rhs); c && same_expr(b->lhs, rel)) return c;
  return std::nullopt;
}

inline void allocation_addresses(const Program& p, const RelativeOffsets& rel, CompileResult& r) {
  for (const auto& f : p.functions) {
    auto fr = rel.find(f.name);
    if (fr == rel.end()) continue;
    auto& out = r.allocation_addresses[f.name];
    for_each_window(f, [&](const Var& v, const MemRef& m) {
      auto it = fr->second.find(v.name);
      if (it == fr->second.end()) return;
      if (auto a = start_address(m.byte_offset, it->second)) out.emplace(m.name(), *a);
    });
    if (out.empty()) r.allocation_addresses.erase(f.name);
  }
}

}  // namespace detail::pipeline

/// Runs the passes of `options.planner` up to `options.until` on `program`.
[[nodiscard]] inline CompileResult compile(const Program& program, const CompileOptions& options = {}) {
  CompileResult r;
  r.program = program;
  PassContext ctx;
  ctx.soc = &options.soc;
  ctx.planner = options.planner;
  ctx.ops = options.ops ? options.ops : &default_registry();
  ctx.buffer_ir = options.buffer_ir;

  auto dump = [&](Stage s) {
    if (std::find(options.dump_after.begin(), options.dump_after.end(), s) != options.dump_after.end())
      r.dumps.push_back(PassDump{s, print(r.program, options.print_options)});
  };
  dump(Stage::parse);
  detail::pipeline::RelativeOffsets relative;
  const bool chosen = !options.passes.empty();
  const std::vector<Stage> order =
      chosen ? options.passes : std::vector<Stage>{Stage::infer, Stage::init, Stage::alias, Stage::reuse, Stage::alloc};
  for (Stage s : order) {
    if (!chosen && s > options.until) break;
    if (!chosen && !runs(options.planner, s)) continue;
    if (s == Stage::parse) continue;
    // A pass run on its own says which property its input lacks, instead of
    // running on the wrong input (in the full pipeline the verifiers of the
    // passes before it have already established them).
    if (chosen && !detail::pipeline::check_requirements(s, r.program, ctx)) break;
    if (s == Stage::alloc) relative = detail::pipeline::relative_offsets(r.program);
    try {
      switch (s) {
        case Stage::infer:
          r.program = infer_tile_memory_space(r.program, ctx);
          if (options.verify && !ctx.failed()) verify_tile_memory_inferred(r.program, ctx);
          break;
        case Stage::init:
          r.program = init_memref(r.program, ctx);
          if (options.verify && !ctx.failed()) verify_has_memrefs(r.program, ctx);
          if (options.verify && !ctx.failed()) {
            // The spaces still satisfy every op: InitMemRef gives an if-phi
            // (and the carries it initialises) the space of the value whose
            // buffer it shares, which may differ from the space inferred
            // for the phi (an Acc phi of two Mat loads: nothing may plan it).
            const std::size_t before = ctx.diagnostics.size();
            verify_tile_memory_inferred(r.program, ctx);
            for (std::size_t k = before; k < ctx.diagnostics.size(); ++k)
              ctx.diagnostics[k].message +=
                  " after InitMemRef: a phi or loop carry takes the space of the value whose buffer it shares; "
                  "produce that value in the space its consumer needs (the branch arms or the loop initializer)";
          }
          break;
        case Stage::alias: r.program = materialize_semantic_aliases(r.program, ctx); break;
        case Stage::reuse: r.program = memory_reuse(r.program, ctx); break;
        case Stage::alloc: r.program = allocate_memory_addr(r.program, ctx); break;
        case Stage::parse: break;
      }
    } catch (const std::bad_alloc&) {
      ctx.diagnostics.push_back(error(std::string(pass_name(s)) + " ran out of memory", "internal"));
    } catch (const std::exception& e) {
      ctx.diagnostics.push_back(
          error("internal error in " + std::string(pass_name(s)) + ": " + e.what(), "internal"));
    }
    if (ctx.failed()) break;
    r.ran.push_back(s);
    dump(s);
    if (s == Stage::alloc) {
      r.addresses_assigned = true;
      detail::pipeline::allocation_addresses(r.program, relative, r);
    }
  }
  // The planned program leaves the library only if every read sees its value.
  // Passes run one at a time are checked once a pass that shares or places
  // storage has run (their input already has MemRefs).
  const bool shares_storage =
      chosen ? std::any_of(r.ran.begin(), r.ran.end(),
                           [](Stage s) { return s == Stage::alias || s == Stage::reuse || s == Stage::alloc; })
             : options.until == Stage::alloc;
  if (options.verify_storage && shares_storage && !ctx.failed()) {
    TileStorageOptions vo;
    vo.addresses_assigned = r.addresses_assigned;
    vo.ops = ctx.ops;
    vo.soc = options.soc.soc_name;
    for (auto& d : verify_tile_storage(r.program, vo)) ctx.diagnostics.push_back(std::move(d));
  }
  r.diagnostics = std::move(ctx.diagnostics);
  r.moves = std::move(ctx.moves);
  return r;
}

/// Parses `text` (named `file` in diagnostics) and compiles it; a parse
/// error is reported like a pass error (exit code 2).
[[nodiscard]] inline CompileResult compile_source(std::string_view text, std::string file,
                                                  const CompileOptions& options = {},
                                                  ParseOptions parse_options = {}) {
  if (!parse_options.registry) parse_options.registry = options.ops;
  ParseResult parsed = parse_program(text, std::move(file), parse_options);
  if (!parsed.ok() || (options.until == Stage::parse && options.passes.empty())) {
    CompileResult r;
    r.program = std::move(parsed.program);
    r.diagnostics = std::move(parsed.diagnostics);
    if (r.ok()) r.ran.push_back(Stage::parse);
    if (r.ok() && std::find(options.dump_after.begin(), options.dump_after.end(), Stage::parse) !=
                      options.dump_after.end())
      r.dumps.push_back(PassDump{Stage::parse, print(r.program, options.print_options)});
    return r;
  }
  CompileResult r = compile(parsed.program, options);
  r.ran.insert(r.ran.begin(), Stage::parse);
  r.diagnostics.insert(r.diagnostics.begin(), parsed.diagnostics.begin(), parsed.diagnostics.end());
  return r;
}

}  // namespace pto_mem::pypto
