// Property test of the tile-storage verifier and of the memory passes.
//
// Random kernels (storage_kernel_gen.hpp) are compiled under the three
// planners; the byte-window interpreter (storage_interpreter.hpp) runs each
// planned program against value semantics. Checks:
//   (a) soundness of the verifier: when it accepts a program, the
//       interpreter finds no mismatch (this must never fail);
//   (b) mutation: correct planned programs with one MemRef moved onto
//       another value's window; every mutant the interpreter finds wrong
//       must be rejected by the verifier;
//   (c) the passes: compile() (verifier on) must succeed on every
//       generated kernel that needs no impossible copy, its output must be
//       interpreter-correct, and one that needs an Acc-to-Acc copy must be
//       refused with code unsupported-copy;
// plus the storage reproducers (tests/pypto/storage_cases/*.pto) under
// every planner. Every check also runs with logical tile selection on (the
// PYPTO and DSA_RP planners; on every other kernel in (a) and (b)), where
// the phis it selects have run-time windows the verifier and the interpreter
// must follow; (d), run with (c), checks that it does select, and that a
// selection whose slot index is flipped is found wrong.
#include <doctest/doctest.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "pto_mem/pypto/ir/clone.hpp"
#include "pto_mem/pypto/passes/pipeline.hpp"
#include "pto_mem/pypto/passes/stmt_walk.hpp"
#include "pto_mem/pypto/verify/tile_storage.hpp"
#include "storage_interpreter.hpp"
#include "storage_kernel_gen.hpp"

using namespace pto_mem;
using namespace pto_mem::pypto;
using namespace pto_mem::test;

namespace {

// Fewer kernels in unoptimised and sanitizer builds (CI runs those at -O0).
#if defined(__SANITIZE_ADDRESS__)
constexpr bool slow_build = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(undefined_behavior_sanitizer)
constexpr bool slow_build = true;
#elif defined(NDEBUG)
constexpr bool slow_build = false;
#else
constexpr bool slow_build = true;
#endif
#elif defined(NDEBUG)
constexpr bool slow_build = false;
#else
constexpr bool slow_build = true;
#endif

// PTO_MEM_PROPERTY_SEEDS=N runs N kernels instead (as passes_property_test does).
inline const std::uint64_t kernel_count = [] {
  const char* env = std::getenv("PTO_MEM_PROPERTY_SEEDS");
  return env ? std::strtoull(env, nullptr, 10) : (slow_build ? 150 : 1500);
}();
constexpr std::uint64_t interpreter_runs = 3;

/// A planner, with logical tile selection (PassContext::logical_tile_selection) on or off.
struct Config {
  Planner planner = Planner::pypto;
  bool selection = false;
  friend auto operator<=>(const Config&, const Config&) = default;
};
constexpr Config configs[] = {{Planner::pypto, false},
                              {Planner::dsa_rp, false},
                              {Planner::ptoas, false},
                              {Planner::pypto, true},
                              {Planner::dsa_rp, true}};

/// (a) and (b) run the selection configs on every other kernel (they are
/// twice as many planners; (c) and (d) run them on every kernel).
bool runs(Config c, std::uint64_t seed) { return !c.selection || seed % 2 == 0; }

std::string name(Config c) { return std::string(to_string(c.planner)) + (c.selection ? "+selection" : ""); }

CompileResult compile_text(const std::string& text, Config c, bool verify_storage,
                           const std::string& file = "gen.pto") {
  CompileOptions o;
  o.planner = c.planner;
  o.logical_tile_selection = c.selection;
  o.soc = soc_a2a3();
  o.verify_storage = verify_storage;
  return compile_source(text, file, o);
}

std::size_t selections(const CompileResult& r) {
  return static_cast<std::size_t>(
      std::count_if(r.diagnostics.begin(), r.diagnostics.end(),
                    [](const Diagnostic& d) { return d.code == "logical-tile-selection"; }));
}

/// The first interpreter mismatch over a few runs (branch choices and scalars vary), or empty.
std::string interpret(const Program& p, bool addresses_assigned, std::uint64_t seed) {
  for (std::uint64_t run = 0; run < interpreter_runs; ++run)
    for (const auto& f : p.functions) {
      StorageInterpreter::Options o;
      o.addresses_assigned = addresses_assigned;
      o.seed = seed * 131 + run;
      o.soc = "a2a3";
      std::string why = StorageInterpreter(f, o).run();
      if (!why.empty()) return why;
    }
  return {};
}

Diagnostics verify_storage(const Program& p, bool addresses_assigned) {
  TileStorageOptions o;
  o.addresses_assigned = addresses_assigned;
  o.soc = "a2a3";
  return verify_tile_storage(p, o);
}

std::string storage_dump(const Diagnostics& ds) {
  std::string s;
  for (const auto& d : ds) s += format(d) + "\n";
  return s;
}

bool has_code(const Diagnostics& ds, std::string_view code) {
  return std::any_of(ds.begin(), ds.end(), [&](const Diagnostic& d) { return d.code == code; });
}

// ---- mutation -------------------------------------------------------------------------

/// Every tile variable with a constant window, in program order.
void tile_defs(const StmtPtr& s, std::vector<VarPtr>& out) {
  if (!s) return;
  auto add = [&](const VarPtr& v) {
    const auto* t = as_tile(v->type);
    if (t && t->memref && t->memref->base && t->space && *t->space != MemorySpace::DDR &&
        t->memref->const_offset())
      out.push_back(v);
  };
  switch (s->kind) {
    case StmtKind::Seq:
      for (const auto& c : s->as<SeqStmts>()->stmts) tile_defs(c, out);
      break;
    case StmtKind::Assign: add(s->as<AssignStmt>()->var); break;
    case StmtKind::For: {
      const auto* l = s->as<ForStmt>();
      for (const auto& ia : l->iter_args) add(ia.var);
      tile_defs(l->body, out);
      for (const auto& r : l->return_vars) add(r);
      break;
    }
    case StmtKind::While: {
      const auto* l = s->as<WhileStmt>();
      for (const auto& ia : l->iter_args) add(ia.var);
      tile_defs(l->body, out);
      for (const auto& r : l->return_vars) add(r);
      break;
    }
    case StmtKind::If: {
      const auto* i = s->as<IfStmt>();
      tile_defs(i->then_body, out);
      tile_defs(i->else_body, out);
      for (const auto& r : i->return_vars) add(r);
      break;
    }
    default: break;
  }
}

/// Moves one tile's window onto another's (same space), so that two values
/// may now share bytes; false when the program has no such pair.
bool mutate(Program& p, std::mt19937_64& rng) {
  std::vector<VarPtr> defs;
  for (const auto& f : p.functions) tile_defs(f.body, defs);
  if (defs.size() < 2) return false;
  std::uniform_int_distribution<std::size_t> any(0, defs.size() - 1);
  for (int attempt = 0; attempt < 8; ++attempt) {
    const VarPtr& victim = defs[any(rng)];
    const VarPtr& other = defs[any(rng)];
    const auto* t = as_tile(victim->type);
    const auto* u = as_tile(other->type);
    if (t->space != u->space ||
        (same_allocation(*t->memref, *u->memref) && t->memref->const_offset() == u->memref->const_offset()))
      continue;
    // Onto the other's base and offset (a half-window shift sometimes): a
    // partial overlap is as wrong as a full one.
    std::int64_t off = *u->memref->const_offset();
    if (std::bernoulli_distribution(0.3)(rng))
      off += static_cast<std::int64_t>(u->memref->size / 2) / 32 * 32;
    victim->type = with_memref(victim->type, make_memref(u->memref->base, int_imm(off), t->memref->size,
                                                         t->memref->slot_count, t->memref->slot_index));
    return true;
  }
  return false;
}

/// Flips the slot index one arm of a logical tile selection yields (the
/// then arm's of the `which`-th selecting if, counted modulo their number),
/// so its phi now names the other arm's slot; false when nothing is selected.
bool flip_selection(Program& p, std::size_t which) {
  struct Flip : IRMutator {
    std::size_t seen = 0, target = 0;
    bool done = false;
    std::size_t selecting = 0;  // first pass: how many ifs select
    bool counting = true;
    StmtPtr mutate_if(const IfStmt& s, const StmtPtr& self) override {
      StmtPtr r = IRMutator::mutate_if(s, self);
      const auto* i = r->as<IfStmt>();
      std::optional<std::size_t> slot;  // the index of the scalar result a tile phi's window uses
      for (const auto& phi : i->return_vars)
        if (const auto m = memref_of(phi->type))
          if (const auto index = as_var(m->slot_index))
            for (std::size_t j = 0; j < i->return_vars.size(); ++j)
              if (i->return_vars[j] == index) slot = j;
      if (!slot) return r;
      if (counting) {
        ++selecting;
        return r;
      }
      if (done || seen++ != target) return r;
      const auto* body = i->then_body->as<SeqStmts>();
      const YieldStmt* y = terminating_yield(i->then_body);
      if (!body || body->stmts.empty() || body->stmts.back().get() != y) return r;
      std::vector<ExprPtr> values = y->values;
      const auto c = as_const_int(values[*slot]);
      if (!c) return r;
      values[*slot] = int_imm(1 - *c);
      std::vector<StmtPtr> stmts = body->stmts;
      stmts.back() = yield(std::move(values), y->loc);
      done = true;
      return std::make_shared<const IfStmt>(i->condition, seq(std::move(stmts), body->loc), i->else_body,
                                            i->return_vars, i->loc);
    }
  } flip;
  for (const auto& f : p.functions) (void)flip.mutate_function(f);
  if (flip.selecting == 0) return false;
  flip.counting = false;
  flip.target = which % flip.selecting;
  for (auto& f : p.functions) f = flip.mutate_function(f);
  return flip.done;
}

struct Tally {
  std::size_t compiled = 0, accepted = 0, rejected_seen = 0, rejected_unseen = 0, mutants = 0,
              wrong_mutants = 0, killed = 0;
};

}  // namespace

TEST_CASE("storage property (a): what the verifier accepts, the interpreter runs right") {
  // Compiled with the verifier off, so that wrong programs reach both checkers.
  std::map<Config, Tally> tally;
  std::size_t unsound = 0, shown = 0;
  for (std::uint64_t seed = 1; seed <= kernel_count; ++seed) {
    const std::string text = StorageKernelGen(seed).make();
    for (Config p : configs) {
      if (!runs(p, seed)) continue;
      CompileResult r = compile_text(text, p, false);
      if (!r.ok()) continue;
      ++tally[p].compiled;
      const Diagnostics ds = verify_storage(r.program, r.addresses_assigned);
      if (!ds.empty()) {
        // Rejected: does the interpreter see it too? (It need not: it runs a
        // few paths, the verifier proves all of them.)
        const bool seen = !interpret(r.program, r.addresses_assigned, seed).empty();
        ++(seen ? tally[p].rejected_seen : tally[p].rejected_unseen);
        if (!seen && std::getenv("PTO_MEM_SHOW_UNSEEN") && shown++ < 2)
          MESSAGE("rejected, interpreter saw nothing: " << storage_dump(ds) << print(r.program));
        continue;
      }
      ++tally[p].accepted;
      const std::string why = interpret(r.program, r.addresses_assigned, seed);
      if (!why.empty() && unsound++ < 3)
        FAIL_CHECK("the verifier accepted a wrong program (seed " << seed << ", planner " << name(p)
                                                                  << "): " << why << "\n"
                                                                  << text << "\nplanned:\n"
                                                                  << print(r.program));
    }
  }
  for (auto& [p, t] : tally)
    MESSAGE(name(p) << ": " << t.compiled << " compiled, " << t.accepted
                    << " accepted by the verifier; rejected " << t.rejected_seen
                    << " the interpreter also finds wrong, " << t.rejected_unseen
                    << " where its runs found nothing");
  CHECK(unsound == 0);
  for (Config p : configs) CHECK(tally[p].compiled > kernel_count / (p.selection ? 4 : 2));
}

TEST_CASE("storage property (b): the verifier rejects every mutant the interpreter finds wrong") {
  std::map<Config, Tally> tally;
  std::size_t missed = 0;
  std::mt19937_64 rng(7);
  for (std::uint64_t seed = 1; seed <= kernel_count; ++seed) {
    const std::string text = StorageKernelGen(seed).make();
    for (Config p : configs) {
      if (!runs(p, seed)) continue;
      CompileResult r = compile_text(text, p, false);
      if (!r.ok() || !verify_storage(r.program, r.addresses_assigned).empty()) continue;
      for (int m = 0; m < 3; ++m) {
        Program mutant = clone(r.program);
        if (!mutate(mutant, rng)) break;
        ++tally[p].mutants;
        const std::string why =
            interpret(mutant, r.addresses_assigned, seed + 1000 * static_cast<std::uint64_t>(m));
        if (why.empty()) continue;
        ++tally[p].wrong_mutants;
        if (!verify_storage(mutant, r.addresses_assigned).empty()) {
          ++tally[p].killed;
        } else if (missed++ < 3) {
          FAIL_CHECK("the verifier accepted a mutant the interpreter finds wrong (seed "
                     << seed << ", planner " << name(p) << "): " << why << "\n"
                     << print(mutant));
        }
      }
    }
  }
  std::size_t wrong = 0;
  for (auto& [p, t] : tally) {
    MESSAGE(name(p) << ": " << t.mutants << " mutants, " << t.wrong_mutants << " wrong, " << t.killed
                    << " rejected");
    wrong += t.wrong_mutants;
  }
  CHECK(missed == 0);
  CHECK(wrong > kernel_count / 4);  // the mutation test is not vacuous
}

namespace {

/// The selected phis of a compile (a tile phi whose slot index is one of
/// its if's own results) whose arm value is a copy a pass inserted, by name.
std::vector<std::string> selected_phis_fed_by_copies(const CompileResult& r) {
  std::vector<std::string> out;
  for (const auto& f : r.program.functions) {
    std::set<std::string> copies;
    for (const auto& m : r.moves)
      if (m.function == f.name) copies.insert(m.name);
    for_each_statement(f.body, [&](const Stmt& s) {
      const auto* i = s.as<IfStmt>();
      if (!i) return;
      for (std::size_t k = 0; k < i->return_vars.size(); ++k) {
        const auto m = memref_of(i->return_vars[k]->type);
        const auto index = m ? as_var(m->slot_index) : nullptr;
        if (!index || std::find(i->return_vars.begin(), i->return_vars.end(), index) == i->return_vars.end())
          continue;
        for (const StmtPtr& arm : {i->then_body, i->else_body})
          if (const YieldStmt* y = terminating_yield(arm); y && k < y->values.size())
            if (auto v = as_var(y->values[k]); v && copies.contains(v->name))
              out.push_back(i->return_vars[k]->name);
      }
    });
  }
  return out;
}

/// What (c) learns of logical tile selection from the programs it planned.
struct SelectionFacts {
  std::map<Planner, std::size_t> selected, kernels_with;
  std::size_t unasked = 0, in_mat = 0, flipped = 0, rejected = 0, seen_wrong = 0, missed = 0;

  void record(const CompileResult& r, Config p, std::uint64_t seed) {
    const std::size_t n = selections(r);
    if (!p.selection) {
      unasked += n;
      return;
    }
    selected[p.planner] += n;
    kernels_with[p.planner] += n > 0;
    for (const auto& d : r.diagnostics)
      in_mat +=
          d.code == "logical-tile-selection" && d.message.find("allocation mem_mat_") != std::string::npos;
    const auto copied = selected_phis_fed_by_copies(r);
    CHECK_MESSAGE(copied.empty(), "seed " << seed << ": a selected phi is fed by a copy: "
                                          << (copied.empty() ? std::string() : copied.front()));
    if (n == 0) return;
    Program mutant = clone(r.program);
    if (!flip_selection(mutant, seed)) return;
    ++flipped;
    const bool wrong = !interpret(mutant, r.addresses_assigned, seed).empty();
    const bool refused = !verify_storage(mutant, r.addresses_assigned).empty();
    seen_wrong += wrong;
    rejected += refused;
    if (!refused && std::getenv("PTO_MEM_SHOW_ACCEPTED_FLIPS")) MESSAGE(print(mutant));
    if (wrong && !refused && missed++ < 3)
      FAIL_CHECK("the verifier accepted a flipped selection the interpreter finds wrong (seed "
                 << seed << ", " << name(p) << "):\n"
                 << print(mutant));
  }

  void check(std::uint64_t kernels) const {
    for (auto& [p, n] : selected)
      MESSAGE(to_string(p) << "+selection: " << n << " phis selected in " << kernels_with.at(p) << " of "
                           << kernels << " kernels");
    MESSAGE(in_mat << " of them in Mat; " << flipped << " selections flipped: " << rejected
                   << " rejected by the verifier, " << seen_wrong
                   << " found wrong by the interpreter's runs");
    CHECK(unasked == 0);
    CHECK(in_mat > 0);
    for (Planner p : {Planner::pypto, Planner::dsa_rp}) {
      const auto it = selected.find(p);
      CHECK((it != selected.end() ? it->second : 0) > kernels / 20);
    }
    CHECK(missed == 0);
    CHECK(flipped > kernels / 10);
    CHECK(rejected * 10 > flipped * 9);
    CHECK(seen_wrong > 0);
  }
};

}  // namespace

TEST_CASE(
    "storage property (c), (d): compile() plans every generated kernel right; logical tile selection "
    "selects") {
  // (c) A refusal is right only for a kernel that needs a copy no hardware
  // has (the generator knows when it wrote one: an Acc carry whose input is
  // read after the peeled if); every other kernel must compile, pass the
  // verifier and run right in the interpreter.
  // (d) Logical tile selection does select (the checks are not vacuous for
  // it; in Vec and in Mat), never without being asked, a selected if copies
  // nothing at its exit for the selected phi, and the slot index is the whole
  // of a selection's meaning: flip the one an arm yields, and the phi names
  // the other arm's value. Every flipped program the interpreter finds wrong
  // must be rejected by the verifier, which rejects nearly all of them (the
  // arm's value is not on the window its slot gives the phi) -- all but those
  // in code that never runs (an if inside a zero-trip loop), which it
  // rightly accepts.
  std::size_t failures = 0, refused = 0, rightly_refused = 0, needing_copy = 0;
  std::map<std::string, std::size_t> refusals;
  SelectionFacts selection;
  for (std::uint64_t seed = 1; seed <= kernel_count; ++seed) {
    StorageKernelGen gen(seed);
    const std::string text = gen.make();
    needing_copy += gen.needs_acc_copy();
    for (Config p : configs) {
      CompileResult r = compile_text(text, p, true);
      std::string why;
      if (has_code(r.diagnostics, "tile-storage")) {
        why = "the tile-storage verifier rejected the planned program:\n" + storage_dump(r.diagnostics);
      } else if (!r.ok()) {
        if (gen.needs_acc_copy() && has_code(r.diagnostics, "unsupported-copy") &&
            storage_dump(r.diagnostics).find("Acc") != std::string::npos) {
          ++rightly_refused;
          continue;
        }
        ++refused;
        ++refusals[r.diagnostics.empty() ? "?" : r.diagnostics.front().code];
        why = "refused:\n" + storage_dump(r.diagnostics);
      } else {
        why = interpret(r.program, r.addresses_assigned, seed);
        selection.record(r, p, seed);
      }
      if (why.empty()) continue;
      if (failures++ < 3)
        FAIL_CHECK("seed " << seed << ", planner " << name(p) << ": " << why << "\n" << text);
    }
  }
  for (auto& [code, n] : refusals) MESSAGE(n << " compiles refused with code '" << code << "'");
  MESSAGE(failures << " wrong or refused plans of " << kernel_count * std::size(configs) << "; "
                   << rightly_refused << " refusals of the " << needing_copy
                   << " kernels that need an Acc-to-Acc copy");
  CHECK(failures == 0);
  CHECK(refused == 0);
  CHECK(needing_copy < kernel_count / 4);  // most kernels are ones the passes must plan
  selection.check(kernel_count);
}

namespace {
std::vector<std::filesystem::path> storage_cases() {
  std::vector<std::filesystem::path> out;
  for (const auto& e : std::filesystem::directory_iterator(std::filesystem::path(PTO_MEM_SOURCE_DIR) /
                                                           "tests/pypto/storage_cases"))
    if (e.path().extension() == ".pto") out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}
}  // namespace

TEST_CASE("storage cases: the storage reproducers compile right under every planner") {
  const auto cases = storage_cases();
  REQUIRE(cases.size() >= 9);
  for (const auto& path : cases) {
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    for (Config p : configs) {
      CAPTURE(path.filename().string());
      CAPTURE(name(p));
      CompileResult r = compile_text(text.str(), p, true, path.filename().string());
      CHECK_MESSAGE(!has_code(r.diagnostics, "tile-storage"), storage_dump(r.diagnostics));
      // A case may say which refusal the seeds make (`# refusal-allowed: TEXT`):
      // an error containing TEXT is then a right answer too.
      const std::string tag = "# refusal-allowed: ";
      const auto at = text.str().find(tag);
      const std::string allowed =
          at == std::string::npos
              ? ""
              : text.str().substr(at + tag.size(), text.str().find('\n', at) - at - tag.size());
      const bool refused_as_allowed =
          !r.ok() && !allowed.empty() && storage_dump(r.diagnostics).find(allowed) != std::string::npos;
      CHECK_MESSAGE((r.ok() || refused_as_allowed), storage_dump(r.diagnostics));
      if (!r.ok()) continue;
      CHECK_MESSAGE(interpret(r.program, r.addresses_assigned, 1) == "", print(r.program));
    }
  }
}

TEST_CASE("storage cases: the verifier rejects each reproducer's wrong plan, the interpreter agrees") {
  // With the verifier off, whatever the passes produce is checked by both:
  // they must agree that it is wrong whenever the interpreter says so.
  for (const auto& path : storage_cases()) {
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    for (Config p : configs) {
      CAPTURE(path.filename().string());
      CAPTURE(name(p));
      CompileResult r = compile_text(text.str(), p, false, path.filename().string());
      if (!r.ok()) continue;
      const std::string why = interpret(r.program, r.addresses_assigned, 1);
      if (!why.empty()) CHECK_MESSAGE(!verify_storage(r.program, r.addresses_assigned).empty(), why);
    }
  }
}

TEST_CASE(
    "storage legalisation is idempotent: MaterializeSemanticAliases on its own output changes nothing") {
  // The seed's legalised storage is a fixed point of the pass (PyPTO's Buffer
  // IR tests run the pass twice and compare): required on the restated seed
  // cases, the conformance and storage reproducer cases; measured on random kernels, where a
  // second run may still add an entry copy of an entry copy (an extra copy,
  // not a wrong one: every run's output passes the verifier).
  struct Input {
    std::string name, text;
    bool required;
  };
  std::vector<Input> inputs;
  const std::filesystem::path dirs[] = {
      std::filesystem::path(PTO_MEM_SOURCE_DIR) / "tests/pypto/cases",
      std::filesystem::path(PTO_MEM_SOURCE_DIR) / "tests/pypto/storage_cases",
      std::filesystem::path(PTO_MEM_SHARED_DIR) / "specs/pypto/cases"};
  for (const auto& dir : dirs) {
    if (!std::filesystem::is_directory(dir)) continue;
    for (const auto& e : std::filesystem::directory_iterator(dir)) {
      if (e.path().extension() != ".pto") continue;
      std::ifstream in(e.path());
      std::stringstream text;
      text << in.rdbuf();
      inputs.push_back({e.path().filename().string(), text.str(), true});
    }
  }
  REQUIRE(inputs.size() > 40);
  for (std::uint64_t seed = 1; seed <= kernel_count / 5; ++seed)
    inputs.push_back({"generated kernel " + std::to_string(seed), StorageKernelGen(seed).make(), false});
  std::size_t checked = 0, changed_cases = 0, random = 0, changed_random = 0;
  for (const auto& in : inputs)
    for (Config p : configs) {
      // Cases that ask for logical tile selection (`# flags:`) run with it and
      // only with it; random kernels under both.
      const bool wants = in.text.find("--logical-tile-selection") != std::string::npos;
      if (in.required && p.selection != wants) continue;
      if (in.required && wants && p.planner == Planner::ptoas) continue;
      // The legalisation does not depend on the planner but for PTOAS's
      // dropped allocations: one selection config is enough for the kernels.
      if (!in.required && p.selection && p.planner != Planner::pypto) continue;
      CompileOptions o;
      o.planner = p.planner;
      o.logical_tile_selection = p.selection;
      o.soc = in.text.find("# soc: a5") != std::string::npos ? soc_a5() : soc_a2a3();
      // Only programs the whole pipeline accepts (some cases are refused by a
      // later pass or the verifier: a declared slot clobbered by its author).
      if (!compile_source(in.text, in.name, o).ok()) continue;
      o.until = Stage::alias;
      CompileResult first = compile_source(in.text, in.name, o);
      if (!first.ok() || std::find(first.ran.begin(), first.ran.end(), Stage::alias) == first.ran.end())
        continue;
      CompileOptions again = o;
      again.passes = {Stage::alias};
      CompileResult second = compile(first.program, again);
      CAPTURE(in.name);
      CAPTURE(name(p));
      REQUIRE_MESSAGE(second.ok(), storage_dump(second.diagnostics));
      ++checked;
      const bool same = print(first.program) == print(second.program);
      if (!in.required) {
        ++random;
        changed_random += !same;
        continue;
      }
      if (!same && changed_cases++ < 3)
        CHECK_MESSAGE(same, "first:\n" << print(first.program) << "\nagain:\n" << print(second.program));
    }
  MESSAGE(checked << " programs legalised twice; " << changed_random << " of " << random
                  << " random kernels changed by a second run");
  CHECK(changed_cases == 0);
  CHECK(checked > 100);
}
