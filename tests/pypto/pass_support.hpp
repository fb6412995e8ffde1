// Helpers for the tests of the tile-memory passes and the pipeline.
#pragma once

#include <string>
#include <vector>

#include "pto_mem/pypto/passes/pipeline.hpp"
#include "pypto_support.hpp"

namespace pto_mem::test {

/// Compiles `text` up to `until`; the result may have failed.
inline pypto::CompileResult compile_text(const std::string& text, pypto::Stage until,
                                         pypto::Planner planner = pypto::Planner::pypto,
                                         const pypto::SocPolicy& soc = pypto::soc_a2a3(),
                                         const pypto::OpRegistry* ops = nullptr) {
  pypto::CompileOptions o;
  o.until = until;
  o.planner = planner;
  o.soc = soc;
  o.ops = ops;
  return pypto::compile_source(text, "test.pto", o);
}

/// Compiles `text` up to `until`, failing the test when any error is reported.
inline pypto::CompileResult compile_ok(const std::string& text, pypto::Stage until,
                                       pypto::Planner planner = pypto::Planner::pypto,
                                       const pypto::SocPolicy& soc = pypto::soc_a2a3(),
                                       const pypto::OpRegistry* ops = nullptr) {
  auto r = compile_text(text, until, planner, soc, ops);
  INFO(dump(r.diagnostics));
  REQUIRE(r.ok());
  return r;
}

/// Every variable a function defines (parameters, assignment targets, loop
/// vars, iter-args, return vars, phis), in program order.
inline std::vector<pypto::VarPtr> defined_vars(const pypto::Function& f) {
  struct Defs : pypto::IRVisitor {
    std::vector<pypto::VarPtr> vars;
    void visit_var_def(const pypto::VarPtr& v) override { vars.push_back(v); }
  } d;
  d.visit_function(f);
  return d.vars;
}

/// The variables named `name` (several when sibling blocks reuse a name).
inline std::vector<pypto::VarPtr> vars_named(const pypto::Program& p, const std::string& name) {
  std::vector<pypto::VarPtr> out;
  for (const auto& f : p.functions)
    for (const auto& v : defined_vars(f))
      if (v->name == name) out.push_back(v);
  return out;
}

/// The one variable named `name`.
inline pypto::VarPtr var(const pypto::Program& p, const std::string& name) {
  auto vs = vars_named(p, name);
  INFO("variable " << name);
  REQUIRE(vs.size() == 1);
  return vs.front();
}

inline std::optional<pypto::MemorySpace> space(const pypto::Program& p, const std::string& name) {
  return pypto::memory_space_of(var(p, name)->type);
}

inline pypto::MemRefPtr memref(const pypto::Program& p, const std::string& name) {
  return pypto::memref_of(var(p, name)->type);
}

/// Alloc statements of a function's top-level body, in order.
inline std::vector<const pypto::AllocStmt*> allocs(const pypto::Function& f) {
  std::vector<const pypto::AllocStmt*> out;
  pypto::for_each_stmt(f.body, [&](const pypto::Stmt& s) {
    if (const auto* a = s.as<pypto::AllocStmt>()) out.push_back(a);
  });
  return out;
}

/// The tile.move statements (`name = tile.move(...)`) of a function.
inline std::vector<const pypto::AssignStmt*> move_stmts(const pypto::Function& f) {
  std::vector<const pypto::AssignStmt*> out;
  pypto::for_each_stmt(f.body, [&](const pypto::Stmt& s) {
    const auto* a = s.as<pypto::AssignStmt>();
    const auto* c = a && a->value ? a->value->as<pypto::Call>() : nullptr;
    if (c && c->op == "tile.move") out.push_back(a);
  });
  return out;
}

/// The first diagnostic with `code`, or null.
inline const Diagnostic* with_code(const Diagnostics& ds, const std::string& code) {
  for (const auto& d : ds)
    if (d.code == code) return &d;
  return nullptr;
}

/// A kernel header: `def main(x: Tensor[[64, 64], FP32], ..., out: Out[...])`.
inline std::string kernel(const std::string& params, const std::string& body,
                          const std::string& kind = "InCore") {
  return "@function(type=" + kind + ")\ndef main(" + params + "):\n" + body;
}

}  // namespace pto_mem::test
