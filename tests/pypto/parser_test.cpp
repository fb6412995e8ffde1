// What the parser builds: spellings, base identity, declarations, loops,
// branches, deduced types, locations.
#include <doctest/doctest.h>

#include "pypto_support.hpp"

using namespace pto_mem;
using namespace pto_mem::pypto;
using test::parse_ok;

namespace {

/// Top-level statements of the first function.
std::vector<StmtPtr> body_of(const Program& p, std::size_t fn = 0) {
  return flatten(p.functions.at(fn).body);
}

const Call* rhs_call(const StmtPtr& s) {
  const auto* a = s->as<AssignStmt>();
  REQUIRE(a);
  const auto* c = a->value->as<Call>();
  REQUIRE(c);
  return c;
}

VarPtr lhs(const StmtPtr& s) {
  const auto* a = s->as<AssignStmt>();
  REQUIRE(a);
  return a->var;
}

}  // namespace

TEST_CASE("pl. prefixes and both memory-space spellings mean the same thing") {
  const Program a = parse_ok(
      "@pl.function(type=pl.FunctionType.AIV)\n"
      "def k(x: pl.Tensor[[16, 16], pl.FP32]):\n"
      "    t: pl.Tile[[16, 16], pl.FP32, pl.MemorySpace.Mat] = pl.tile.load(x, [0, 0], [16, 16], "
      "target_memory=pl.Mem.Mat)\n"
      "    u: pl.Tile[[16, 16], pl.FP32, pl.Mem.Left] = pl.tile.move(t, "
      "target_memory=pl.MemorySpace.Left)\n");
  const Program b = parse_ok(
      "@function(type=AIV)\n"
      "def k(x: Tensor[[16, 16], FP32]):\n"
      "    t: Tile[[16, 16], FP32, Mat] = tile.load(x, [0, 0], [16, 16], target_memory=Mat)\n"
      "    u: Tile[[16, 16], FP32, Left] = tile.move(t, target_memory=Left)\n");
  CHECK(print(a) == print(b));
  CHECK(a.functions[0].kind == FunctionKind::AIV);
  const auto s = body_of(a);
  CHECK(rhs_call(s[0])->op == "tile.load");
  CHECK(as_space(*rhs_call(s[0])->kwarg("target_memory")) == MemorySpace::Mat);
  CHECK(as_tile(lhs(s[1])->type)->space == MemorySpace::Left);
}

TEST_CASE("the @program class wrapper and self are accepted and kept") {
  const Program p = parse_ok(
      "@pl.program\nclass Before:\n    @pl.function\n    def main(self, x: pl.Tensor[[4], pl.FP32]) -> "
      "pl.Tensor[[4], pl.FP32]:\n"
      "        return x\n\n"
      "    @pl.function(type=pl.FunctionType.Orchestration)\n    def orch(self):\n        y = self.main(1)\n"
      "        return\n");
  CHECK(p.name == "Before");
  REQUIRE(p.functions.size() == 2);
  CHECK(p.functions[0].params.size() == 1);            // no `self`
  CHECK(p.functions[0].kind == FunctionKind::Opaque);  // `@pl.function`: PyPTO's default
  CHECK(p.functions[1].kind == FunctionKind::Orchestration);
  const auto* c = body_of(p, 1)[0]->as<AssignStmt>()->value->as<Call>();
  CHECK(c->op == "main");
  CHECK(print(body_of(p, 1)[0]->as<AssignStmt>()->var->type) ==
        "Tensor[[4], FP32]");  // the callee's return type
  CHECK(print(p).rfind("@program\nclass Before:\n    @function(type=Opaque)\n    def main(self,\n", 0) == 0);
}

TEST_CASE("const(v, DTYPE): plain inside MemRef offsets, typed elsewhere") {
  const Program p = parse_ok(
      "def k(x: Tensor[[16, 16], FP32, MemRef(\"mem_ddr_0\", pl.const(0, pl.INT64), 1024)]):\n"
      "    y = const(7, INT64)\n    z = pl.const(-1.5, pl.FP32)\n");
  const auto m = memref_of(p.functions[0].params[0].var->type);
  REQUIRE(m);
  REQUIRE(m->byte_offset->as<IntImm>());
  CHECK_FALSE(m->byte_offset->as<IntImm>()->dtype);
  const auto s = body_of(p);
  const auto* y = s[0]->as<AssignStmt>()->value->as<IntImm>();
  REQUIRE(y);
  CHECK(y->value == 7);
  CHECK(y->dtype == DataType::INT64);
  CHECK(lhs(s[0])->type->as<ScalarType>()->dtype == DataType::INT64);
  const auto* z = s[1]->as<AssignStmt>()->value->as<FloatImm>();
  REQUIRE(z);
  CHECK(z->value == -1.5);
  CHECK(print(p).find("z: Scalar[FP32] = const(-1.5, FP32)") != std::string::npos);
}

TEST_CASE("allocation bases: strings, bare names and allocs meet in one namespace") {
  const Program p = parse_ok(
      "def k(a: Tile[[16, 16], FP32, MemRef(\"mem_vec_0\", 0, 1024), Vec],\n"
      "      d: Tensor[[16, 16], FP32, MemRef(\"mem_ddr_1\", 0, 1024)]):\n"
      "    early: Tile[[16, 16], FP32, MemRef(mem_vec_2, 0, 1024), Vec] = tile.exp(a)\n"
      "    mem_vec_0: Ptr = tile.alloc(Vec, 1024)\n"
      "    mem_vec_2: Ptr = tile.alloc(Vec, 2048)\n"
      "    b: Tile[[16, 16], FP32, MemRef(mem_vec_0, 0, 1024), Vec] = tile.exp(a)\n"
      "    c: Tile[[8, 16], FP32, MemRef(mem_vec_0, 512, 512), Vec] = tile.slice(b, [8, 16], [8, 0])\n"
      "    r: Tensor[[16, 16], FP32, MemRef(\"mem_ddr_1\", 0, 1024)] = tile.store(c, [0, 0], d)\n");
  const auto& f = p.functions[0];
  const auto s = body_of(p);
  const VarPtr alloc0 = s[1]->as<AllocStmt>()->var;
  const VarPtr alloc2 = s[2]->as<AllocStmt>()->var;
  // The parameter's string base is a forward reference to the body's alloc.
  CHECK(memref_of(f.params[0].var->type)->base == alloc0);
  // A bare name used before its alloc is the alloc.
  CHECK(memref_of(lhs(s[0])->type)->base == alloc2);
  CHECK(memref_of(lhs(s[3])->type)->base == alloc0);
  CHECK(same_allocation(*memref_of(lhs(s[3])->type), *memref_of(lhs(s[4])->type)));
  CHECK(may_alias(*memref_of(lhs(s[3])->type), *memref_of(lhs(s[4])->type)));
  // Two strings with one text are one (free) base; it is not a program variable.
  const auto ddr_param = memref_of(f.params[1].var->type);
  const auto ddr_result = memref_of(lhs(s[5])->type);
  CHECK(ddr_param->base == ddr_result->base);
  CHECK(ddr_param != ddr_result);  // two MemRef objects, one base
  CHECK(ddr_param->name() == "mem_ddr_1");
  // Printing: strings in the signature, bare names for allocs in the body.
  const std::string text = print(p);
  CHECK(text.find("a: Tile[[16, 16], FP32, MemRef(\"mem_vec_0\", 0, 1024), Vec]") != std::string::npos);
  CHECK(text.find("b: Tile[[16, 16], FP32, MemRef(mem_vec_0, 0, 1024), Vec]") != std::string::npos);
  CHECK(text.find("r: Tensor[[16, 16], FP32, MemRef(\"mem_ddr_1\", 0, 1024)]") != std::string::npos);
}

TEST_CASE("declarations: pinned, slot count, slot index, interned by name") {
  const Program p = parse_ok(
      "def k(a: Tensor[[64, 64], FP32]):\n"
      "    for i in range(4):\n"
      "        t: Tile[[64, 64], FP32, MemRef(\"buf\", slots=2)[i % 2], Vec] = tile.load(a, [0, 0], [64, "
      "64])\n"
      "        u: Tile[[64, 64], FP32, MemRef(\"buf\", slots=2)[1], Vec] = tile.exp(t)\n"
      "        v: Tile[[64, 64], FP32, MemRef(\"one\"), Vec] = tile.exp(u)\n"
      "        w: Tile[[64, 64], FP32, MemRef(\"buf\", 0, 64), Vec] = tile.exp(v)\n");
  const auto* loop = body_of(p)[0]->as<ForStmt>();
  REQUIRE(loop);
  const auto inner = flatten(loop->body);
  const auto mt = memref_of(lhs(inner[0])->type), mu = memref_of(lhs(inner[1])->type);
  const auto mv = memref_of(lhs(inner[2])->type), mw = memref_of(lhs(inner[3])->type);
  CHECK(mt->is_pinned);
  CHECK(mt->slot_count == 2);
  CHECK(mt->size == 0);
  CHECK(as_const_int(mt->byte_offset) == 0);
  const auto* idx = mt->slot_index->as<BinaryExpr>();
  REQUIRE(idx);
  CHECK(idx->op == BinaryOp::Mod);
  CHECK(as_var(idx->lhs) == loop->loop_var);
  CHECK(as_const_int(mu->slot_index) == 1);
  CHECK(mt->base == mu->base);  // one declaration object per name
  CHECK(mt != mu);
  CHECK(mv->slot_count == 1);
  CHECK_FALSE(mv->slot_index);
  CHECK(mv->base != mt->base);
  // A resolved window with a string base is not a declaration, even on the same name.
  CHECK_FALSE(mw->is_pinned);
  CHECK(mw->base != mt->base);
}

TEST_CASE("for loops: loop var, carries, return vars, kinds, defaults") {
  const Program p = parse_ok(
      "def k(x: Tensor[[16, 16], FP32], n: Scalar[INDEX]):\n"
      "    t: Tile[[16, 16], FP32, Vec] = tile.load(x, [0, 0], [16, 16], target_memory=Vec)\n"
      "    for i, (a, s) in range(4, init_values=(t, n)):\n"
      "        b: Tile[[16, 16], FP32, Vec] = tile.add(a, a)\n"
      "        r, q = yield_(b, s + 1)\n"
      "    for ko, (c,) in pipeline(0, 192, 64, init_values=(r,), stage=2, unroll=4):\n"
      "        d: Tile[[16, 16], FP32, Vec] = tile.exp(c)\n"
      "        e: Tile[[16, 16], FP32, Acc] = yield_(d)\n"
      "    for j in parallel(2, n):\n"
      "        tile.write(e, [0, 0], 1.0)\n");
  const auto s = body_of(p);
  const auto* f1 = s[1]->as<ForStmt>();
  REQUIRE(f1);
  CHECK(f1->for_kind == ForKind::Range);
  CHECK(as_const_int(f1->start) == 0);
  CHECK(as_const_int(f1->stop) == 4);
  CHECK(as_const_int(f1->step) == 1);
  CHECK(f1->loop_var->name == "i");
  CHECK(f1->loop_var->type->as<ScalarType>()->dtype == DataType::INDEX);
  REQUIRE(f1->iter_args.size() == 2);
  CHECK(as_var(f1->iter_args[0].init) == lhs(s[0]));
  CHECK(f1->iter_args[0].var->type == lhs(s[0])->type);  // iter-arg typed from the init
  REQUIRE(f1->return_vars.size() == 2);
  CHECK(f1->return_vars[0]->name == "r");
  CHECK(f1->return_vars[0]->type == f1->iter_args[0].var->type);  // unannotated: the iter-arg's type
  const YieldStmt* y = terminating_yield(f1->body);
  REQUIRE(y);
  CHECK(y->values.size() == 2);

  const auto* f2 = s[2]->as<ForStmt>();
  CHECK(f2->for_kind == ForKind::Pipeline);
  CHECK(f2->stage == 2);
  REQUIRE(f2->attrs.size() == 1);
  CHECK(f2->attrs[0].name == "unroll");
  CHECK(as_const_int(f2->step) == 64);
  CHECK(as_var(f2->iter_args[0].init) == f1->return_vars[0]);
  CHECK(as_tile(f2->return_vars[0]->type)->space == MemorySpace::Acc);  // the annotation wins
  CHECK(print(p).find("e: Tile[[16, 16], FP32, Acc] = yield_(d)") != std::string::npos);
  CHECK(print(p).find("for ko, (c,) in pipeline(0, 192, 64, init_values=(r,), stage=2, unroll=4):") !=
        std::string::npos);

  const auto* f3 = s[3]->as<ForStmt>();
  CHECK(f3->for_kind == ForKind::Parallel);
  CHECK(f3->iter_args.empty());
  CHECK(f3->return_vars.empty());
  CHECK(print(p).find("for j in parallel(2, n):") != std::string::npos);
}

TEST_CASE("ifs: phis take the then value's type unless annotated; elif nests") {
  const Program p = parse_ok(
      "def k(x: Tensor[[16, 16], FP32], c: Scalar[INDEX]):\n"
      "    t: Tile[[16, 16], FP32, Vec] = tile.load(x, [0, 0], [16, 16], target_memory=Vec)\n"
      "    if c < 1:\n"
      "        u: Tile[[16, 16], FP32, Vec] = tile.exp(t)\n"
      "        r = yield_(u)\n"
      "    else:\n"
      "        r = yield_(t)\n"
      "    if c < 2:\n"
      "        q: Tile[[16, 16], FP32] = yield_(t)\n"
      "    else:\n"
      "        q = yield_(r)\n"
      "    if c == 3:\n"
      "        pass\n"
      "    elif c == 4:\n"
      "        tile.write(t, [0, 0], 1.0)\n");
  const auto s = body_of(p);
  const auto* i1 = s[1]->as<IfStmt>();
  REQUIRE(i1);
  REQUIRE(i1->return_vars.size() == 1);
  const auto then_u = lhs(flatten(i1->then_body)[0]);
  CHECK(i1->return_vars[0]->type == then_u->type);
  const auto* i2 = s[2]->as<IfStmt>();
  CHECK_FALSE(as_tile(i2->return_vars[0]->type)->space);  // annotation kept: no space
  const auto* i3 = s[3]->as<IfStmt>();
  CHECK(flatten(i3->then_body).empty());
  REQUIRE(i3->else_body);
  const auto els = flatten(i3->else_body);
  REQUIRE(els.size() == 1);
  CHECK(els[0]->is<IfStmt>());
  CHECK_FALSE(els[0]->as<IfStmt>()->else_body);
}

TEST_CASE("while loops: natural and with carries") {
  const Program p = parse_ok(
      "def k(n: Scalar[INT64]):\n"
      "    x0: Scalar[INT64] = 0\n"
      "    for (x,) in while_(init_values=(x0,)):\n"
      "        cond(x < n)\n"
      "        x_out = yield_(x + 1)\n"
      "    while x_out < n:\n"
      "        pass\n");
  const auto s = body_of(p);
  const auto* w1 = s[1]->as<WhileStmt>();
  REQUIRE(w1);
  REQUIRE(w1->iter_args.size() == 1);
  const auto* cond = w1->condition->as<BinaryExpr>();
  REQUIRE(cond);
  CHECK(as_var(cond->lhs) == w1->iter_args[0].var);
  CHECK(w1->return_vars[0]->name == "x_out");
  CHECK(flatten(w1->body).size() == 1);  // cond(...) is the condition, not a statement
  const auto* w2 = s[2]->as<WhileStmt>();
  REQUIRE(w2);
  CHECK(w2->iter_args.empty());
  CHECK(as_var(w2->condition->as<BinaryExpr>()->lhs) == w1->return_vars[0]);
}

TEST_CASE("unannotated assignments take the op's result type") {
  const Program p = parse_ok(
      "def k(x: Tensor[[16, 32], BF16], y: Tensor[[32, 8], INT8], n: Scalar[INDEX], out: Out[Tensor[[16, "
      "32], BF16]]):\n"
      "    t = tile.load(x, [0, 0], [16, 32], target_memory=Mat)\n"
      "    a = t\n"
      "    l = tile.move(t, target_memory=Left)\n"
      "    yi = tile.load(y, [0, 0], [32, 8])\n"
      "    r = tile.move(yi, target_memory=Right)\n"
      "    lm = tile.load(y, [0, 0], [16, 32], target_memory=Mat)\n"
      "    li = tile.move(lm, target_memory=Left)\n"
      "    acc = tile.matmul(l, r)\n"
      "    iacc = tile.matmul(li, r)\n"
      "    v = tile.cast(acc, target_type=FP16)\n"
      "    w = tile.add(v, v)\n"
      "    z = tile.create([4, 4], dtype=INT32)\n"
      "    zz = create([4, 4], dtype=INT32)\n"
      "    s = tile.store(t, [0, 0], out)\n"
      "    m = n * 2 + 1\n"
      "    b = n < 3\n");
  const auto s = body_of(p);
  auto tile_of = [&](std::size_t i) {
    const auto* t = as_tile(lhs(s[i])->type);
    REQUIRE(t);
    return t;
  };
  CHECK(print(lhs(s[0])->type) == "Tile[[16, 32], BF16, Mat]");
  CHECK(lhs(s[1])->type == lhs(s[0])->type);  // an alias shares the type
  CHECK(print(lhs(s[2])->type) == "Tile[[16, 32], BF16, Left]");
  CHECK_FALSE(tile_of(3)->space);  // compiler IR without target_memory: undecided
  CHECK(print(lhs(s[7])->type) == "Tile[[16, 8], FP32, Acc]");
  CHECK(print(lhs(s[8])->type) == "Tile[[16, 8], INT32, Acc]");
  CHECK(print(lhs(s[9])->type) == "Tile[[16, 8], FP16, Vec]");
  CHECK(print(lhs(s[10])->type) == "Tile[[16, 8], FP16, Vec]");
  CHECK_FALSE(tile_of(11)->space);
  CHECK(tile_of(11)->dtype == DataType::INT32);
  // The DSL shorthand `create` pins Vec, as PyPTO's Python default does.
  CHECK(tile_of(12)->space == MemorySpace::Vec);
  CHECK(rhs_call(s[12])->op == "tile.create");
  CHECK(print(lhs(s[13])->type) == "Tensor[[16, 32], BF16]");
  CHECK(lhs(s[14])->type->as<ScalarType>()->dtype == DataType::INDEX);
  CHECK(lhs(s[15])->type->as<ScalarType>()->dtype == DataType::BOOL);
}

TEST_CASE("DSL shorthands resolve to tile ops; program functions win") {
  const std::string text =
      "def helper(x: Tensor[[4, 4], FP32]):\n    return\n"
      "def k(x: Tensor[[4, 4], FP32]):\n"
      "    t: Tile[[4, 4], FP32] = load(x, [0, 0], [4, 4])\n"
      "    u: Tile[[4, 4], FP32] = pl.exp(t)\n"
      "    v: Tile[[4, 4], FP32] = pl.load(x, [0, 0], [4, 4], target_memory=Mat)\n"
      "    w: Tile[[4, 4], FP32] = tile.load(x, [0, 0], [4, 4])\n"
      "    helper(x)\n";
  const Program p = parse_ok(text);
  const auto s = body_of(p, 1);
  CHECK(rhs_call(s[0])->op == "tile.load");
  CHECK(as_space(*rhs_call(s[0])->kwarg("target_memory")) == MemorySpace::Vec);
  CHECK(rhs_call(s[1])->op == "tile.exp");
  CHECK(as_space(*rhs_call(s[2])->kwarg("target_memory")) == MemorySpace::Mat);
  CHECK_FALSE(rhs_call(s[3])->kwarg("target_memory"));  // printed IR is taken literally
  CHECK(s[4]->as<EvalStmt>()->value->as<Call>()->op == "helper");
  ParseOptions literal;
  literal.dsl_defaults = false;
  const Program q = parse_ok(text, "t.pto", literal);
  CHECK_FALSE(rhs_call(body_of(q, 1)[0])->kwarg("target_memory"));
}

TEST_CASE("compatibility mode: a re-binding makes a fresh variable") {
  const std::string text = "def k(n: Scalar[INDEX]):\n    y = n + 1\n    y = y * 2\n    return y\n";
  CHECK_FALSE(parse_program(text).ok());
  ParseOptions compat;
  compat.allow_rebinding = true;
  const Program p = parse_ok(text, "t.pto", compat);
  const auto s = body_of(p);
  const VarPtr y1 = lhs(s[0]), y2 = lhs(s[1]);
  CHECK(y1 != y2);
  CHECK(as_var(s[1]->as<AssignStmt>()->value->as<BinaryExpr>()->lhs) == y1);
  CHECK(as_var(s[2]->as<ReturnStmt>()->values[0]) == y2);
  // Printing makes the names unique, so the text parses without compatibility mode.
  const std::string printed = print(p);
  CHECK(printed.find("y_1: Scalar[INDEX] = y * 2") != std::string::npos);
  CHECK(parse_program(printed).ok());
}

TEST_CASE("symbolic shapes: a dim nobody defines is one free symbol per function") {
  const Program p = parse_ok(
      "def k(x: Tensor[[N, 64], FP32], y: Tensor[[N, M], FP32], n: Scalar[INDEX]):\n"
      "    t: Tile[[16, n], FP32, Vec] = tile.load(x, [0, 0], [16, n], target_memory=Vec)\n");
  const auto& f = p.functions[0];
  const auto& sx = as_tensor(f.params[0].var->type)->shape;
  const auto& sy = as_tensor(f.params[1].var->type)->shape;
  CHECK(as_var(sx[0]) == as_var(sy[0]));
  CHECK(as_var(sx[0])->name == "N");
  CHECK_FALSE(static_shape(sy));
  CHECK(as_var(as_tile(lhs(body_of(p)[0])->type)->shape[1]) == f.params[2].var);
}

TEST_CASE("constants fold; literals keep their spelling") {
  const Program p = parse_ok(
      "def k(n: Scalar[INDEX]):\n"
      "    tile.sink([2 * 32, 1 << 6, 7 // 2, -7 // 2, -7 % 3, 0x10, -9223372036854775808, n * 1 + 0])\n"
      "    b = tile.full([4], 0.5, dtype=FP32, pad=PadValue.zero, layout=TileLayout.row_major, flag=True, "
      "none=None)\n"
      "    tile.sink(\"quote\\\" tab\\t nl\\n\")\n");
  const auto s = body_of(p);
  const auto* l = s[0]->as<EvalStmt>()->value->as<Call>()->args[0]->as<ListExpr>();
  REQUIRE(l);
  const std::vector<std::int64_t> want = {64, 64, 3, -4, 2, 16, std::numeric_limits<std::int64_t>::min()};
  for (std::size_t i = 0; i < want.size(); ++i) CHECK(as_const_int(l->elems[i]) == want[i]);
  CHECK(as_var(l->elems[7]) == p.functions[0].params[0].var);
  const auto* c = rhs_call(s[1]);
  CHECK(c->kwarg("pad")->get()->as<EnumImm>()->value == "zero");
  CHECK(c->kwarg("flag")->get()->as<BoolImm>()->value);
  CHECK(c->kwarg("none")->get()->is<NoneImm>());
  CHECK(s[2]->as<EvalStmt>()->value->as<Call>()->args[0]->as<StringImm>()->value == "quote\" tab\t nl\n");
  const std::string printed = print(p);
  CHECK(printed.find("[64, 64, 3, -4, 2, 16, -9223372036854775808, n]") != std::string::npos);
  CHECK(printed.find("\"quote\\\" tab\\t nl\\n\"") != std::string::npos);
}

TEST_CASE("statements and variables remember line and column") {
  const Program p = parse_ok(
      "\n# comment\ndef k(x: Tensor[[4], FP32],\n      n: Scalar[INDEX]):\n"
      "    t: Tile[[4], FP32, Vec] = tile.load(x, [0], [4], target_memory=Vec)\n"
      "    for i in range(n):\n"
      "        tile.write(t, [i], 1.0)\n");
  const auto& f = p.functions[0];
  CHECK(f.loc == Loc{3, 1});
  CHECK(f.params[1].var->loc == Loc{4, 7});
  const auto s = body_of(p);
  CHECK(s[0]->loc == Loc{5, 5});
  CHECK(lhs(s[0])->loc == Loc{5, 5});
  const auto* loop = s[1]->as<ForStmt>();
  CHECK(loop->loc == Loc{6, 5});
  CHECK(loop->loop_var->loc == Loc{6, 9});
  CHECK(flatten(loop->body)[0]->loc == Loc{7, 9});
}

TEST_CASE("legacy alloc form and MemRefType are read") {
  const Program p = parse_ok(
      "def k():\n    mem_vec_2: MemRefType = tile.alloc(Vec, -1, 16384, 2)\n    mem_acc_3 = tile.alloc(Acc, "
      "4096)\n");
  const auto s = body_of(p);
  const auto* a = s[0]->as<AllocStmt>();
  REQUIRE(a);
  CHECK(a->size == 16384);
  CHECK(a->space == MemorySpace::Vec);
  CHECK(s[1]->as<AllocStmt>()->space == MemorySpace::Acc);
  CHECK(print(p).find("mem_vec_2: Ptr = tile.alloc(Vec, 16384)") != std::string::npos);
}

TEST_CASE("an empty file is an empty program") {
  const Program p = parse_ok("\n# nothing here\n\n");
  CHECK(p.functions.empty());
  CHECK(print(p).empty());
}

TEST_CASE("regression (fuzzer): unary minus before a literal in a shape") {
  // parse_unary read a token after take() had popped it (heap-use-after-free under ASan).
  const Program p = parse_ok("def k(x: Tensor[[-1, +4, ~0, - -2], FP32]):\n    return\n");
  const auto& shape = as_tensor(p.functions[0].params[0].var->type)->shape;
  CHECK(as_const_int(shape[0]) == -1);
  CHECK(as_const_int(shape[1]) == 4);
  CHECK(as_const_int(shape[2]) == -1);
  CHECK(as_const_int(shape[3]) == 2);
}
