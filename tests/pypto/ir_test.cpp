// The IR: builder, visitor (with the enclosing path), copy-on-write mutator,
// substitution, deep clone, structural equality, folding.
#include <doctest/doctest.h>

#include <stdexcept>

#include "pypto_support.hpp"

using namespace pto_mem;
using namespace pto_mem::pypto;

namespace {

/// The accumulator kernel of case 07, written with the builder.
Function build_acc_kernel() {
  using enum MemorySpace;
  using enum DataType;
  FunctionBuilder fb("main_incore_0");
  auto lhs = fb.param("lhs", tensor_type({16, 32}, BF16));
  auto rhs = fb.param("rhs", tensor_type({32, 16}, BF16));
  auto out = fb.param("out_0", tensor_type({16, 16}, FP32), ParamDirection::Out);
  fb.returns({tensor_type({16, 16}, FP32)});
  auto acc0 = fb.let("acc0", tile_type({16, 16}, FP32),
                     op("tile.create", {{16, 16}}, {{"dtype", FP32}, {"target_memory", Vec}}));
  auto lhs_m = fb.let("lhs_m", tile_type({16, 32}, BF16),
                      op("tile.load", {lhs, {0, 0}, {16, 32}}, {{"target_memory", Mat}}));
  auto rhs_m = fb.let("rhs_m", tile_type({32, 16}, BF16),
                      op("tile.load", {rhs, {0, 0}, {32, 16}}, {{"target_memory", Mat}}));
  auto lhs_l =
      fb.let("lhs_l", tile_type({16, 32}, BF16), op("tile.move", {lhs_m}, {{"target_memory", Left}}));
  auto rhs_r =
      fb.let("rhs_r", tile_type({32, 16}, BF16), op("tile.move", {rhs_m}, {{"target_memory", Right}}));
  auto loop = fb.begin_for("i", 0, 4, 1, {{"acc", acc0}});
  auto next =
      fb.let("acc_next", tile_type({16, 16}, FP32), op("tile.matmul_acc", {loop.iter_args[0], lhs_l, rhs_r}));
  auto r = fb.end_for({next}, {"r"});
  auto out1 = fb.let("out_1", tensor_type({16, 16}, FP32), op("tile.store", {r[0], {0, 0}, out}));
  fb.ret({out1});
  return fb.build();
}

}  // namespace

TEST_CASE("the builder writes the same program as the text") {
  Program p;
  p.functions.push_back(build_acc_kernel());
  const std::string text = print(p);
  if (test::have_shared) {
    const std::string src = test::program_text(
        test::read_text(test::shared_path("specs/pypto/cases/07_infer_create_acc_loop_backprop.pto")));
    CHECK(text == src);
  }
  const Program q = test::parse_ok(text);
  CHECK(print(q) == text);
}

TEST_CASE("the builder covers ifs, whiles and allocations") {
  FunctionBuilder fb("k", FunctionKind::AIV);
  auto n = fb.param("n", scalar_type(DataType::INDEX));
  auto m = fb.alloc("mem_vec_0", MemorySpace::Vec, 1024, true);
  auto t =
      fb.let("t", tile_type({16, 16}, DataType::FP32, MemorySpace::Vec, make_memref(m, int_imm(0), 1024)),
             op("tile.full", {{16, 16}, 0.0}, {{"dtype", DataType::FP32}}));
  fb.begin_if(lt(var_ref(n), int_imm(2)));
  auto u = fb.let("u", t->type, op("tile.exp", {t}));
  fb.yield({u});
  fb.begin_else();
  fb.yield({t});
  auto phi = fb.end_if({"phi"});
  CHECK(phi[0]->type == t->type);
  auto w = fb.begin_while({{"x", 0}});
  auto w_out = fb.end_while(lt(var_ref(w.iter_args[0]), var_ref(n)),
                            {add(var_ref(w.iter_args[0]), int_imm(1))}, {"x_out"});
  fb.eval(op("tile.write", {phi[0], {0, 0}, w_out[0]}));
  fb.ret();
  Program p;
  p.functions.push_back(fb.build());
  const std::string text = print(p);
  CHECK(
      text ==
      "@function(type=AIV)\n"
      "def k(n: Scalar[INDEX]):\n"
      "    mem_vec_0: Ptr = tile.alloc(Vec, 1024, pinned=True)\n"
      "    t: Tile[[16, 16], FP32, MemRef(mem_vec_0, 0, 1024), Vec] = tile.full([16, 16], 0.0, dtype=FP32)\n"
      "    if n < 2:\n"
      "        u: Tile[[16, 16], FP32, MemRef(mem_vec_0, 0, 1024), Vec] = tile.exp(t)\n"
      "        phi = yield_(u)\n"
      "    else:\n"
      "        phi = yield_(t)\n"
      "    for (x,) in while_(init_values=(0,)):\n"
      "        cond(x < n)\n"
      "        x_out = yield_(x + 1)\n"
      "    tile.write(phi, [0, 0], x_out)\n"
      "    return\n");
  CHECK(print(test::parse_ok(text)) == text);
}

TEST_CASE("builder misuse is a logic error") {
  FunctionBuilder fb("k");
  CHECK_THROWS_AS(fb.end_for(), std::logic_error);
  fb.begin_for("i", 0, 4);
  CHECK_THROWS_AS((void)fb.build(), std::logic_error);
  CHECK_THROWS_AS(fb.end_if(), std::logic_error);
  CHECK_THROWS_AS(fb.end_for({1}, {"r"}), std::logic_error);  // no carries: no yield values
}

TEST_CASE("the visitor sees definitions, uses and the enclosing path") {
  const Program p = test::parse_ok(
      "def k(x: Tensor[[4], FP32], c: Scalar[INDEX]):\n"
      "    t: Tile[[4], FP32, Vec] = tile.load(x, [0], [4], target_memory=Vec)\n"
      "    for i, (a,) in range(2, init_values=(t,)):\n"
      "        if c < i:\n"
      "            b: Tile[[4], FP32, Vec] = tile.add(a, t)\n"
      "            r = yield_(b)\n"
      "        else:\n"
      "            r = yield_(a)\n"
      "        o = yield_(r)\n");
  struct Probe : IRVisitor {
    std::vector<std::string> defs, uses;
    std::vector<StmtKind> path_at_b;
    void visit_var_def(const VarPtr& v) override { defs.push_back(v->name); }
    void visit_var_use(const VarPtr& v) override { uses.push_back(v->name); }
    void visit_assign(const AssignStmt& s) override {
      if (s.var->name == "b")
        for (const auto& e : path()) path_at_b.push_back(e.stmt->kind);
      IRVisitor::visit_assign(s);
    }
  } probe;
  probe.visit_function(p.functions[0]);
  CHECK(probe.defs == std::vector<std::string>{"x", "c", "t", "i", "a", "b", "r", "o"});
  CHECK(probe.uses == std::vector<std::string>{"x", "t", "c", "i", "a", "t", "b", "a", "r"});
  CHECK(probe.path_at_b ==
        std::vector<StmtKind>{StmtKind::Seq, StmtKind::For, StmtKind::Seq, StmtKind::If, StmtKind::Seq});
}

TEST_CASE("the mutator shares every subtree it does not change") {
  const Program p = test::parse_ok(
      "def k(x: Tensor[[4], FP32]):\n"
      "    t: Tile[[4], FP32, Vec] = tile.load(x, [0], [4], target_memory=Vec)\n"
      "    u: Tile[[4], FP32, Vec] = tile.exp(t)\n"
      "    for i in range(4):\n"
      "        v: Tile[[4], FP32, Vec] = tile.exp(u)\n"
      "        w: Tile[[4], FP32, Vec] = tile.add(v, u)\n");
  const Function& f = p.functions[0];
  IRMutator identity;
  CHECK(identity.mutate_function(f).body == f.body);

  // Rename the op of one statement deep inside the loop.
  struct Relu : IRMutator {
    ExprPtr mutate_call(const Call& c, const ExprPtr& self) override {
      if (c.op != "tile.add") return IRMutator::mutate_call(c, self);
      return call("tile.maximum", c.args, c.kwargs);
    }
  } relu;
  const Function g = relu.mutate_function(f);
  const auto before = flatten(f.body), after = flatten(g.body);
  REQUIRE(after.size() == 3);
  CHECK(after[0] == before[0]);
  CHECK(after[1] == before[1]);
  CHECK(after[2] != before[2]);
  const auto lb = flatten(before[2]->as<ForStmt>()->body), la = flatten(after[2]->as<ForStmt>()->body);
  CHECK(la[0] == lb[0]);
  CHECK(la[1] != lb[1]);
  CHECK(la[1]->as<AssignStmt>()->var == lb[1]->as<AssignStmt>()->var);
  CHECK(print(g).find("w: Tile[[4], FP32, Vec] = tile.maximum(v, u)") != std::string::npos);
}

TEST_CASE("mutate_seq_child inserts statements before a consumer") {
  const Program p = test::parse_ok(
      "def k(x: Tensor[[4], FP32]):\n"
      "    t: Tile[[4], FP32, Mat] = tile.load(x, [0], [4], target_memory=Mat)\n"
      "    for i in range(2):\n"
      "        u: Tile[[4], FP32, Vec] = tile.exp(t)\n");
  struct InsertMoves : IRMutator {
    void mutate_seq_child(const StmtPtr& child, std::vector<StmtPtr>& out) override {
      if (const auto* a = child->as<AssignStmt>())
        if (const auto* c = a->value->as<Call>(); c && c->op == "tile.exp") {
          auto src = as_var(c->args[0]);
          auto mv = make_var(src->name + "_Vec", with_memory_space(src->type, MemorySpace::Vec));
          out.push_back(assign(
              mv, call("tile.move", {var_ref(src)}, {{"target_memory", space_imm(MemorySpace::Vec)}})));
          out.push_back(assign(a->var, call(c->op, {var_ref(mv)}, c->kwargs), a->loc));
          return;
        }
      IRMutator::mutate_seq_child(child, out);
    }
  } pass;
  const Function g = pass.mutate_function(p.functions[0]);
  const std::string text = print(g);
  CHECK(text.find("        t_Vec: Tile[[4], FP32, Vec] = tile.move(t, target_memory=Vec)\n"
                  "        u: Tile[[4], FP32, Vec] = tile.exp(t_Vec)\n") != std::string::npos);
  CHECK(print(test::parse_ok(text)) == text);
}

TEST_CASE("substitute replaces variables at definitions and uses") {
  const Program p = test::parse_ok(
      "def k(x: Tensor[[4], FP32]):\n"
      "    t: Tile[[4], FP32, Vec] = tile.load(x, [0], [4], target_memory=Vec)\n"
      "    u: Tile[[4], FP32, Vec] = tile.add(t, t)\n");
  const Function& f = p.functions[0];
  const VarPtr t = flatten(f.body)[0]->as<AssignStmt>()->var;
  auto t2 = make_var("t2", with_memory_space(t->type, MemorySpace::Mat));
  const Function g = substitute(f, {{t.get(), t2}});
  CHECK(print(g).find("t2: Tile[[4], FP32, Mat] = tile.load") != std::string::npos);
  CHECK(print(g).find("tile.add(t2, t2)") != std::string::npos);
  CHECK(print(f).find("tile.add(t, t)") != std::string::npos);  // the input is untouched
}

TEST_CASE("clone copies variables and MemRefs, keeping what is shared shared") {
  const Program p = test::parse_ok(
      "def k(x: Tensor[[16, 16], FP32]):\n"
      "    m: Ptr = tile.alloc(Vec, 1024)\n"
      "    t: Tile[[16, 16], FP32, MemRef(m, 0, 1024), Vec] = tile.load(x, [0, 0], [16, 16], "
      "target_memory=Vec)\n"
      "    u: Tile[[16, 16], FP32, MemRef(m, 0, 1024), Vec] = tile.exp(t)\n"
      "    d: Tile[[16, 16], FP32, MemRef(\"decl\", slots=2)[1], Vec] = tile.exp(u)\n");
  Function f = p.functions[0];
  // Make t and u hold the very same MemRef object (a pure alias).
  const auto s = flatten(f.body);
  const VarPtr t = s[1]->as<AssignStmt>()->var, u = s[2]->as<AssignStmt>()->var;
  u->type = with_memref(u->type, memref_of(t->type));
  const Function g = clone(f);
  CHECK(print(g) == print(f));
  const auto gs = flatten(g.body);
  const VarPtr gm = gs[0]->as<AllocStmt>()->var, gt = gs[1]->as<AssignStmt>()->var,
               gu = gs[2]->as<AssignStmt>()->var;
  CHECK(gt != t);
  CHECK(memref_of(gt->type) == memref_of(gu->type));  // sharing kept
  CHECK(memref_of(gt->type) != memref_of(t->type));   // but new objects
  CHECK(memref_of(gt->type)->base == gm);             // bases map to the cloned alloc
  CHECK(as_var(gs[2]->as<AssignStmt>()->value->as<Call>()->args[0]) == gt);
  // Refining a clone's type leaves the original alone.
  gt->type = with_memory_space(gt->type, MemorySpace::Mat);
  CHECK(as_tile(t->type)->space == MemorySpace::Vec);
}

TEST_CASE("structural equality and the type helpers") {
  const auto a = tile_type({16, 16}, DataType::FP32, MemorySpace::Vec);
  const auto b = tile_type({16, 16}, DataType::FP32, MemorySpace::Vec);
  CHECK(a != b);
  CHECK(same_type(a, b));
  CHECK_FALSE(same_type(a, with_memory_space(b, MemorySpace::Mat)));
  CHECK_FALSE(same_type(a, tile_type({16, 8}, DataType::FP32, MemorySpace::Vec)));
  CHECK(with_memory_space(a, MemorySpace::Vec) == a);  // unchanged: same object
  auto base = make_var("m", ptr_type());
  auto m1 = make_memref(base, int_imm(0), 1024), m2 = make_memref(base, int_imm(512), 512);
  auto m3 = make_memref(make_var("m", ptr_type()), int_imm(0), 1024);
  CHECK(same_allocation(*m1, *m2));
  CHECK(may_alias(*m1, *m2));
  CHECK_FALSE(may_alias(*make_memref(base, int_imm(0), 512), *m2));  // disjoint windows
  CHECK_FALSE(same_allocation(*m1, *m3));                            // same name, other base
  CHECK(may_alias(*m1, *make_memref(base, var_ref(make_var("i", scalar_type(DataType::INDEX))), 16)));
  CHECK(memref_of(with_memref(a, m1)) == m1);
  CHECK(memory_space_of(tensor_type({4}, DataType::FP32)) == MemorySpace::DDR);
  CHECK(static_shape(make_shape({2, 3})) == std::vector<std::int64_t>{2, 3});
}

TEST_CASE("integer folding follows Python and never wraps") {
  auto i = var_ref(make_var("i", scalar_type(DataType::INDEX)));
  CHECK(as_const_int(floordiv(int_imm(-7), int_imm(2))) == -4);
  CHECK(as_const_int(mod(int_imm(-7), int_imm(3))) == 2);
  CHECK(as_const_int(mod(int_imm(7), int_imm(-3))) == -2);
  CHECK(as_const_int(binary(BinaryOp::Shl, int_imm(1), int_imm(10))) == 1024);
  CHECK(as_const_int(binary(BinaryOp::Shr, int_imm(-8), int_imm(1))) == -4);
  CHECK_FALSE(as_const_int(mul(int_imm(std::int64_t{1} << 62), int_imm(4))));  // overflow: kept symbolic
  CHECK_FALSE(as_const_int(floordiv(int_imm(1), int_imm(0))));
  CHECK(add(i, int_imm(0)) == i);
  CHECK(mul(int_imm(1), i) == i);
  CHECK(print(mul(mul(i, int_imm(16)), int_imm(4))) == "i * 64");
  CHECK(print(add(add(i, int_imm(16)), int_imm(4))) == "i + 20");
  CHECK_FALSE(as_const_int(add(int_imm(1, DataType::INT32), int_imm(2))));  // typed constants are kept
  CHECK(as_const_int(unary(UnaryOp::Neg, int_imm(5))) == -5);
  CHECK(same_expr(add(i, int_imm(1)), add(i, int_imm(1))));
  CHECK_FALSE(same_expr(add(i, int_imm(1)), add(int_imm(1), i)));
}

TEST_CASE("terminating yields are found through nested sequences") {
  auto y = yield({int_imm(1)});
  const StmtPtr body = seq({eval(call("tile.write")), seq({seq({y})})});
  CHECK(terminating_yield(body) == y->as<YieldStmt>());
  CHECK(terminating_yield(seq({y, eval(call("x"))})) == nullptr);
  CHECK(flatten(body).size() == 2);
}
