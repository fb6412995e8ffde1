// A JSON report of a program for tools and conformance checks (the shape is
// documented in docs/pypto-ir.md):
//
//   {"ok": bool,
//    "functions": [{"name", "kind",
//                   "allocations": [{"base", "space", "size", "addr", "pinned", "slots"}],
//                   "vars": [{"name", "space", "memref": {"base", "offset", "size", "slot"} | null}],
//                   "moves": [{"name", "source", "target", "line", "column"}]}],
//    "diagnostics": [{"severity", "code", "message", "line", "column"}]}
//
// Offsets and slot indices are integers when constant, else the expression
// text. `addr` is null until a planner assigns addresses (ReportOptions).
// Keys keep this order; output is deterministic.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "pto_mem/core/compiled_mode.hpp"
#include "pto_mem/pypto/text/printer.hpp"

namespace pto_mem::pypto {

/// A tile.move a pass inserted (the report's "moves").
struct InsertedMove {
  InsertedMove() = default;
  // A constructor rather than an aggregate, so `InsertedMove{f, name, source,
  // target}` stays valid (and warning-free) with or without a location.
  InsertedMove(std::string fn, std::string move, std::string from, MemorySpace to, Loc at = {})
      : function(std::move(fn)), name(std::move(move)), source(std::move(from)), target(to), loc(at) {}

  std::string function;
  std::string name;    ///< the move's result variable
  std::string source;  ///< the moved variable
  MemorySpace target = MemorySpace::Vec;
  Loc loc;  ///< the statement the move was inserted before (unknown: 0:0)
};

struct ReportOptions {
  /// Allocation addresses are known (after AllocateMemoryAddr): an
  /// allocation's `addr` is its entry in `allocation_addresses`, else the
  /// smallest constant offset of a MemRef on it.
  bool addresses_assigned = false;
  std::vector<InsertedMove> moves;
  /// Start address per function name, then allocation (base) name; the
  /// pipeline fills it (CompileResult::allocation_addresses).
  std::map<std::string, std::map<std::string, std::int64_t>> allocation_addresses;
};

namespace detail {

inline nlohmann::ordered_json expr_json(const ExprPtr& e) {
  if (!e) return nullptr;
  if (auto v = as_const_int(e)) return *v;
  return print(e);
}

/// Parameters, assignment targets, iter-args, loop return vars, if-phis.
class ReportVars : public IRVisitor {
 public:
  std::vector<VarPtr> vars;
  std::vector<const AllocStmt*> allocs;
  void visit_assign(const AssignStmt& s) override {
    IRVisitor::visit_assign(s);
    vars.push_back(s.var);
  }
  void visit_alloc(const AllocStmt& s) override { allocs.push_back(&s); }
  void visit_for(const ForStmt& s) override {
    for (const auto& ia : s.iter_args) vars.push_back(ia.var);
    IRVisitor::visit_for(s);
    vars.insert(vars.end(), s.return_vars.begin(), s.return_vars.end());
  }
  void visit_while(const WhileStmt& s) override {
    for (const auto& ia : s.iter_args) vars.push_back(ia.var);
    IRVisitor::visit_while(s);
    vars.insert(vars.end(), s.return_vars.begin(), s.return_vars.end());
  }
  void visit_if(const IfStmt& s) override {
    IRVisitor::visit_if(s);
    vars.insert(vars.end(), s.return_vars.begin(), s.return_vars.end());
  }
};

}  // namespace detail

[[nodiscard]] inline nlohmann::ordered_json diagnostic_json(const Diagnostic& d) {
  nlohmann::ordered_json j;
  j["severity"] = to_string(d.severity);
  j["code"] = d.code;
  j["message"] = d.message;
  if (d.location && d.location->line)
    j["line"] = d.location->line;
  else
    j["line"] = nullptr;
  if (d.location && d.location->column)
    j["column"] = d.location->column;
  else
    j["column"] = nullptr;
  return j;
}

[[nodiscard]] inline nlohmann::ordered_json function_json(const Function& f,
                                                          const ReportOptions& options = {}) {
  detail::ReportVars walk;
  walk.visit_function(f);
  std::vector<VarPtr> vars;
  for (const auto& p : f.params) vars.push_back(p.var);
  vars.insert(vars.end(), walk.vars.begin(), walk.vars.end());

  // Slot counts and lowest constant offsets per base, from every MemRef.
  std::unordered_map<const Var*, std::uint64_t> slots;
  std::unordered_map<const Var*, std::int64_t> lowest;
  for (const auto& v : vars)
    if (auto m = memref_of(v->type); m && m->base) {
      auto& s = slots[m->base.get()];
      s = std::max<std::uint64_t>(s, m->slot_count);
      if (auto o = m->const_offset()) {
        auto it = lowest.find(m->base.get());
        if (it == lowest.end() || *o < it->second) lowest[m->base.get()] = *o;
      }
    }

  nlohmann::ordered_json j;
  j["name"] = f.name;
  j["kind"] = to_string(f.kind);
  auto allocs = nlohmann::ordered_json::array();
  const auto known = options.allocation_addresses.find(f.name);
  for (const auto* a : walk.allocs) {
    nlohmann::ordered_json x;
    x["base"] = a->var->name;
    x["space"] = to_string(a->space);
    x["size"] = a->size;
    auto lo = lowest.find(a->var.get());
    std::optional<std::int64_t> addr;
    if (known != options.allocation_addresses.end())
      if (auto k = known->second.find(a->var->name); k != known->second.end()) addr = k->second;
    if (!addr && lo != lowest.end()) addr = lo->second;
    if (options.addresses_assigned && addr)
      x["addr"] = *addr;
    else
      x["addr"] = nullptr;
    x["pinned"] = a->pinned;
    auto s = slots.find(a->var.get());
    x["slots"] = s == slots.end() ? 1 : s->second;
    allocs.push_back(std::move(x));
  }
  j["allocations"] = std::move(allocs);
  auto vs = nlohmann::ordered_json::array();
  for (const auto& v : vars) {
    nlohmann::ordered_json x;
    x["name"] = v->name;
    if (auto s = memory_space_of(v->type))
      x["space"] = to_string(*s);
    else
      x["space"] = nullptr;
    if (auto m = memref_of(v->type)) {
      nlohmann::ordered_json mj;
      mj["base"] = m->name();
      mj["offset"] = detail::expr_json(m->byte_offset);
      mj["size"] = m->size;
      mj["slot"] = detail::expr_json(m->slot_index);
      x["memref"] = std::move(mj);
    } else {
      x["memref"] = nullptr;
    }
    vs.push_back(std::move(x));
  }
  j["vars"] = std::move(vs);
  auto moves = nlohmann::ordered_json::array();
  for (const auto& m : options.moves) {
    if (m.function != f.name) continue;
    nlohmann::ordered_json x;
    x["name"] = m.name;
    x["source"] = m.source;
    x["target"] = to_string(m.target);
    if (m.loc.known())
      x["line"] = m.loc.line;
    else
      x["line"] = nullptr;
    if (m.loc.known() && m.loc.column)
      x["column"] = m.loc.column;
    else
      x["column"] = nullptr;
    moves.push_back(std::move(x));
  }
  j["moves"] = std::move(moves);
  return j;
}

/// The whole report; `ok` is false when any diagnostic is an error.
[[nodiscard]] PTO_MEM_PYPTO_INLINE nlohmann::ordered_json report_json(const Program& p,
                                                                      const Diagnostics& diagnostics,
                                                                      const ReportOptions& options = {});
#if PTO_MEM_PYPTO_DEFINE
[[nodiscard]] PTO_MEM_PYPTO_INLINE nlohmann::ordered_json report_json(const Program& p,
                                                                      const Diagnostics& diagnostics,
                                                                      const ReportOptions& options) {
  nlohmann::ordered_json j;
  j["ok"] = !has_errors(diagnostics);
  auto fns = nlohmann::ordered_json::array();
  for (const auto& f : p.functions) fns.push_back(function_json(f, options));
  j["functions"] = std::move(fns);
  auto ds = nlohmann::ordered_json::array();
  for (const auto& d : diagnostics) ds.push_back(diagnostic_json(d));
  j["diagnostics"] = std::move(ds);
  return j;
}
#endif

}  // namespace pto_mem::pypto
