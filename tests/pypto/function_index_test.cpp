// FunctionIndex: its one numbering, and the two derived from it (the access
// trace's and the memory map's), checked against a separate walk that counts
// each numbering directly, on every .pto program of the repository (as
// parsed, and after the whole pipeline); stale indexes are told apart.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "pto_mem/pypto/passes/function_index.hpp"
#include "pto_mem/pypto/passes/pipeline.hpp"
#include "pypto_support.hpp"

namespace pto_mem::pypto::function_index_test {

using passes::FunctionIndex;

/// Counts the three numberings as their definitions say, with IRVisitor's
/// virtual hooks: `tick` (every assignment, expression statement, yield and
/// return takes one point; a loop whose body took one takes a back-edge
/// point), `ops` (assignments, expression statements and returns) and `map`
/// (statements from 1, no back edges, a site outside a statement at the
/// statement before).
struct NumberingReference : IRVisitor {
  struct Site {
    const Var* var;
    Tick tick;
    Tick map;
  };
  std::vector<const Stmt*> points;  // in order; a back edge is its loop
  std::vector<bool> is_op;
  std::vector<Site> uses, defs;
  Tick map_point = 0;
  const Stmt* own = nullptr;  // the statement taking the current point, if any

  Tick at() const { return own ? static_cast<Tick>(points.size()) - 1 : static_cast<Tick>(points.size()); }
  void take(const Stmt& s, bool op) {
    points.push_back(&s);
    is_op.push_back(op);
  }
  template <class S, class F>
  void with_point(const S& s, bool op, F&& walk) {
    take(s, op);
    ++map_point;
    own = &s;
    walk();
    own = nullptr;
  }
  void visit_assign(const AssignStmt& s) override {
    with_point(s, true, [&] { IRVisitor::visit_assign(s); });
  }
  void visit_eval(const EvalStmt& s) override {
    with_point(s, true, [&] { IRVisitor::visit_eval(s); });
  }
  void visit_yield(const YieldStmt& s) override {
    with_point(s, false, [&] { IRVisitor::visit_yield(s); });
  }
  void visit_return(const ReturnStmt& s) override {
    with_point(s, true, [&] { IRVisitor::visit_return(s); });
  }
  void visit_for(const ForStmt& s) override {
    visit_expr(s.start);
    visit_expr(s.stop);
    visit_expr(s.step);
    for (const auto& ia : s.iter_args) visit_expr(ia.init);
    for (const auto& kw : s.attrs) visit_expr(kw.value);
    visit_var_def(s.loop_var);
    for (const auto& ia : s.iter_args) visit_var_def(ia.var);
    body(s, nullptr, s.body);
    for (const auto& rv : s.return_vars) visit_var_def(rv);
  }
  void visit_while(const WhileStmt& s) override {
    for (const auto& ia : s.iter_args) visit_expr(ia.init);
    for (const auto& ia : s.iter_args) visit_var_def(ia.var);
    body(s, &s.condition, s.body);
    for (const auto& rv : s.return_vars) visit_var_def(rv);
  }
  void body(const Stmt& loop, const ExprPtr* condition, const StmtPtr& b) {
    const std::size_t first = points.size();
    if (condition) visit_expr(*condition);
    visit_stmt(b);
    if (points.size() > first) take(loop, false);  // the back edge
  }
  void visit_var_use(const VarPtr& v) override {
    if (v) uses.push_back({v.get(), at(), map_point});
  }
  void visit_var_def(const VarPtr& v) override {
    if (v) defs.push_back({v.get(), at(), map_point});
  }
};

void check_numberings(const Function& f) {
  NumberingReference ref;
  ref.visit_function(f);
  const FunctionIndex index(f);
  CHECK(index.built_from(f));
  REQUIRE(index.points().size() == ref.points.size());
  std::uint64_t ops = 0;
  for (std::size_t t = 0; t < ref.points.size(); ++t) {
    CHECK(index.points()[t].stmt == ref.points[t]);
    CHECK(index.op_number(static_cast<Tick>(t)) == ops);
    if (ref.is_op[t]) ++ops;
  }
  REQUIRE(index.uses().size() == ref.uses.size());
  for (std::size_t i = 0; i < ref.uses.size(); ++i) {
    const auto& u = index.uses()[i];
    CHECK(u.var == ref.uses[i].var);
    CHECK(u.at == ref.uses[i].tick);
    CHECK(index.map_number(u) == ref.uses[i].map);
  }
  REQUIRE(index.defs().size() == ref.defs.size());
  for (std::size_t i = 0; i < ref.defs.size(); ++i) {
    const auto& d = index.defs()[i];
    CHECK(d.var == ref.defs[i].var);
    CHECK(d.at == ref.defs[i].tick);
    CHECK(index.map_number(d) == ref.defs[i].map);
  }
  CHECK(index.map_count() == ref.map_point);
}

std::vector<std::string> numbering_test_programs() {
  std::vector<std::string> files;
  for (const char* dir : {"/tests/pypto/cases", "/examples/kernels", "/tests/pypto/data/passes"})
    for (const auto& f : test::pto_files(std::string(PTO_MEM_SOURCE_DIR) + dir)) files.push_back(f);
  return files;
}

TEST_CASE(
    "function index: its numberings agree with separate counts, on every program before and after the "
    "passes") {
  const auto files = numbering_test_programs();
  REQUIRE_FALSE(files.empty());
  std::size_t checked = 0;
  for (const auto& file : files) {
    INFO(file);
    ParseOptions parse_options;
    parse_options.allow_rebinding = true;  // as the tool reads them
    auto parsed = parse_file(file, parse_options);
    if (!parsed.ok()) continue;  // a parse-error case
    for (const auto& f : parsed.program.functions) check_numberings(f);
    CompileOptions options;
    const CompileResult r = compile(parsed.program, options);
    for (const auto& f : r.program.functions) check_numberings(f);
    ++checked;
  }
  CHECK(checked > 50);
}

TEST_CASE("function index: a rewritten body or a different function needs a new index") {
  const Program p = test::parse_ok(R"(
def main(x: Tensor[[16, 16], FP32], o: Out[Tensor[[16, 16], FP32]]) -> Tensor[[16, 16], FP32]:
    a: Tile[[16, 16], FP32] = tile.load(x, [0, 0], [16, 16], target_memory=Vec)
    for i in range(4):
        b: Tile[[16, 16], FP32] = tile.exp(a)
    r: Tensor[[16, 16], FP32] = tile.store(a, [0, 0], o)
    return r
)");
  const Function& f = p.functions[0];
  passes::FunctionIndexCache cache;
  const auto first = cache.of(f);
  CHECK(first->built_from(f));
  CHECK(cache.of(f) == first);  // unchanged: shared
  Function copy = f;            // same body, same parameters: the same function
  CHECK(first->built_from(copy));
  Function rewritten = f;
  rewritten.body = seq({f.body});  // a new body
  CHECK_FALSE(first->built_from(rewritten));
  const auto second = cache.of(rewritten);
  CHECK(second != first);
  CHECK(second->built_from(rewritten));
  Function other = f;
  other.params.pop_back();  // other parameters
  CHECK_FALSE(first->built_from(other));
  // The loop's body took a point: a back edge after it, before `r`.
  REQUIRE(first->loops().size() == 1);
  CHECK(first->loops()[0].first == 1);
  CHECK(first->loops()[0].back_edge == 2);
  CHECK(first->points()[2].kind == FunctionIndex::PointKind::back_edge);
  CHECK(first->op_number(3) == 2);  // r: the third op
  CHECK(first->map_range(first->loops()[0]) == std::pair<Tick, Tick>{2, 2});
}

}  // namespace pto_mem::pypto::function_index_test
