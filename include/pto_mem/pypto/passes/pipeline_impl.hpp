// The definitions of compile() and compile_source() (pipeline.hpp), with
// every pass they run. Included by pipeline.hpp in header-only mode; compiled
// once into pto_mem::pypto_compiled (src/pypto_pipeline.cpp) otherwise. A
// user of that library may include it for detail::pipeline (the two
// definitions are then left out: PTO_MEM_PYPTO_DEFINE is 0).
#pragma once

#include <algorithm>
#include <cstdint>
#include <exception>
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
#include "pto_mem/pypto/passes/pass_requirements.hpp"
#include "pto_mem/pypto/passes/pipeline.hpp"
#include "pto_mem/pypto/passes/planned_input.hpp"
#include "pto_mem/pypto/passes/pointer_map.hpp"
#include "pto_mem/pypto/passes/stmt_walk.hpp"
#include "pto_mem/pypto/verify/tile_storage.hpp"

namespace pto_mem::pypto {

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
    m.reserve(passes::defined_estimate(f));  // about one window per top-level statement
    for_each_window(f, [&](const Var& v, const MemRef& r) {
      if (r.byte_offset) m.try_emplace(v.name, r.byte_offset);
    });
  }
  return out;
}

/// The allocation's start given a window's offset before (`rel`) and after
/// (`abs`) AllocateMemoryAddr: abs - rel when both are constants, else c when
/// abs is `c + rel` or `rel + c` (a runtime slot), and 0
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
    // (allocation, start) in window order; the first window of an
    // allocation gives its start. Sorted by name (stably) and inserted at
    // the map's end: no search per window. A base that already gave a start
    // is skipped before any lookup: its later windows carry the same name,
    // so the first-per-name pass below would drop them anyway.
    std::vector<std::pair<std::string_view, std::int64_t>> found;
    PointerSet<const Var*> started;
    for_each_window(f, [&](const Var& v, const MemRef& m) {
      if (started.contains(m.base.get())) return;
      auto it = fr->second.find(v.name);
      if (it == fr->second.end()) return;
      if (auto a = start_address(m.byte_offset, it->second)) {
        started.insert(m.base.get());
        found.emplace_back(m.name(), *a);
      }
    });
    if (found.empty()) continue;
    std::stable_sort(found.begin(), found.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    auto& out = r.allocation_addresses[f.name];
    for (std::size_t k = 0; k < found.size(); ++k)
      if (k == 0 || found[k].first != found[k - 1].first)
        out.emplace_hint(out.end(), found[k].first, found[k].second);
  }
}

}  // namespace detail::pipeline

#if PTO_MEM_PYPTO_DEFINE

/// Runs the passes of `options.planner` up to `options.until` on `program`.
PTO_MEM_PYPTO_INLINE CompileResult compile(const Program& program, const CompileOptions& options) {
  CompileResult r;
  r.program = program;
  PassContext ctx;
  ctx.soc = &options.soc;
  ctx.planner = options.planner;
  ctx.ops = options.ops ? options.ops : &default_registry();
  ctx.buffer_ir = options.buffer_ir;
  ctx.logical_tile_selection = options.logical_tile_selection;

  auto dump = [&](Stage s) {
    if (std::find(options.dump_after.begin(), options.dump_after.end(), s) != options.dump_after.end())
      r.dumps.push_back(PassDump{s, print(r.program, options.print_options)});
  };
  dump(Stage::parse);
  // Unregistered ops first: under UnknownOps::error no pass plans a call it
  // knows nothing about.
  for (auto& d : check_unknown_ops(r.program, *ctx.ops, options.unknown_ops))
    ctx.diagnostics.push_back(std::move(d));
  if (ctx.failed()) {
    r.diagnostics = std::move(ctx.diagnostics);
    return r;
  }
  detail::pipeline::RelativeOffsets relative;
  // A planned program read back: the names of its allocations, given back after the passes.
  const passes::PlannedNames planned = passes::planned_names(r.program);
  bool restored = false;
  const bool chosen = !options.passes.empty();
  const std::vector<Stage> order =
      chosen ? options.passes
             : std::vector<Stage>{Stage::infer, Stage::init, Stage::alias, Stage::reuse, Stage::alloc};
  for (Stage s : order) {
    if (!chosen && s > options.until) break;
    if (!chosen && !runs(options.planner, s)) continue;
    if (s == Stage::parse) continue;
    // A pass run on its own says which property its input lacks, instead of
    // running on the wrong input (in the full pipeline the verifiers of the
    // passes before it have already established them).
    if (chosen && !detail::pipeline::check_requirements(s, r.program, ctx)) break;
    // Names back before the placement: the sequential planner places in name order.
    if (s == Stage::alloc && !planned.functions.empty() && !restored) {
      (void)passes::restore_names(r.program, planned);
      restored = true;
    }
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
                  " after InitMemRef: a phi or loop carry takes the space of the value whose buffer it "
                  "shares; "
                  "produce that value in the space its consumer needs (the branch arms or the loop "
                  "initializer)";
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
  if (!planned.functions.empty() && !restored && !ctx.failed() && !r.ran.empty()) {
    const auto renamed = passes::restore_names(r.program, planned);
    for (auto& [fn, addrs] : r.allocation_addresses) {
      auto it = renamed.find(fn);
      if (it == renamed.end() || it->second.empty()) continue;
      std::map<std::string, std::int64_t> fixed;
      for (auto& [name, addr] : addrs) {
        auto n = it->second.find(name);
        fixed.emplace(n == it->second.end() ? name : n->second, addr);
      }
      addrs = std::move(fixed);
    }
  }
  // The planned program leaves the library only if every read sees its value.
  // Passes run one at a time are checked once a pass that shares or places
  // storage has run (their input already has MemRefs).
  const bool shares_storage =
      chosen
          ? std::any_of(r.ran.begin(), r.ran.end(),
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
PTO_MEM_PYPTO_INLINE CompileResult compile_source(std::string_view text, std::string file,
                                                  const CompileOptions& options, ParseOptions parse_options) {
  if (!parse_options.registry) parse_options.registry = options.ops;
  ParseResult parsed = parse_program(text, std::move(file), parse_options);
  if (!parsed.ok() || (options.until == Stage::parse && options.passes.empty())) {
    CompileResult r;
    r.program = std::move(parsed.program);
    r.diagnostics = std::move(parsed.diagnostics);
    if (r.ok()) {
      const OpRegistry& ops = options.ops ? *options.ops : default_registry();
      for (auto& d : check_unknown_ops(r.program, ops, options.unknown_ops))
        r.diagnostics.push_back(std::move(d));
    }
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
#endif

}  // namespace pto_mem::pypto
