// Canonical printing: names that always re-parse, implicit layouts omitted,
// literals, yields, and a property test of operator precedence.
#include <doctest/doctest.h>

#include <random>

#include "pypto_support.hpp"

using namespace pto_mem;
using namespace pto_mem::pypto;

TEST_CASE("clashing, reserved and non-identifier names get a deterministic suffix") {
  FunctionBuilder fb("k");
  auto x = fb.param("x", scalar_type(DataType::INDEX));
  auto a = fb.let("y", nullptr, add(var_ref(x), int_imm(1)));
  auto b = fb.let("y", nullptr, add(var_ref(a), int_imm(2)));  // a pass made two `y`s
  auto c = fb.let("y_1", nullptr, add(var_ref(b), int_imm(3)));
  auto d = fb.let("Vec", nullptr, var_ref(c));
  auto e = fb.let("my value", nullptr, var_ref(d));
  auto f = fb.let("3d", nullptr, var_ref(e));
  fb.ret({f});
  const Function fn = fb.build();
  const std::string text = print(fn);
  CHECK(text ==
        "@function(type=InCore)\n"
        "def k(x: Scalar[INDEX]):\n"
        "    y: Scalar[INDEX] = x + 1\n"
        "    y_2: Scalar[INDEX] = y + 2\n"
        "    y_1: Scalar[INDEX] = y_2 + 3\n"
        "    Vec_: Scalar[INDEX] = y_1\n"
        "    my_value: Scalar[INDEX] = Vec_\n"
        "    v3d: Scalar[INDEX] = my_value\n"
        "    return v3d\n");
  Program p;
  p.functions.push_back(fn);
  CHECK(print(test::parse_ok(print(p))) == print(p));
}

TEST_CASE("the same name in sibling scopes is kept (a move made in each if arm)") {
  const std::string text =
      "@function(type=InCore)\n"
      "def k(x: Tensor[[4], FP32],\n"
      "      c: Scalar[INDEX]):\n"
      "    t: Tile[[4], FP32, Mat] = tile.load(x, [0], [4], target_memory=Mat)\n"
      "    if c < 1:\n"
      "        t_Vec: Tile[[4], FP32, Vec] = tile.move(t, target_memory=Vec)\n"
      "        tile.write(t_Vec, [0], 1.0)\n"
      "    else:\n"
      "        t_Vec: Tile[[4], FP32, Vec] = tile.move(t, target_memory=Vec)\n"
      "        tile.write(t_Vec, [0], 2.0)\n";
  CHECK(print(test::parse_ok(text)) == text);
}

TEST_CASE("view fields equal to the space's implicit layout are omitted") {
  auto show = [](MemorySpace s, std::vector<Kwarg> fields) {
    return print(tile_type({16, 16}, DataType::FP16, s, nullptr, TileView{std::move(fields)}));
  };
  auto layout = [](const char* v) { return enum_imm("TileLayout", v); };
  CHECK(show(MemorySpace::Vec, {{"blayout", layout("row_major")},
                                {"slayout", layout("none_box")},
                                {"fractal", int_imm(512)}}) == "Tile[[16, 16], FP16, Vec]");
  CHECK(show(MemorySpace::Vec, {{"blayout", layout("col_major")}}) ==
        "Tile[[16, 16], FP16, Vec, TileView(blayout=TileLayout.col_major)]");
  CHECK(show(MemorySpace::Mat, {{"blayout", layout("col_major")}, {"slayout", layout("row_major")}}) ==
        "Tile[[16, 16], FP16, Mat]");
  CHECK(show(MemorySpace::Right, {{"blayout", layout("row_major")}, {"slayout", layout("col_major")}}) ==
        "Tile[[16, 16], FP16, Right]");
  CHECK(show(MemorySpace::Acc, {{"fractal", int_imm(1024)}, {"valid_shape", int_list({8, 16})}}) ==
        "Tile[[16, 16], FP16, Acc, TileView(valid_shape=[8, 16])]");
  // Without a space nothing is implicit.
  CHECK(print(tile_type({4}, DataType::FP16, std::nullopt, nullptr,
                        TileView{{{"blayout", layout("row_major")}}})) ==
        "Tile[[4], FP16, TileView(blayout=TileLayout.row_major)]");
}

TEST_CASE("literals print so that they re-lex to the same value") {
  CHECK(print(float_imm(1.0)) == "1.0");
  CHECK(print(float_imm(0.5)) == "0.5");
  CHECK(print(float_imm(1e-05)) == "1e-05");
  CHECK(print(float_imm(1e20)) == "1e+20");
  CHECK(print(float_imm(-2.0)) == "-2.0");
  CHECK(print(string_imm("a\"b\\c\n\x01")) == "\"a\\\"b\\\\c\\n\\x01\"");
  CHECK(print(int_imm(5, DataType::INT32)) == "const(5, INT32)");
  CHECK(print(tuple({int_imm(1)})) == "(1,)");
  CHECK(print(tuple({})) == "()");
  CHECK(print(subscript(int_imm(-1), int_imm(0))) == "(-1)[0]");
  auto x = var_ref(make_var("x", scalar_type(DataType::INDEX)));
  CHECK(print(sub(x, int_imm(-5))) == "x - -5");
  CHECK(print(unary(UnaryOp::Neg, unary(UnaryOp::Neg, x))) == "-(-x)");
  CHECK(print(binary(BinaryOp::Add, int_imm(1), unary(UnaryOp::Not, x))) == "1 + (not x)");
  const Program p = test::parse_ok(
      "def k(x: Scalar[INDEX]):\n    tile.sink([1e-05, -2.5, \"a\\x01\", 1 + (not x), (-1)[0]])\n");
  CHECK(print(p).find("[1e-05, -2.5, \"a\\x01\", 1 + (not x), (-1)[0]]") != std::string::npos);
}

TEST_CASE("return vars are annotated only where the parser would type them differently") {
  const std::string text =
      "@function(type=InCore)\n"
      "def k(x: Tensor[[4], FP32],\n"
      "      c: Scalar[INDEX]):\n"
      "    t: Tile[[4], FP32, Vec] = tile.load(x, [0], [4], target_memory=Vec)\n"
      "    for i, (a, b) in range(2, init_values=(t, t)):\n"
      "        a2, b2: tuple[Tile[[4], FP32, Vec], Tile[[4], FP32, Mat]] = yield_(a, b)\n"
      "    if c < 1:\n"
      "        r: Tile[[4], FP32] = yield_(a2)\n"
      "    else:\n"
      "        r: Tile[[4], FP32] = yield_(b2)\n"
      "    if c < 2:\n"
      "        q = yield_(a2)\n"
      "    else:\n"
      "        q = yield_(b2)\n";
  CHECK(print(test::parse_ok(text)) == text);
}

TEST_CASE("empty bodies print pass") {
  FunctionBuilder fb("k");
  fb.begin_for("i", 0, 4);
  fb.end_for();
  const std::string text = print(fb.build());
  CHECK(text == "@function(type=InCore)\ndef k():\n    for i in range(4):\n        pass\n");
  CHECK(print(test::parse_ok(text)) == text);
}

namespace {

/// Random expression trees over a few variables, built with the folding factories.
struct ExprGen {
  std::mt19937_64 rng;
  std::vector<VarPtr> vars;
  explicit ExprGen(std::uint64_t seed) : rng(seed) {
    for (const char* n : {"a", "b", "c"}) vars.push_back(make_var(n, scalar_type(DataType::INDEX)));
  }
  int pick(int n) { return static_cast<int>(rng() % static_cast<std::uint64_t>(n)); }
  ExprPtr gen(int depth) {
    if (depth == 0 || pick(4) == 0) {
      switch (pick(5)) {
        case 0: return int_imm(pick(200) - 100);
        case 1: return float_imm((pick(100) - 50) / 4.0);
        case 2: return int_imm(pick(9), DataType::INT32);
        default: return var_ref(vars[static_cast<std::size_t>(pick(3))]);
      }
    }
    switch (pick(7)) {
      case 0: return unary(static_cast<UnaryOp>(pick(3)), gen(depth - 1));
      case 1: return subscript(gen(depth - 1), gen(depth - 1));
      case 2: return list({gen(depth - 1), gen(depth - 1)});
      case 3: return call("tile.f", {gen(depth - 1)}, {{"k", gen(depth - 1)}});
      default: return binary(static_cast<BinaryOp>(pick(19)), gen(depth - 1), gen(depth - 1));
    }
  }
};

/// Same tree, variables matched by name (a re-parse makes new variables).
bool same_tree(const ExprPtr& x, const ExprPtr& y) {
  if (!x || !y) return x == y;
  if (x->kind != y->kind) return false;
  if (auto vx = as_var(x)) return vx->name == as_var(y)->name;
  switch (x->kind) {
    case ExprKind::Binary: {
      const auto *a = x->as<BinaryExpr>(), *b = y->as<BinaryExpr>();
      return a->op == b->op && same_tree(a->lhs, b->lhs) && same_tree(a->rhs, b->rhs);
    }
    case ExprKind::Unary:
      return x->as<UnaryExpr>()->op == y->as<UnaryExpr>()->op &&
             same_tree(x->as<UnaryExpr>()->operand, y->as<UnaryExpr>()->operand);
    case ExprKind::Subscript:
      return same_tree(x->as<SubscriptExpr>()->value, y->as<SubscriptExpr>()->value) &&
             same_tree(x->as<SubscriptExpr>()->index, y->as<SubscriptExpr>()->index);
    case ExprKind::List: {
      const auto &a = x->as<ListExpr>()->elems, &b = y->as<ListExpr>()->elems;
      return a.size() == b.size() && same_tree(a[0], b[0]) && same_tree(a[1], b[1]);
    }
    case ExprKind::Call: {
      const auto *a = x->as<Call>(), *b = y->as<Call>();
      return a->op == b->op && same_tree(a->args[0], b->args[0]) &&
             same_tree(a->kwargs[0].value, b->kwargs[0].value);
    }
    default: return same_expr(x, y);
  }
}

}  // namespace

TEST_CASE("property: printed expressions parse back to the same tree") {
  for (std::uint64_t seed = 1; seed <= 400; ++seed) {
    ExprGen g(seed);
    const ExprPtr e = g.gen(5);
    FunctionBuilder fb("k");
    for (const auto& v : g.vars) fb.param(v->name, v->type);
    fb.eval(call("tile.sink", {e}));
    Program p;
    p.functions.push_back(fb.build());
    const std::string text = print(p);
    CAPTURE(seed);
    CAPTURE(text);
    auto r = parse_program(text);
    REQUIRE(r.ok());
    const auto* c = flatten(r.program.functions[0].body)[0]->as<EvalStmt>()->value->as<Call>();
    CHECK(same_tree(e, c->args[0]));
    CHECK(print(r.program) == text);
  }
}

TEST_CASE("an empty program class prints pass and re-parses") {
  Program p;
  p.name = "Empty";
  CHECK(print(p) == "@program\nclass Empty:\n    pass\n");
  const Program q = test::parse_ok(print(p));
  CHECK(q.name == "Empty");
  CHECK(q.functions.empty());
}
