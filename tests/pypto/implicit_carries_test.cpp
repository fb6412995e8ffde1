// PyPTO's DSL re-binding a name inside a loop body or an if arm: the parser
// (in re-binding mode, as the tool reads PyPTO programs) makes the loop carry
// or the if phi that PyPTO's DSL makes, and the printed explicit form
// re-parses to the same IR.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "pypto_support.hpp"

using namespace pto_mem;
using namespace pto_mem::pypto;
using pto_mem::test::parse_error;
using pto_mem::test::parse_ok;

namespace {

ParseOptions carry_rebinding() {
  ParseOptions o;
  o.allow_rebinding = true;
  return o;
}

std::vector<StmtPtr> carry_top(const Program& p) { return flatten(p.functions.at(0).body); }

template <class S>
const S* carry_nth(const std::vector<StmtPtr>& s, std::size_t i) {
  REQUIRE(i < s.size());
  const auto* x = s[i]->as<S>();
  REQUIRE(x);
  return x;
}

const YieldStmt* carry_last_yield(const StmtPtr& body) {
  const auto s = flatten(body);
  REQUIRE_FALSE(s.empty());
  const auto* y = s.back()->as<YieldStmt>();
  REQUIRE(y);
  return y;
}

/// The implicit program prints, in both spellings, to text that re-parses
/// (strictly: no re-binding left) to a program that prints the same, and the
/// explicit form written by hand reads to that same program.
void carry_round_trip(const std::string& implicit, const std::string& explicit_form = {}) {
  CAPTURE(implicit);
  const Program p = parse_ok(implicit, "implicit.pto", carry_rebinding());
  const std::string ours = print(p);
  CAPTURE(ours);
  CHECK(print(parse_ok(ours, "printed.pto")) == ours);
  const std::string pl = print(p, PrintOptions{Syntax::pypto});
  CHECK(print(parse_ok(pl, "printed_pl.pto"), PrintOptions{Syntax::pypto}) == pl);
  if (!explicit_form.empty()) CHECK(print(parse_ok(explicit_form, "explicit.pto")) == ours);
}

const char* const carry_head =
    "@pl.function(type=pl.FunctionType.InCore)\n"
    "def k(a: pl.Tensor[[16, 16], pl.FP32], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> "
    "pl.Tensor[[16, 16], pl.FP32]:\n"
    "    tile_x = pl.tile.load(a, [0, 0], [16, 16])\n"
    "    tile_y = pl.tile.load(a, [0, 0], [16, 16])\n";

}  // namespace

TEST_CASE("implicit carry: a name re-bound in a loop body becomes iter-arg, yield and return var") {
  const std::string text = std::string(carry_head) +
                           "    for i in pl.range(4):\n"
                           "        tmp = pl.tile.mul(tile_x, tile_y)\n"
                           "        tile_x = pl.tile.add(tmp, tile_y)\n"
                           "    out = pl.tile.store(tile_x, [0, 0], out)\n"
                           "    return out\n";
  const Program p = parse_ok(text, "t.pto", carry_rebinding());
  const auto s = carry_top(p);
  const auto* x0 = carry_nth<AssignStmt>(s, 0);
  const auto* loop = carry_nth<ForStmt>(s, 2);
  REQUIRE(loop->iter_args.size() == 1);  // tile_y is only read, tmp only defined inside: neither is carried
  const IterArg& ia = loop->iter_args[0];
  CHECK(ia.var->name == "tile_x__iter_v1");
  CHECK(as_var(ia.init) == x0->var);
  CHECK(ia.var->type == x0->var->type);
  REQUIRE(loop->return_vars.size() == 1);
  CHECK(loop->return_vars[0]->name == "tile_x__rv_v2");
  const auto body = flatten(loop->body);
  // Read before the re-binding: the iter-arg; yielded: the re-bound value.
  CHECK(as_var(carry_nth<AssignStmt>(body, 0)->value->as<Call>()->args.at(0)) == ia.var);
  const auto* rebound = carry_nth<AssignStmt>(body, 1);
  CHECK(rebound->var->name == "tile_x");
  const YieldStmt* y = carry_last_yield(loop->body);
  REQUIRE(y->values.size() == 1);
  CHECK(as_var(y->values[0]) == rebound->var);
  // After the loop the name is the return var.
  CHECK(as_var(carry_nth<AssignStmt>(s, 3)->value->as<Call>()->args.at(0)) == loop->return_vars[0]);

  carry_round_trip(
      text,
      "@function(type=InCore)\n"
      "def k(a: Tensor[[16, 16], FP32], out: Out[Tensor[[16, 16], FP32]]) -> Tensor[[16, 16], FP32]:\n"
      "    tile_x: Tile[[16, 16], FP32, Vec] = tile.load(a, [0, 0], [16, 16], target_memory=Vec)\n"
      "    tile_y: Tile[[16, 16], FP32, Vec] = tile.load(a, [0, 0], [16, 16], target_memory=Vec)\n"
      "    for i, (tile_x__iter_v1,) in range(4, init_values=(tile_x,)):\n"
      "        tmp: Tile[[16, 16], FP32, Vec] = tile.mul(tile_x__iter_v1, tile_y)\n"
      "        tile_x_1: Tile[[16, 16], FP32, Vec] = tile.add(tmp, tile_y)\n"
      "        tile_x__rv_v2 = yield_(tile_x_1)\n"
      "    out_1: Tensor[[16, 16], FP32] = tile.store(tile_x__rv_v2, [0, 0], out)\n"
      "    return out_1\n");
}

TEST_CASE("implicit carry: several names in name order, after the explicit carries") {
  const std::string text = std::string(carry_head) +
                           "    acc0 = pl.tile.create([16, 16], dtype=pl.FP32)\n"
                           "    for i, (acc,) in pl.range(4, init_values=(acc0,)):\n"
                           "        tile_y = pl.tile.exp(tile_y)\n"
                           "        tile_x = pl.tile.add(tile_x, tile_y)\n"
                           "        nxt = pl.tile.add(acc, tile_x)\n"
                           "        acc_out = pl.yield_(nxt)\n"
                           "    r = pl.tile.add(acc_out, tile_y)\n"
                           "    out = pl.tile.store(r, [0, 0], out)\n"
                           "    return out\n";
  const Program p = parse_ok(text, "t.pto", carry_rebinding());
  const auto* loop = carry_nth<ForStmt>(carry_top(p), 3);
  REQUIRE(loop->iter_args.size() == 3);
  CHECK(loop->iter_args[0].var->name == "acc");
  CHECK(loop->iter_args[1].var->name == "tile_x__iter_v1");  // sorted by name: tile_x before tile_y
  CHECK(loop->iter_args[2].var->name == "tile_y__iter_v1");
  REQUIRE(loop->return_vars.size() == 3);
  CHECK(loop->return_vars[0]->name == "acc_out");
  CHECK(loop->return_vars[1]->name == "tile_x__rv_v2");
  CHECK(loop->return_vars[2]->name == "tile_y__rv_v2");
  CHECK(carry_last_yield(loop->body)->values.size() == 3);
  carry_round_trip(text);
}

TEST_CASE(
    "implicit carry: an inner loop's re-binding is carried by every enclosing loop up to the definition") {
  const std::string text = std::string(carry_head) +
                           "    for i in pl.range(2):\n"
                           "        inner_only = pl.tile.exp(tile_y)\n"
                           "        for j in pl.range(3):\n"
                           "            tile_x = pl.tile.add(tile_x, inner_only)\n"
                           "    out = pl.tile.store(tile_x, [0, 0], out)\n"
                           "    return out\n";
  const Program p = parse_ok(text, "t.pto", carry_rebinding());
  const auto s = carry_top(p);
  const auto* outer = carry_nth<ForStmt>(s, 2);
  REQUIRE(outer->iter_args.size() == 1);  // inner_only is defined in the outer body: not carried by it
  CHECK(as_var(outer->iter_args[0].init) == carry_nth<AssignStmt>(s, 0)->var);
  const auto ob = flatten(outer->body);
  const auto* inner = carry_nth<ForStmt>(ob, 1);
  REQUIRE(inner->iter_args.size() == 1);
  CHECK(as_var(inner->iter_args[0].init) == outer->iter_args[0].var);
  CHECK(as_var(carry_last_yield(outer->body)->values.at(0)) == inner->return_vars.at(0));
  CHECK(as_var(carry_nth<AssignStmt>(s, 3)->value->as<Call>()->args.at(0)) == outer->return_vars.at(0));
  carry_round_trip(text);
}

TEST_CASE("implicit phi: a name re-bound in one arm of an if in a loop") {
  const std::string text = std::string(carry_head) +
                           "    for i in pl.range(4):\n"
                           "        if i == 0:\n"
                           "            tile_x = pl.tile.exp(tile_x)\n"
                           "    out = pl.tile.store(tile_x, [0, 0], out)\n"
                           "    return out\n";
  const Program p = parse_ok(text, "t.pto", carry_rebinding());
  const auto* loop = carry_nth<ForStmt>(carry_top(p), 2);
  REQUIRE(loop->iter_args.size() == 1);
  const VarPtr& ia = loop->iter_args[0].var;
  const auto body = flatten(loop->body);
  const auto* iff = carry_nth<IfStmt>(body, 0);
  REQUIRE(iff->return_vars.size() == 1);
  CHECK(iff->return_vars[0]->name == "tile_x__phi_v4");
  const auto then_s = flatten(iff->then_body);
  CHECK(as_var(carry_last_yield(iff->then_body)->values.at(0)) == carry_nth<AssignStmt>(then_s, 0)->var);
  REQUIRE(iff->else_body);  // made: it yields the value from before the if
  CHECK(as_var(carry_last_yield(iff->else_body)->values.at(0)) == ia);
  CHECK(as_var(carry_last_yield(loop->body)->values.at(0)) == iff->return_vars[0]);
  carry_round_trip(text);
}

TEST_CASE("implicit phi: outside loops, in both arms, a new name bound in both arms, and elif chains") {
  const std::string text = std::string(carry_head) +
                           "    c = 3\n"
                           "    if c < 2:\n"
                           "        tile_x = pl.tile.exp(tile_x)\n"
                           "        fresh = pl.tile.exp(tile_y)\n"
                           "    elif c < 3:\n"
                           "        fresh = pl.tile.add(tile_y, tile_y)\n"
                           "        tile_y = pl.tile.exp(tile_y)\n"
                           "    else:\n"
                           "        fresh = pl.tile.mul(tile_y, tile_y)\n"
                           "        only_here = pl.tile.exp(tile_y)\n"
                           "    r = pl.tile.add(fresh, tile_x)\n"
                           "    r = pl.tile.add(r, tile_y)\n"
                           "    out = pl.tile.store(r, [0, 0], out)\n"
                           "    return out\n";
  const Program p = parse_ok(text, "t.pto", carry_rebinding());
  const auto s = carry_top(p);
  const auto* iff = carry_nth<IfStmt>(s, 3);
  std::vector<std::string> names;
  for (const auto& rv : iff->return_vars) names.push_back(rv->name.substr(0, rv->name.find("__")));
  CHECK(names == std::vector<std::string>{"fresh", "tile_x", "tile_y"});  // only_here: bound in one arm only
  const auto* nested = carry_nth<IfStmt>(flatten(iff->else_body), 0);
  CHECK(nested->return_vars.size() == 2);  // fresh and tile_y
  carry_round_trip(text);
}

TEST_CASE("implicit carry: names an explicit if result binds inside the loop body are carried too") {
  const std::string text = std::string(carry_head) +
                           "    for i in pl.range(2):\n"
                           "        if i == 0:\n"
                           "            tile_x, tile_y: tuple[pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec], "
                           "pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec]] = pl.yield_(tile_y, tile_x)\n"
                           "        else:\n"
                           "            tile_x, tile_y: tuple[pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec], "
                           "pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec]] = pl.yield_(tile_x, tile_y)\n"
                           "    r = pl.tile.sub(tile_x, tile_y)\n"
                           "    out = pl.tile.store(r, [0, 0], out)\n"
                           "    return out\n";
  const Program p = parse_ok(text, "t.pto", carry_rebinding());
  const auto* loop = carry_nth<ForStmt>(carry_top(p), 2);
  REQUIRE(loop->iter_args.size() == 2);
  const auto* iff = carry_nth<IfStmt>(flatten(loop->body), 0);
  REQUIRE(iff->return_vars.size() == 2);
  const YieldStmt* y = carry_last_yield(loop->body);
  CHECK(as_var(y->values.at(0)) == iff->return_vars[0]);
  CHECK(as_var(y->values.at(1)) == iff->return_vars[1]);
  carry_round_trip(text);
}

TEST_CASE("implicit carry: while loops carry what their body re-binds; the condition reads the carry") {
  const std::string text =
      "@pl.function(type=pl.FunctionType.InCore)\n"
      "def k(n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:\n"
      "    i = 0\n"
      "    total = 0\n"
      "    while i < n:\n"
      "        total = total + i\n"
      "        i = i + 1\n"
      "    return total\n";
  const Program p = parse_ok(text, "t.pto", carry_rebinding());
  const auto* w = carry_nth<WhileStmt>(carry_top(p), 2);
  REQUIRE(w->iter_args.size() == 2);
  CHECK(w->iter_args[0].var->name == "i__iter_v1");
  CHECK(w->iter_args[1].var->name == "total__iter_v1");
  CHECK(as_var(w->condition->as<BinaryExpr>()->lhs) == w->iter_args[0].var);
  CHECK(as_var(carry_nth<ReturnStmt>(carry_top(p), 3)->values.at(0)) == w->return_vars.at(1));
  carry_round_trip(text);
}

TEST_CASE("implicit carry: a while_ loop carries after its explicit carries") {
  const std::string text = std::string(carry_head) +
                           "    for (n,) in pl.while_(init_values=(0,)):\n"
                           "        pl.cond(n < 3)\n"
                           "        tile_x = pl.tile.exp(tile_x)\n"
                           "        n2 = n + 1\n"
                           "        r = pl.yield_(n2)\n"
                           "    out = pl.tile.store(tile_x, [0, 0], out)\n"
                           "    return out\n";
  const Program p = parse_ok(text, "t.pto", carry_rebinding());
  const auto* w = carry_nth<WhileStmt>(carry_top(p), 2);
  REQUIRE(w->iter_args.size() == 2);
  CHECK(w->iter_args[0].var->name == "n");
  CHECK(w->iter_args[1].var->name == "tile_x__iter_v1");
  REQUIRE(w->return_vars.size() == 2);
  CHECK(w->return_vars[0]->name == "r");
  CHECK(as_var(carry_nth<AssignStmt>(carry_top(p), 3)->value->as<Call>()->args.at(0)) == w->return_vars[1]);
  carry_round_trip(text);
}

TEST_CASE("implicit carry: what is not carried") {
  // A name defined only inside the loop stays there.
  const std::string local = std::string(carry_head) +
                            "    for i in pl.range(4):\n"
                            "        t = pl.tile.exp(tile_x)\n"
                            "    out = pl.tile.store(t, [0, 0], out)\n"
                            "    return out\n";
  CHECK(parse_error(local, carry_rebinding()).message.find("undefined name 't'") != std::string::npos);
  // The loop's own explicit return var is bound after the loop, not re-bound in it.
  const std::string own = std::string(carry_head) +
                          "    for i, (acc,) in pl.range(4, init_values=(tile_x,)):\n"
                          "        nxt = pl.tile.exp(acc)\n"
                          "        tile_x = pl.yield_(nxt)\n"
                          "    out = pl.tile.store(tile_x, [0, 0], out)\n"
                          "    return out\n";
  const Program own_program = parse_ok(own, "t.pto", carry_rebinding());  // outlives the pointer below
  const auto* loop = carry_nth<ForStmt>(carry_top(own_program), 2);
  REQUIRE(loop);
  CHECK(loop->iter_args.size() == 1);
  // Our strict spelling (the library's default) still refuses any re-binding.
  CHECK(parse_error(std::string(carry_head) +
                    "    for i in range(2):\n        tile_x = tile.exp(tile_x)\n    return out\n")
            .message.find("already defined") != std::string::npos);
}

TEST_CASE("loop initializers: a call's type, and a literal or untyped call typed by what the loop yields") {
  const Program p = parse_ok(
      "@pl.program\n"
      "class P:\n"
      "    @pl.function(type=pl.FunctionType.InCore)\n"
      "    def helper(self, t: pl.Tensor[[16, 16], pl.FP32]) -> pl.Tensor[[16, 16], pl.FP32]:\n"
      "        return t\n"
      "    @pl.function(type=pl.FunctionType.InCore)\n"
      "    def k(self, t: pl.Tensor[[16, 16], pl.FP32], n: pl.Scalar[pl.INT32]) -> pl.Tensor[[16, 16], "
      "pl.FP32]:\n"
      "        for i, (carry,) in pl.range(2, init_values=(self.helper(t),)):\n"
      "            r = pl.yield_(t)\n"
      "        for j, (s,) in pl.range(4, init_values=(0,)):\n"
      "            s2 = n + s\n"
      "            sr = pl.yield_(s2)\n"
      "        for m, (u,) in pl.range(4, init_values=(pl.some.unknown_op(t),)):\n"
      "            ur = pl.yield_(t)\n"
      "        return r\n",
      "t.pto", carry_rebinding());
  const auto s = flatten(p.functions.at(1).body);
  CHECK(carry_nth<ForStmt>(s, 0)->iter_args.at(0).var->type->is<TensorType>());
  const auto* scalar = carry_nth<ForStmt>(s, 1)->iter_args.at(0).var->type->as<ScalarType>();
  REQUIRE(scalar);
  CHECK(scalar->dtype == DataType::INT32);
  CHECK(carry_nth<ForStmt>(s, 2)->iter_args.at(0).var->type->is<TensorType>());
}

TEST_CASE("tuple assignment from a call: a temporary and one element per name") {
  const std::string text =
      "@pl.program\n"
      "class P:\n"
      "    @pl.function(type=pl.FunctionType.InCore)\n"
      "    def two(self, t: pl.Tensor[[16, 16], pl.FP32]) -> tuple[pl.Tensor[[16, 16], pl.FP32], "
      "pl.Scalar[pl.INDEX]]:\n"
      "        return t, 1\n"
      "    @pl.function(type=pl.FunctionType.Orchestration)\n"
      "    def main(self, t: pl.Tensor[[16, 16], pl.FP32]) -> pl.Tensor[[16, 16], pl.FP32]:\n"
      "        a, b = self.two(t)\n"
      "        a, b = self.two(a)\n"
      "        return a\n";
  const Program p = parse_ok(text, "t.pto", carry_rebinding());
  const auto s = flatten(p.functions.at(1).body);
  REQUIRE(s.size() == 7);
  const auto* tmp = carry_nth<AssignStmt>(s, 0);
  CHECK(tmp->var->type->is<TupleType>());
  const auto* a = carry_nth<AssignStmt>(s, 1);
  CHECK(a->var->name == "a");
  CHECK(a->var->type->is<TensorType>());
  CHECK(as_var(a->value->as<SubscriptExpr>()->value) == tmp->var);
  CHECK(carry_nth<AssignStmt>(s, 2)->var->type->is<ScalarType>());
  carry_round_trip(text);
  // What PyPTO does not unpack, with a message that says why.
  const std::string bad_head =
      "@pl.function(type=pl.FunctionType.InCore)\ndef k(x: pl.Tile[[8, 8], pl.FP32, pl.Mem.Vec]):\n";
  CHECK(parse_error(bad_head + "    a, b = pl.tile.add(x, x)\n    return a\n", carry_rebinding())
            .message.find("returns one value, not a tuple") != std::string::npos);
  CHECK(parse_error(bad_head + "    a, b = x\n    return a\n", carry_rebinding())
            .message.find("can only be assigned from a call that returns a tuple") != std::string::npos);
  CHECK(parse_error(bad_head + "    a, b = pl.some.unknown(x)\n    return a\n", carry_rebinding())
            .message.find("cannot tell what") != std::string::npos);
  CHECK(parse_error(bad_head + "    a, b = pl.submit(x)\n    return a\n", carry_rebinding())
            .message.find("launches a function as a task") != std::string::npos);
}
