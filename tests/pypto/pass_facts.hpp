// Running the later memory passes (alias, reuse, alloc) on post-InitMemRef
// IR and checking the conformance facts of the case files (docs/passes.md) on
// the result, in process.
//
// Own case files (tests/pypto/data/passes/*.pto) use the case header with
// `# passes: <planner>:<pass>+<pass>...`, e.g. `pypto:alias+reuse+alloc`,
// `dsa_rp:alias+alloc`, `ptoas:alias`; the program is written as InitMemRef
// leaves it (MemRef annotations and tile.alloc statements).
#pragma once

#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "pto_mem/pypto/passes/allocate_memory_addr.hpp"
#include "pto_mem/pypto/passes/materialize_semantic_aliases.hpp"
#include "pto_mem/pypto/passes/memory_reuse.hpp"
#include "pypto_support.hpp"

namespace pto_mem::test {

struct PassRun {
  pypto::Program program;
  pypto::PassContext ctx;
  pypto::SocPolicy soc;
  bool ok() const { return !ctx.failed(); }
};

inline std::optional<pypto::Planner> planner_named(const std::string& s) {
  if (s == "pypto") return pypto::Planner::pypto;
  if (s == "dsa_rp") return pypto::Planner::dsa_rp;
  if (s == "ptoas") return pypto::Planner::ptoas;
  return std::nullopt;
}

/// Runs `passes` ("alias+reuse+alloc") over `program` in order, stopping
/// after the first pass that reports an error.
inline void run_passes(PassRun& r, const std::string& passes) {
  r.ctx.soc = &r.soc;
  r.ctx.ops = &pypto::default_registry();
  std::istringstream in(passes);
  std::string pass;
  while (std::getline(in, pass, '+')) {
    if (pass == "alias")
      r.program = pypto::materialize_semantic_aliases(r.program, r.ctx);
    else if (pass == "reuse")
      r.program = pypto::memory_reuse(r.program, r.ctx);
    else if (pass == "alloc")
      r.program = pypto::allocate_memory_addr(r.program, r.ctx);
    else
      FAIL("unknown pass '" << pass << "'");
    if (r.ctx.failed()) return;
  }
}

inline PassRun run_text(const std::string& text, const std::string& passes,
                        pypto::Planner planner = pypto::Planner::pypto, const std::string& soc = "a2a3") {
  PassRun r;
  r.program = parse_ok(text);
  r.soc = *pypto::soc_by_name(soc);
  r.ctx.planner = planner;
  run_passes(r, passes);
  return r;
}

/// The variable named `name` (first definition in walk order), or null.
inline pypto::VarPtr find_var(const pypto::Program& p, const std::string& name) {
  pypto::VarPtr found;
  for (const auto& f : p.functions)
    pypto::passes::for_each_var_def(f, [&](const pypto::VarPtr& v) {
      if (!found && v->name == name) found = v;
    });
  return found;
}

inline std::vector<const pypto::AllocStmt*> allocs_of(const pypto::Program& p) {
  std::vector<const pypto::AllocStmt*> out;
  for (const auto& f : p.functions)
    pypto::for_each_stmt(f.body, [&](const pypto::Stmt& s) {
      if (const auto* a = s.as<pypto::AllocStmt>()) out.push_back(a);
    });
  return out;
}

inline bool any_message(const Diagnostics& ds, const std::string& s, bool errors) {
  for (const auto& d : ds)
    if ((d.severity == Severity::error) == errors && d.message.find(s) != std::string::npos) return true;
  return false;
}

/// Why `fact` does not hold on the run, or empty when it holds.
inline std::string check_fact(const PassRun& r, const pypto::CaseFact& fact) {
  using namespace pypto;
  auto var = [&](const std::string& n) { return find_var(r.program, n); };
  auto memref = [&](const std::string& n) -> MemRefPtr {
    auto v = var(n);
    return v ? passes::var_memref(v) : nullptr;
  };
  const auto& a = fact.args;
  if (fact.kind == "error") {
    if (r.ok()) return "the passes succeeded";
    for (const auto& alt : a)
      if (any_message(r.ctx.diagnostics, alt, true)) return {};
    return "no error mentions it: " + dump(r.ctx.diagnostics);
  }
  if (!r.ok()) return "the passes failed: " + dump(r.ctx.diagnostics);
  if (fact.kind == "diag") {
    for (const auto& d : r.ctx.diagnostics)
      if (d.message.find(a[0]) != std::string::npos) return {};
    return "no diagnostic mentions it";
  }
  if (fact.kind == "no-move")
    return r.ctx.moves.empty() ? std::string{} : "a move was inserted: " + r.ctx.moves[0].name;
  if (fact.kind == "move") {
    for (const auto& m : r.ctx.moves)
      if ((a[0] == "*" || m.name == a[0]) && m.source == a[1] && to_string(m.target) == a[2]) return {};
    return "no such inserted move";
  }
  if (fact.kind == "space") {
    auto v = var(a[0]);
    if (!v) return "no variable " + a[0];
    auto s = memory_space_of(v->type);
    return s && to_string(*s) == a[1] ? std::string{}
                                      : "its space is " + std::string(s ? to_string(*s) : "none");
  }
  if (fact.kind == "share" || fact.kind == "distinct") {
    auto x = memref(a[0]), y = memref(a[1]);
    if (!x || !y) return "a variable has no MemRef";
    const auto xo = x->const_offset(), yo = y->const_offset();
    const bool share = x->base == y->base && xo && yo && *xo == *yo && x->size == y->size;
    const bool distinct = x->base != y->base || (xo && yo &&
                                                 (*xo + static_cast<std::int64_t>(x->size) <= *yo ||
                                                  *yo + static_cast<std::int64_t>(y->size) <= *xo));
    const bool holds = fact.kind == "share" ? share : distinct;
    return holds ? std::string{}
                 : "MemRefs " + x->name() + "@" + print(x->byte_offset) + "+" + std::to_string(x->size) +
                       " and " + y->name() + "@" + print(y->byte_offset) + "+" + std::to_string(y->size);
  }
  if (fact.kind == "allocs") {
    std::size_t n = 0;
    for (const auto* s : allocs_of(r.program)) n += to_string(s->space) == a[0] && s->op == AllocOp::tile;
    return std::to_string(n) == a[1] ? std::string{} : "there are " + std::to_string(n);
  }
  if (fact.kind == "alloc-size" || fact.kind == "pinned") {
    auto m = memref(a[0]);
    if (!m) return "no MemRef";
    for (const auto* s : allocs_of(r.program))
      if (s->var == m->base) {
        if (fact.kind == "pinned") return s->pinned ? std::string{} : "not pinned";
        return std::to_string(s->size) == a[1] ? std::string{}
                                               : "the alloc has size " + std::to_string(s->size);
      }
    return "no alloc defines its base " + m->name();
  }
  if (fact.kind == "addr") {
    auto m = memref(a[0]);
    if (!m) return "no MemRef";
    auto o = m->const_offset();
    return o && std::to_string(*o) == a[1] ? std::string{} : "its offset is " + print(m->byte_offset);
  }
  return "unknown fact kind";
}

/// Checks every fact, one CHECK per fact with the reason when it fails.
inline void check_facts(const PassRun& r, const std::vector<pypto::CaseFact>& facts,
                        const std::string& where) {
  for (const auto& f : facts) {
    const std::string why = check_fact(r, f);
    INFO(where << ": " << f.text << ": " << why);
    CHECK(why.empty());
  }
}

/// Facts written one per line, as after `# expect:`.
inline std::vector<pypto::CaseFact> facts(const std::string& lines) {
  std::vector<pypto::CaseFact> out;
  std::istringstream in(lines);
  std::string line;
  std::size_t n = 0;
  while (std::getline(in, line))
    if (!pypto::detail::trim(line).empty())
      out.push_back(pypto::detail::parse_fact(pypto::detail::trim(line), ++n));
  return out;
}

}  // namespace pto_mem::test
