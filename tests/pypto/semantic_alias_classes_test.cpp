// The semantic alias classes of MaterializeSemanticAliases
// (passes/semantic_alias_classes.hpp): relations joined by the generic
// must-alias unification and written back from each class's anchor.
#include <doctest/doctest.h>

#include <set>
#include <string>

#include "pass_support.hpp"
#include "pto_mem/pypto/passes/semantic_alias_classes.hpp"

using namespace pto_mem;
using namespace pto_mem::pypto;
using namespace pto_mem::pypto::passes;

namespace {

// t: [8, 16] FP32 (512 B). s1 = rows 1..2, cols 4..11 (80 B in); s2 slices s1
// at [1, 2] (+40 B: 120 B in t); rs reshapes s1 (s1's very window); s0 is
// t's first row.
const std::string views =
    test::kernel("x: Tensor[[8, 16], FP32], out: Out[Tensor[[1, 4], FP32]]",
                 "    t: Tile[[8, 16], FP32] = tile.load(x, [0, 0], [8, 16], target_memory=Vec)\n"
                 "    s0: Tile[[1, 16], FP32] = tile.slice(t, [1, 16], [0, 0])\n"
                 "    s1: Tile[[2, 8], FP32] = tile.slice(t, [2, 8], [1, 4])\n"
                 "    s2: Tile[[1, 4], FP32] = tile.slice(s1, [1, 4], [1, 2])\n"
                 "    rs: Tile[[4, 4], FP32] = tile.reshape(s1, [4, 4])\n"
                 "    r: Tensor[[1, 4], FP32] = tile.store(s2, [0, 0], out)\n"
                 "    return r\n");

struct Setup {
  CompileResult compiled;
  PassContext ctx;
  SocPolicy soc = soc_a2a3();
  explicit Setup(const std::string& text) : compiled(test::compile_ok(text, Stage::init)) {
    ctx.soc = &soc;
    ctx.ops = &default_registry();
  }
  Function& f() { return compiled.program.functions.front(); }
  VarPtr var(const std::string& name) { return test::var(compiled.program, name); }

  /// Writes the identity relations back with `placed`, which must be refused
  /// with one internal error; returns its message.
  std::string refused(const std::vector<Placed>& placed) {
    std::vector<ShareRelation> share;
    add_identity_relations(capture_identity_relations(f(), ctx), share);
    CHECK_FALSE(write_back_alias_classes(f(), compiled.program, ctx, "test", share, placed));
    REQUIRE(ctx.diagnostics.size() == 1);
    CHECK(ctx.diagnostics[0].code == "internal");
    return ctx.diagnostics[0].message;
  }
};

std::int64_t offset_of(const VarPtr& v) { return var_memref(v)->const_offset().value_or(-1); }

}  // namespace

TEST_CASE(
    "alias classes: a source placed elsewhere takes its views along, at offsets the unification composes") {
  Setup s(views);
  const auto relations = capture_identity_relations(s.f(), s.ctx);
  REQUIRE(relations.size() == 4);  // s0, s1, s2, rs
  const VarPtr t = s.var("t");
  const MemRefPtr old = var_memref(t);
  REQUIRE(offset_of(s.var("s1")) == 80);

  // Place t 1024 bytes up its own allocation.
  const std::vector<Placed> placed{{t, make_memref(old->base, int_imm(1024), old->size), std::nullopt}};
  std::vector<ShareRelation> share;
  add_identity_relations(relations, share);
  REQUIRE(write_back_alias_classes(s.f(), s.compiled.program, s.ctx, "test", share, placed));
  CHECK(s.ctx.diagnostics.empty());
  CHECK(var_base(t) == old->base.get());
  CHECK(offset_of(t) == 1024);
  CHECK(offset_of(s.var("s0")) == 1024);
  CHECK(var_memref(s.var("s0"))->size == 64);
  CHECK(offset_of(s.var("s1")) == 1024 + 80);
  CHECK(offset_of(s.var("s2")) == 1024 + 120);
  CHECK(var_memref(s.var("s2"))->size == 16);
  CHECK(var_memref(s.var("rs")) == var_memref(s.var("s1")));  // the very MemRef of the window it shares
  for (const char* v : {"s0", "s1", "s2", "rs"}) CHECK(var_space(s.var(v)) == MemorySpace::Vec);

  // Idempotent: writing the classes back again changes nothing.
  const MemRefPtr s2 = var_memref(s.var("s2"));
  REQUIRE(write_back_alias_classes(s.f(), s.compiled.program, s.ctx, "test", share));
  CHECK(var_memref(s.var("s2")) == s2);
  CHECK(offset_of(t) == 1024);
}

TEST_CASE("alias classes: a value placed against its relation is an internal error naming it") {
  Setup s(views);
  const VarPtr s1 = s.var("s1");
  const MemRefPtr t = var_memref(s.var("t"));
  // s1 is a view 80 bytes into t; placing it at t's start contradicts that.
  const std::string message =
      s.refused({{s1, make_memref(t->base, int_imm(0), var_memref(s1)->size), std::nullopt}});
  INFO(message);
  CHECK(message.find("s1") != std::string::npos);
  CHECK(message.find("80") != std::string::npos);
}

TEST_CASE(
    "alias classes: a value placed on another allocation than the source it follows is an internal error") {
  Setup s(views);
  // rs follows s1, on t's allocation, but is placed on another allocation.
  const VarPtr rs = s.var("rs");
  const VarPtr other = make_var("mem_other", ptr_type());
  const std::string message =
      s.refused({{rs, make_memref(other, int_imm(0), var_memref(rs)->size), std::nullopt}});
  INFO(message);
  CHECK(message.find("'rs'") != std::string::npos);
  CHECK(message.find("mem_other") != std::string::npos);
}

TEST_CASE("alias classes: a contradiction the unification finds names the values, not buffer numbers") {
  Setup s(views);
  std::vector<ShareRelation> share;
  add_identity_relations(capture_identity_relations(s.f(), s.ctx), share);
  // s1 sits 80 bytes into t; t also following s1 at its start cannot hold.
  share.push_back({s.var("t"), s.var("s1"), ShareRelation::Kind::view, int_imm(0)});
  CHECK_FALSE(write_back_alias_classes(s.f(), s.compiled.program, s.ctx, "test", share, {}));
  REQUIRE(s.ctx.diagnostics.size() == 1);
  const std::string message = s.ctx.diagnostics[0].message;
  INFO(message);
  CHECK(s.ctx.diagnostics[0].code == "internal");
  CHECK(message.find("placed at two different offsets") != std::string::npos);
  // Every quoted word is a value of the kernel, never a buffer's position.
  const std::set<std::string> values{"t", "s0", "s1", "s2", "rs"};
  std::size_t quoted = 0;
  for (std::size_t at = message.find('\''); at != std::string::npos; at = message.find('\'', at + 1)) {
    const std::size_t end = message.find('\'', at + 1);
    REQUIRE(end != std::string::npos);
    CHECK(values.contains(message.substr(at + 1, end - at - 1)));
    ++quoted;
    at = end;
  }
  CHECK(quoted >= 3);  // the value refused, then the two the unification names
}

TEST_CASE(
    "alias classes: a view at a run-time offset follows its source's window with its offset expression") {
  Setup s(test::kernel("x: Tensor[[8, 16], FP32], out: Out[Tensor[[1, 16], FP32]]",
                       "    t: Tile[[8, 16], FP32] = tile.load(x, [0, 0], [8, 16], target_memory=Vec)\n"
                       "    for i in range(8):\n"
                       "        row: Tile[[1, 16], FP32] = tile.slice(t, [1, 16], [i, 0])\n"
                       "        rr: Tile[[1, 16], FP32] = tile.reshape(row, [1, 16])\n"
                       "        e: Tensor[[1, 16], FP32] = tile.store(rr, [0, 0], out)\n"
                       "    return out\n"));
  const auto relations = capture_identity_relations(s.f(), s.ctx);
  const VarPtr t = s.var("t");
  const MemRefPtr old = var_memref(t);
  const std::vector<Placed> placed{{t, make_memref(old->base, int_imm(512), old->size), std::nullopt}};
  std::vector<ShareRelation> share;
  add_identity_relations(relations, share);
  REQUIRE(write_back_alias_classes(s.f(), s.compiled.program, s.ctx, "test", share, placed));
  const MemRefPtr row = var_memref(s.var("row"));
  CHECK(row->base == old->base);
  CHECK_FALSE(row->const_offset());  // 512 + i * 64
  CHECK(row->size == 64);
  CHECK(var_memref(s.var("rr")) == row);
}

TEST_CASE(
    "alias classes: loop carries follow their inits; the return var follows while it shares the carry") {
  Setup s(
      test::kernel("x: Tensor[[64, 64], FP32], o: Out[Tensor[[64, 64], FP32]]",
                   "    init: Tile[[64, 64], FP32, Vec] = tile.load(x, [0, 0], [64, 64], target_memory=Vec)\n"
                   "    for i, (acc,) in range(4, init_values=(init,)):\n"
                   "        nxt: Tile[[64, 64], FP32, Vec] = tile.add(acc, acc)\n"
                   "        out = yield_(nxt)\n"
                   "    r: Tensor[[64, 64], FP32] = tile.store(out, [0, 0], o)\n"
                   "    return r\n"));
  const VarPtr init = s.var("init"), acc = s.var("acc"), out = s.var("out");
  REQUIRE(var_base(acc) == var_base(init));
  REQUIRE(var_base(out) == var_base(acc));
  const MemRefPtr old = var_memref(init);
  const std::vector<Placed> placed{{init, make_memref(old->base, int_imm(256), old->size), std::nullopt}};
  std::vector<ShareRelation> share;
  add_carry_relations(s.f(), share);
  REQUIRE(share.size() == 2);
  REQUIRE(write_back_alias_classes(s.f(), s.compiled.program, s.ctx, "test", share, placed));
  CHECK(offset_of(init) == 256);
  CHECK(var_memref(acc) == var_memref(init));
  CHECK(var_memref(out) == var_memref(init));
  CHECK_FALSE(var_memref(s.var("nxt")) == var_memref(init));  // a producer keeps its own window
}
