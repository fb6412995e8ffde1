// InferTileMemorySpace: demand, forward resolution, loops and
// phis, move insertion scoped per block, retargetable producers, rejections
// and the TileMemoryInferred verifier.
#include <doctest/doctest.h>

#include "pass_facts.hpp"
#include "pass_support.hpp"
#include "pto_mem/pypto/passes/infer_tile_memory_space.hpp"

using namespace pto_mem;
using namespace pto_mem::pypto;
using test::compile_ok;
using test::compile_text;
using test::space;

namespace {

const std::string vec_params =
    "x: Tensor[[64, 64], FP32],\n         c: Scalar[INDEX],\n         out: Out[Tensor[[64, 64], FP32]]";

/// A private registry with a Mat-consuming op, to exercise Mat demands.
const OpRegistry& registry_with_mat_op() {
  static const OpRegistry r = [] {
    OpRegistry ops = OpRegistry::with_builtins();
    ops.add_or_replace(OpSpec("my.pack")
                           .arg("src", {MemorySpace::Mat})
                           .fixed(MemorySpace::Mat)
                           .typed(type_rules::like_arg(0, MemorySpace::Mat)));
    return ops;
  }();
  return r;
}

std::string target_memory(const Program& p, const std::string& var) {
  for (const auto& f : p.functions) {
    std::string out;
    for_each_stmt(f.body, [&](const Stmt& s) {
      const auto* a = s.as<AssignStmt>();
      const auto* c = a && a->var->name == var ? a->value->as<Call>() : nullptr;
      if (!c) return;
      const ExprPtr* k = c->kwarg("target_memory");
      out = k ? print(*k) : "<absent>";
    });
    if (!out.empty()) return out;
  }
  return "<no such call>";
}

}  // namespace

TEST_CASE("phase 0/1: an undecided load takes a Vec or Mat demand, never an L0 one") {
  // No DSL default here: `tile.load` written with its namespace has no kwarg.
  SUBCASE("a Vec consumer: the load is pinned Vec, no move") {
    auto r = compile_ok(test::kernel(vec_params,
                                     "    t = tile.load(x, [0, 0], [64, 64])\n"
                                     "    u = tile.exp(t)\n"
                                     "    r = tile.store(u, [0, 0], out)\n"
                                     "    return r\n"),
                        Stage::infer);
    CHECK(space(r.program, "t") == MemorySpace::Vec);
    CHECK(target_memory(r.program, "t") == "Vec");
    CHECK(r.moves.empty());
  }
  SUBCASE("a Mat demand flows back through a view chain to the load") {
    auto r = compile_ok(test::kernel(vec_params,
                                     "    t = tile.load(x, [0, 0], [64, 64])\n"
                                     "    s = tile.slice(t, [32, 64], [0, 0])\n"
                                     "    v = tile.reshape(s, [64, 32])\n"
                                     "    p = my.pack(v)\n"
                                     "    return\n"),
                        Stage::infer, Planner::pypto, soc_a2a3(), &registry_with_mat_op());
    CHECK(space(r.program, "t") == MemorySpace::Mat);
    CHECK(target_memory(r.program, "t") == "Mat");
    CHECK(space(r.program, "s") == MemorySpace::Mat);
    CHECK(space(r.program, "v") == MemorySpace::Mat);
    CHECK(r.moves.empty());
  }
  SUBCASE("a Left demand is not honoured by a DDR-facing producer: Vec plus a move") {
    auto r = compile_ok(test::kernel("a: Tensor[[16, 32], BF16],\n         b: Tensor[[32, 16], BF16]",
                                     "    ta = tile.load(a, [0, 0], [16, 32])\n"
                                     "    tb = tile.load(b, [0, 0], [32, 16], target_memory=Mat)\n"
                                     "    z = tile.matmul(ta, tb)\n"
                                     "    return\n"),
                        Stage::infer);
    CHECK(space(r.program, "ta") == MemorySpace::Vec);
    CHECK(target_memory(r.program, "ta") == "Vec");
    CHECK(space(r.program, "ta_Left") == MemorySpace::Left);
    CHECK(space(r.program, "tb_Right") == MemorySpace::Right);
    CHECK(space(r.program, "z") == MemorySpace::Acc);
    REQUIRE(r.moves.size() == 2);
    CHECK(r.moves[0].name == "ta_Left");
    CHECK(r.moves[1].name == "tb_Right");
  }
}

TEST_CASE("phase 0: demand conflicts — Vec gives way, otherwise the first demand wins") {
  const OpRegistry& ops = registry_with_mat_op();
  SUBCASE("Vec first, Mat second: Mat wins, the Vec consumer gets a move") {
    auto r = compile_ok(test::kernel(vec_params,
                                     "    t = tile.load(x, [0, 0], [64, 64])\n"
                                     "    u = tile.exp(t)\n"
                                     "    p = my.pack(t)\n"
                                     "    return\n"),
                        Stage::infer, Planner::pypto, soc_a2a3(), &ops);
    CHECK(space(r.program, "t") == MemorySpace::Mat);
    REQUIRE(r.moves.size() == 1);
    CHECK(r.moves[0].name == "t_Vec");
    CHECK(r.moves[0].source == "t");
    CHECK(r.moves[0].target == MemorySpace::Vec);
  }
  SUBCASE("Left first, Mat second: Left stays (first non-Vec wins), so the load falls back to Vec") {
    auto r = compile_ok(test::kernel(vec_params,
                                     "    t = tile.load(x, [0, 0], [64, 64])\n"
                                     "    w: Tile[[64, 64], FP32, Right] = tile.create([64, 64], dtype=FP32, "
                                     "target_memory=Right)\n"
                                     "    z = tile.matmul(t, w)\n"
                                     "    p = my.pack(t)\n"
                                     "    return\n"),
                        Stage::infer, Planner::pypto, soc_a2a3(), &ops);
    CHECK(space(r.program, "t") == MemorySpace::Vec);
    REQUIRE(r.moves.size() == 2);
    CHECK(r.moves[0].name == "t_Left");
    CHECK(r.moves[1].name == "t_Mat");
  }
}

TEST_CASE("phase 1: the op table decides; a present target_memory is never overridden") {
  auto r = compile_ok(
      test::kernel(vec_params,
                   "    m: Tile[[64, 64], FP32] = tile.load(x, [0, 0], [64, 64], target_memory=Mat)\n"
                   "    a = m\n"
                   "    v = tile.move(a)\n"
                   "    f: Tile[[64, 64], FP32] = tile.fancy_new_op(v)\n"
                   "    mx: Tile[[64, 64], FP32] = tile.matmul_mx_future(v)\n"
                   "    u: Tile[[64, 64], FP32] = pld.helper(v)\n"
                   "    tr = tile.transpose_view(m)\n"
                   "    r = tile.store(u, [0, 0], out)\n"
                   "    return r\n"),
      Stage::infer);
  CHECK(space(r.program, "m") == MemorySpace::Mat);   // kwarg kept although store/exp demand Vec
  CHECK(space(r.program, "a") == MemorySpace::Mat);   // an alias copies its source
  CHECK(space(r.program, "v") == MemorySpace::Vec);   // tile.move: kwarg default Vec
  CHECK(space(r.program, "f") == MemorySpace::Vec);   // unregistered tile op
  CHECK(space(r.program, "mx") == MemorySpace::Acc);  // unregistered tile.matmul_mx*
  CHECK(space(r.program, "u") == MemorySpace::Vec);   // a call of anything else
  CHECK(space(r.program, "tr") == MemorySpace::Mat);  // inherit-input
  CHECK(r.moves.empty());
}

TEST_CASE("phase 1: loops — iter-args inherit the init, the yield overrides init, iter-arg and return var") {
  SUBCASE("an accumulator loop turns its Vec-created init Acc and rewrites the kwarg") {
    auto r = compile_ok(test::kernel("a: Tensor[[16, 32], BF16],\n         b: Tensor[[32, 16], BF16],\n"
                                     "         out: Out[Tensor[[16, 16], FP32]]",
                                     "    acc0 = tile.create([16, 16], dtype=FP32, target_memory=Vec)\n"
                                     "    am = tile.load(a, [0, 0], [16, 32], target_memory=Mat)\n"
                                     "    bm = tile.load(b, [0, 0], [32, 16], target_memory=Mat)\n"
                                     "    for k, (acc,) in range(4, init_values=(acc0,)):\n"
                                     "        nxt = tile.matmul_acc(acc, am, bm)\n"
                                     "        res = yield_(nxt)\n"
                                     "    o = tile.store(res, [0, 0], out)\n"
                                     "    return o\n"),
                        Stage::infer);
    for (const char* v : {"acc0", "acc", "nxt", "res"}) {
      CAPTURE(v);
      CHECK(space(r.program, v) == MemorySpace::Acc);
    }
    CHECK(target_memory(r.program, "acc0") == "Acc");
    // The Left/Right moves are made once, inside the loop body where they are consumed.
    REQUIRE(r.moves.size() == 2);
    const auto* loop = r.program.functions[0].body->as<SeqStmts>()->stmts[3]->as<ForStmt>();
    REQUIRE(loop);
    CHECK(test::move_stmts(r.program.functions[0]).size() == 2);
    CHECK(loop->body->as<SeqStmts>()->stmts.size() == 4);  // am_Left, bm_Right, nxt, yield
  }
  SUBCASE("an inherit-input op in the body sees the carried space") {
    auto r = compile_ok(test::kernel(vec_params,
                                     "    m = tile.load(x, [0, 0], [64, 64], target_memory=Mat)\n"
                                     "    for i, (cur,) in range(2, init_values=(m,)):\n"
                                     "        nxt = tile.reshape(cur, [64, 64])\n"
                                     "        fin = yield_(nxt)\n"
                                     "    return\n"),
                        Stage::infer);
    CHECK(space(r.program, "cur") == MemorySpace::Mat);
    CHECK(space(r.program, "nxt") == MemorySpace::Mat);
    CHECK(space(r.program, "fin") == MemorySpace::Mat);
  }
  SUBCASE("iter-args never get moves: a Mat carry read by a Vec op fails the verifier") {
    auto r = compile_text(test::kernel(vec_params,
                                       "    m = tile.load(x, [0, 0], [64, 64], target_memory=Mat)\n"
                                       "    for i, (cur,) in range(2, init_values=(m,)):\n"
                                       "        e = tile.exp(cur)\n"
                                       "        fin = yield_(cur)\n"
                                       "    return\n"),
                          Stage::infer);
    REQUIRE_FALSE(r.ok());
    const Diagnostic* d = test::with_code(r.diagnostics, "memory-space-mismatch");
    REQUIRE(d);
    CHECK(d->message == "Op 'tile.exp' input 0 ('cur') requires Vec but is in Mat");
    REQUIRE(d->location);
    CHECK(d->location->line == 7);
    CHECK(d->location->column == 9);
    CHECK(r.moves.empty());
  }
}

TEST_CASE("phase 1: if-phis — agreeing arms record their space, disagreeing arms record nothing") {
  SUBCASE("both arms Vec") {
    auto r = compile_ok(test::kernel(vec_params,
                                     "    t = tile.load(x, [0, 0], [64, 64], target_memory=Vec)\n"
                                     "    if c < 1:\n"
                                     "        a = tile.exp(t)\n"
                                     "        p = yield_(a)\n"
                                     "    else:\n"
                                     "        p = yield_(t)\n"
                                     "    return\n"),
                        Stage::infer);
    CHECK(space(r.program, "p") == MemorySpace::Vec);
  }
  SUBCASE("Vec and Mat: the phi keeps what was written and no move is invented") {
    // The phi's type comes from the then-value (Vec) and stays: reading it in
    // Vec needs no move.
    auto r = compile_ok(test::kernel(vec_params,
                                     "    t = tile.load(x, [0, 0], [64, 64], target_memory=Vec)\n"
                                     "    m = tile.load(x, [0, 0], [64, 64], target_memory=Mat)\n"
                                     "    if c < 1:\n"
                                     "        p = yield_(t)\n"
                                     "    else:\n"
                                     "        p = yield_(m)\n"
                                     "    e = tile.exp(p)\n"
                                     "    return\n"),
                        Stage::infer);
    CHECK(space(r.program, "p") == MemorySpace::Vec);
    CHECK(r.moves.empty());
  }
  SUBCASE("Mat and Vec: an unresolved phi never gets a move, so a Vec reader fails the verifier") {
    auto r = compile_text(test::kernel(vec_params,
                                       "    t = tile.load(x, [0, 0], [64, 64], target_memory=Vec)\n"
                                       "    m = tile.load(x, [0, 0], [64, 64], target_memory=Mat)\n"
                                       "    if c < 1:\n"
                                       "        p = yield_(m)\n"
                                       "    else:\n"
                                       "        p = yield_(t)\n"
                                       "    e = tile.exp(p)\n"
                                       "    return\n"),
                          Stage::infer);
    CHECK(r.moves.empty());
    REQUIRE(test::with_code(r.diagnostics, "memory-space-mismatch"));
    CHECK(test::with_code(r.diagnostics, "memory-space-mismatch")->message ==
          "Op 'tile.exp' input 0 ('p') requires Vec but is in Mat");
  }
  SUBCASE("an Acc phi read by a Vec op gets its move on the phi (spec case 09)") {
    auto r = compile_ok(test::kernel(vec_params,
                                     "    z0: Tile[[64, 64], FP32, Acc] = tile.create([64, 64], dtype=FP32, "
                                     "target_memory=Acc)\n"
                                     "    if c < 1:\n"
                                     "        p = yield_(z0)\n"
                                     "    else:\n"
                                     "        p = yield_(z0)\n"
                                     "    e = tile.exp(p)\n"
                                     "    return\n"),
                        Stage::infer);
    CHECK(space(r.program, "p") == MemorySpace::Acc);
    REQUIRE(r.moves.size() == 1);
    CHECK(r.moves[0].name == "p_Vec");
  }
}

TEST_CASE("phase 3: moves are scoped per block") {
  SUBCASE("a move made in the then-arm never leaks into the else-arm: each arm makes its own") {
    auto r = compile_ok(test::kernel(vec_params,
                                     "    m = tile.load(x, [0, 0], [64, 64], target_memory=Mat)\n"
                                     "    if c < 1:\n"
                                     "        a = tile.exp(m)\n"
                                     "        p = yield_(a)\n"
                                     "    else:\n"
                                     "        b = tile.neg(m)\n"
                                     "        p = yield_(b)\n"
                                     "    return\n"),
                        Stage::infer);
    REQUIRE(r.moves.size() == 2);
    CHECK(r.moves[0].name == "m_Vec");
    CHECK(r.moves[1].name == "m_Vec");
    auto moved = test::vars_named(r.program, "m_Vec");
    REQUIRE(moved.size() == 2);
    CHECK(moved[0] != moved[1]);
    // Each arm reads its own move.
    const auto* s = r.program.functions[0].body->as<SeqStmts>();
    const auto* branch = s->stmts[1]->as<IfStmt>();
    REQUIRE(branch);
    const auto* then_call = branch->then_body->as<SeqStmts>()->stmts[1]->as<AssignStmt>()->value->as<Call>();
    const auto* else_call = branch->else_body->as<SeqStmts>()->stmts[1]->as<AssignStmt>()->value->as<Call>();
    CHECK(as_var(then_call->args[0]) == moved[0]);
    CHECK(as_var(else_call->args[0]) == moved[1]);
    // The text re-parses (the printer keeps sibling names apart).
    test::parse_ok(print(r.program));
  }
  SUBCASE("a move made before an if is reused inside both arms") {
    auto r = compile_ok(test::kernel(vec_params,
                                     "    m = tile.load(x, [0, 0], [64, 64], target_memory=Mat)\n"
                                     "    e = tile.exp(m)\n"
                                     "    if c < 1:\n"
                                     "        a = tile.exp(m)\n"
                                     "        p = yield_(a)\n"
                                     "    else:\n"
                                     "        b = tile.neg(m)\n"
                                     "        p = yield_(b)\n"
                                     "    return\n"),
                        Stage::infer);
    REQUIRE(r.moves.size() == 1);
    CHECK(test::move_stmts(r.program.functions[0]).size() == 1);
  }
  SUBCASE("a move made inside a loop body is forgotten after the loop") {
    auto r = compile_ok(test::kernel(vec_params,
                                     "    m = tile.load(x, [0, 0], [64, 64], target_memory=Mat)\n"
                                     "    for i in range(4):\n"
                                     "        a = tile.exp(m)\n"
                                     "    b = tile.neg(m)\n"
                                     "    return\n"),
                        Stage::infer);
    REQUIRE(r.moves.size() == 2);
    const auto* s = r.program.functions[0].body->as<SeqStmts>();
    CHECK(s->stmts[1]->is<ForStmt>());
    CHECK(s->stmts[1]->as<ForStmt>()->body->as<SeqStmts>()->stmts.size() == 2);  // m_Vec, a
    CHECK(s->stmts[2]->as<AssignStmt>()->var->name == "m_Vec");                  // again, after the loop
  }
  SUBCASE("the same key twice in one call makes one move, arguments left to right") {
    auto r = compile_ok(test::kernel(vec_params,
                                     "    m = tile.load(x, [0, 0], [64, 64], target_memory=Mat)\n"
                                     "    n = tile.load(x, [0, 0], [64, 64], target_memory=Mat)\n"
                                     "    a = tile.add(n, m)\n"
                                     "    b = tile.add(m, m)\n"
                                     "    return\n"),
                        Stage::infer);
    REQUIRE(r.moves.size() == 2);
    CHECK(r.moves[0].name == "n_Vec");
    CHECK(r.moves[1].name == "m_Vec");
    const auto* s = r.program.functions[0].body->as<SeqStmts>();
    const auto* b = s->stmts[5]->as<AssignStmt>();
    REQUIRE(b);
    CHECK(b->var->name == "b");
    const auto* call_b = b->value->as<Call>();
    CHECK(as_var(call_b->args[0]) == as_var(call_b->args[1]));
    CHECK(as_var(call_b->args[0])->name == "m_Vec");
  }
  SUBCASE("an expression statement is a consumer too") {
    auto r = compile_ok(test::kernel(vec_params,
                                     "    m = tile.load(x, [0, 0], [64, 64], target_memory=Mat)\n"
                                     "    tile.write(m, [0, 0], 1.0)\n"
                                     "    return\n"),
                        Stage::infer);
    REQUIRE(r.moves.size() == 1);
    const auto* s = r.program.functions[0].body->as<SeqStmts>();
    CHECK(s->stmts[1]->as<AssignStmt>()->var->name == "m_Vec");
    const auto* w = s->stmts[2]->as<EvalStmt>();
    REQUIRE(w);
    CHECK(as_var(w->value->as<Call>()->args[0])->name == "m_Vec");
    CHECK(r.moves[0].loc.line == 6);  // inserted before the tile.write
  }
  SUBCASE("an unconstrained use of the same variable keeps the original") {
    auto r = compile_ok(test::kernel(vec_params,
                                     "    a = tile.create([64, 64], dtype=FP32, target_memory=Acc)\n"
                                     "    b = tile.load(x, [0, 0], [64, 64], target_memory=Vec)\n"
                                     "    r = tile.store(a, [0, 0], out)\n"
                                     "    e = tile.add(b, a)\n"
                                     "    return r\n"),
                        Stage::infer);
    // tile.store accepts Acc: no move there; tile.add needs Vec for its rhs.
    REQUIRE(r.moves.size() == 1);
    CHECK(r.moves[0].name == "a_Vec");
    const auto* s = r.program.functions[0].body->as<SeqStmts>();
    CHECK(as_var(s->stmts[2]->as<AssignStmt>()->value->as<Call>()->args[0])->name == "a");
  }
}

TEST_CASE("phase 3: a changed space drops the old layout triple, keeps valid_shape and declared MemRefs") {
  auto r = compile_ok(
      test::kernel(
          vec_params,
          "    t: Tile[[64, 64], FP32, Vec, TileView(valid_shape=[48, 64], blayout=TileLayout.col_major)] = "
          "tile.load(x, [0, 0], [64, 64], target_memory=Mat)\n"
          "    u = tile.exp(t)\n"
          "    d: Tile[[64, 64], FP32, MemRef(\"ping\", slots=2)[1], Vec] = tile.create([64, 64], "
          "dtype=FP32)\n"
          "    e = tile.exp(d)\n"
          "    return\n"),
      Stage::infer);
  const auto* t = as_tile(test::var(r.program, "t")->type);
  CHECK(t->space == MemorySpace::Mat);
  REQUIRE(t->view.fields.size() == 1);
  CHECK(t->view.fields[0].name == "valid_shape");
  // The move keeps valid_shape too.
  const auto* mv = as_tile(test::var(r.program, "t_Vec")->type);
  REQUIRE(mv);
  CHECK(mv->view.valid_shape());
  const auto* d = as_tile(test::var(r.program, "d")->type);
  REQUIRE(d->memref);
  CHECK(d->memref->is_pinned);
  CHECK(d->memref->name() == "ping");
  CHECK(d->space == MemorySpace::Vec);
}

TEST_CASE("Tile-typed kernel parameters are rejected, with the parameter's location") {
  auto r = compile_text(
      "@function(type=AIV)\n"
      "def k(x: Tensor[[64, 64], FP32],\n"
      "      t: Tile[[64, 64], FP32, Vec]):\n"
      "    e = tile.exp(t)\n"
      "    return\n",
      Stage::infer);
  REQUIRE_FALSE(r.ok());
  REQUIRE(r.diagnostics.size() == 1);
  const auto& d = r.diagnostics[0];
  CHECK(d.code == "tile-parameter");
  CHECK(d.message.find("has TileType, but AIV parameters must be TensorType") != std::string::npos);
  REQUIRE(d.location);
  CHECK(d.location->file == "test.pto");
  CHECK(d.location->line == 3);
  CHECK(r.exit_code() == 2);
}

TEST_CASE("kernel kinds are processed alike; other functions are left alone") {
  for (const char* kind : {"InCore", "AIC", "AIV"}) {
    CAPTURE(kind);
    auto r = compile_ok(test::kernel(vec_params,
                                     "    t = tile.load(x, [0, 0], [64, 64])\n"
                                     "    e = tile.exp(t)\n"
                                     "    return\n",
                                     kind),
                        Stage::infer);
    CHECK(space(r.program, "t") == MemorySpace::Vec);
  }
  for (const char* kind : {"Orchestration", "Opaque"}) {
    CAPTURE(kind);
    const std::string text = test::kernel(vec_params,
                                          "    t = tile.load(x, [0, 0], [64, 64])\n"
                                          "    m = tile.load(x, [0, 0], [64, 64], target_memory=Mat)\n"
                                          "    e = tile.exp(m)\n"
                                          "    return\n",
                                          kind);
    auto r = compile_ok(text, Stage::infer);
    CHECK_FALSE(space(r.program, "t").has_value());
    CHECK(r.moves.empty());
    CHECK(print(r.program) == print(test::parse_ok(text)));
  }
}

TEST_CASE("the verifier names an unset space and an input outside its allowed set") {
  // Built in C++: a tile with no space, and a Mat tile fed to tile.exp, in a
  // kernel the pass did not run on.
  FunctionBuilder fb("k");
  auto x = fb.param("x", tensor_type({64, 64}, DataType::FP32));
  auto t = fb.let("t", tile_type({64, 64}, DataType::FP32), op("helper", {x}));
  auto m = fb.let("m", tile_type({64, 64}, DataType::FP32, MemorySpace::Mat),
                  op("tile.load", {x, {0, 0}, {64, 64}}, {{"target_memory", MemorySpace::Mat}}));
  fb.let("e", tile_type({64, 64}, DataType::FP32, MemorySpace::Vec), op("tile.add", {t, m}));
  fb.ret({});
  Program p;
  p.file = "built.pto";
  p.functions.push_back(fb.build());
  PassContext ctx;
  const SocPolicy soc = soc_a2a3();
  ctx.soc = &soc;
  ctx.ops = &default_registry();
  CHECK_FALSE(verify_tile_memory_inferred(p, ctx));
  REQUIRE(ctx.diagnostics.size() == 2);
  CHECK(ctx.diagnostics[0].code == "memory-space-unset");
  CHECK(ctx.diagnostics[0].message.find("TileType variable 't' has no memory_space set") == 0);
  CHECK(ctx.diagnostics[1].message == "Op 'tile.add' input 1 ('m') requires Vec but is in Mat");
  // Running the pass first repairs both: t resolves to Vec, m gets a move.
  PassContext ctx2 = ctx;
  ctx2.diagnostics.clear();
  Program q = infer_tile_memory_space(clone(p), ctx2);
  CHECK(verify_tile_memory_inferred(q, ctx2));
  CHECK(ctx2.diagnostics.empty());
  REQUIRE(ctx2.moves.size() == 1);
  CHECK(ctx2.moves[0].name == "m_Vec");
  CHECK(ctx2.moves[0].function == "k");
}

TEST_CASE("the pass refines variables in place; a clone keeps the input intact") {
  const Program p = test::parse_ok(test::kernel(vec_params,
                                                "    t = tile.load(x, [0, 0], [64, 64])\n"
                                                "    e = tile.exp(t)\n"
                                                "    return\n"));
  const std::string before = print(p);
  PassContext ctx;
  const SocPolicy soc = soc_a2a3();
  ctx.soc = &soc;
  ctx.ops = &default_registry();
  Program q = infer_tile_memory_space(clone(p), ctx);
  CHECK(print(p) == before);
  CHECK(print(q) != before);
  // Idempotent: a second run changes nothing.
  const std::string once = print(q);
  Program twice = infer_tile_memory_space(q, ctx);
  CHECK(print(twice) == once);
  CHECK(ctx.moves.empty());
}

TEST_CASE("an alias and a loop carry of a producer fed through an inserted move keep the producer's view") {
  // An elementwise op on an accumulator reads it through an Acc -> Vec move;
  // the product, the name bound to it and the loop carried from that name are
  // all flat Vec tiles: none keeps a boxed layout from before the move.
  auto r = compile_ok(
      "@pl.program\n"
      "class P:\n"
      "    @pl.function(type=pl.FunctionType.InCore)\n"
      "    def main(self, a: pl.Tensor[[32, 128], pl.BF16], b: pl.Tensor[[128, 128], pl.BF16],\n"
      "             o: pl.Out[pl.Tensor[[32, 128], pl.FP32]]) -> pl.Tensor[[32, 128], pl.FP32]:\n"
      "        am = pl.load(a, [0, 0], [32, 128], target_memory=pl.Mem.Mat)\n"
      "        bm = pl.load(b, [0, 0], [128, 128], target_memory=pl.Mem.Mat)\n"
      "        l = pl.move(am, target_memory=pl.Mem.Left)\n"
      "        r = pl.move(bm, target_memory=pl.Mem.Right)\n"
      "        x = pl.matmul(l, r)\n"
      "        value = pl.mul(x, 1.0)\n"
      "        alias = value\n"
      "        for i, (c,) in pl.range(2, init_values=(alias,)):\n"
      "            d = pl.add(c, c)\n"
      "            e = pl.yield_(d)\n"
      "        w = pl.store(e, [0, 0], o)\n"
      "        return w\n",
      Stage::infer, Planner::pypto, soc_a5());
  CHECK(r.moves.size() == 1);
  for (const char* name : {"value", "alias", "c", "d", "e"}) {
    INFO(name);
    const VarPtr v = test::find_var(r.program, name);
    REQUIRE(v);
    CHECK(print(v->type) == "Tile[[32, 128], FP32, Vec]");
  }
}
