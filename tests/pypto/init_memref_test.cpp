// InitMemRef: naming and ids, sharing rules, declared
// allocations, alloc statements, normalisation, every rejection, and the
// HasMemRefs verifier.
#include <algorithm>
#include <cstdint>

#include <doctest/doctest.h>

#include "pass_support.hpp"
#include "pto_mem/pypto/passes/init_memref.hpp"

using namespace pto_mem;
using namespace pto_mem::pypto;
using test::compile_ok;
using test::compile_text;
using test::memref;

namespace {

const std::string params =
    "x: Tensor[[64, 64], FP32],\n         c: Scalar[INDEX],\n         out: Out[Tensor[[64, 64], FP32]]";

std::string window(const MemRefPtr& m) {
  if (!m) return "none";
  return m->name() + "@" + print(m->byte_offset) + "+" + std::to_string(m->size);
}

std::vector<std::string> alloc_lines(const Function& f) {
  std::vector<std::string> out;
  for (const auto* a : test::allocs(f))
    out.push_back(a->var->name + " " + std::string(to_string(a->op)) + "(" +
                  std::string(to_string(a->space)) + ", " + std::to_string(a->size) +
                  (a->pinned ? ", pinned" : "") + ")");
  return out;
}

}  // namespace

TEST_CASE("ids: one counter per function, parameters first; loop return vars and phis consume one") {
  auto r = compile_ok(test::kernel(params,
                                   "    t = tile.load(x, [0, 0], [64, 64], target_memory=Vec)\n"
                                   "    for i, (acc,) in range(2, init_values=(t,)):\n"
                                   "        nxt = tile.add(acc, t)\n"
                                   "        res = yield_(nxt)\n"
                                   "    if c < 1:\n"
                                   "        a = tile.exp(res)\n"
                                   "        p = yield_(a)\n"
                                   "    else:\n"
                                   "        b = tile.neg(res)\n"
                                   "        p = yield_(b)\n"
                                   "    e = tile.exp(p)\n"
                                   "    r = tile.store(e, [0, 0], out)\n"
                                   "    return r\n"),
                      Stage::init);
  const Program& p = r.program;
  CHECK(window(memref(p, "x")) == "mem_ddr_0@0+16384");
  CHECK_FALSE(memref(p, "c"));  // scalars consume no id
  CHECK(window(memref(p, "out")) == "mem_ddr_1@0+16384");
  CHECK(window(memref(p, "t")) == "mem_vec_2@0+16384");
  CHECK(window(memref(p, "nxt")) == "mem_vec_3@0+16384");
  // id 4: the loop's return var, re-pointed to the carry
  CHECK(window(memref(p, "a")) == "mem_vec_5@0+16384");
  CHECK(window(memref(p, "b")) == "mem_vec_6@0+16384");
  // id 7: the phi, re-pointed to the then-value
  CHECK(window(memref(p, "e")) == "mem_vec_8@0+16384");
  // Pure aliases are the very same MemRef object.
  CHECK(memref(p, "acc") == memref(p, "t"));
  CHECK(memref(p, "res") == memref(p, "t"));
  CHECK(memref(p, "p") == memref(p, "a"));
  CHECK(memref(p, "r") == memref(p, "out"));
  CHECK(alloc_lines(p.functions[0]) ==
        std::vector<std::string>{"mem_vec_2 tile.alloc(Vec, 16384)", "mem_vec_3 tile.alloc(Vec, 16384)",
                                 "mem_vec_5 tile.alloc(Vec, 16384)", "mem_vec_6 tile.alloc(Vec, 16384)",
                                 "mem_vec_8 tile.alloc(Vec, 16384)"});
  // Alloc statements point at the tile that first uses them.
  CHECK(test::allocs(p.functions[0])[0]->loc.line == 5);
}

TEST_CASE("sharing: views, slices, in-place results, aliases; transpose and moves are fresh") {
  auto r = compile_ok(test::kernel("x: Tensor[[8, 16], FP32],\n         out: Out[Tensor[[8, 16], FP32]]",
                                   "    t = tile.load(x, [0, 0], [8, 16], target_memory=Vec)\n"
                                   "    s1 = tile.slice(t, [2, 8], [1, 4])\n"
                                   "    s2 = tile.slice(s1, [1, 4], [1, 2])\n"
                                   "    rs = tile.reshape(t, [16, 8])\n"
                                   "    rs1 = tile.reshape(s1, [4, 4])\n"
                                   "    al = t\n"
                                   "    tr = tile.transpose(t, 0, 1)\n"
                                   "    asm = tile.assemble(t, s1, [0, 0])\n"
                                   "    mv = tile.move(t, target_memory=Vec)\n"
                                   "    r = tile.store(t, [0, 0], out)\n"
                                   "    return r\n"),
                      Stage::init);
  const Program& p = r.program;
  CHECK(window(memref(p, "t")) == "mem_vec_2@0+512");
  // Slice of [8, 16] FP32 at [1, 4], shape [2, 8]: (16 + 4) * 4 = 80 bytes in,
  // envelope 1 + 1 * 16 + 7 = 24 elements = 96 bytes.
  CHECK(window(memref(p, "s1")) == "mem_vec_2@80+96");
  // A slice of the slice is relative to it: parent [2, 8] at [1, 2] -> +40, 4 elements.
  CHECK(window(memref(p, "s2")) == "mem_vec_2@120+16");
  CHECK(memref(p, "rs") == memref(p, "t"));
  CHECK(memref(p, "rs1") == memref(p, "s1"));
  CHECK(memref(p, "al") == memref(p, "t"));
  CHECK(memref(p, "asm") == memref(p, "t"));
  CHECK(window(memref(p, "tr")) == "mem_vec_3@0+512");
  CHECK(window(memref(p, "mv")) == "mem_vec_4@0+512");
  CHECK(memref(p, "r") == memref(p, "out"));
  CHECK(alloc_lines(p.functions[0]).size() == 3);
}

TEST_CASE("sharing: an in-place accumulator, Acc row padding, and a slice of an Acc root") {
  auto r = compile_ok(test::kernel("a: Tensor[[32, 32], INT8],\n         b: Tensor[[32, 128], INT8]",
                                   "    am = tile.load(a, [0, 0], [32, 32], target_memory=Mat)\n"
                                   "    bm = tile.load(b, [0, 0], [32, 128], target_memory=Mat)\n"
                                   "    acc = tile.matmul(am, bm)\n"
                                   "    acc2 = tile.matmul_acc(acc, am, bm)\n"
                                   "    low = tile.slice(acc2, [16, 128], [16, 0])\n"
                                   "    return\n"),
                      Stage::init);
  const Program& p = r.program;
  CHECK(window(memref(p, "acc")) == "mem_acc_6@0+16384");
  CHECK(memref(p, "acc2") == memref(p, "acc"));
  CHECK(window(memref(p, "low")) == "mem_acc_6@8192+8192");  // not re-padded
  CHECK(test::space(p, "low") == MemorySpace::Acc);
  // On a5 an INT32 accumulator pads M to 16 rows, not 32: [16, 128] is 8192 bytes (16384 on a2a3).
  auto r5 = compile_ok(test::kernel("a: Tensor[[16, 32], INT8],\n         b: Tensor[[32, 128], INT8]",
                                    "    am = tile.load(a, [0, 0], [16, 32], target_memory=Mat)\n"
                                    "    bm = tile.load(b, [0, 0], [32, 128], target_memory=Mat)\n"
                                    "    acc = tile.matmul(am, bm)\n"
                                    "    return\n"),
                       Stage::init, Planner::pypto, soc_a5());
  CHECK(memref(r5.program, "acc")->size == 8192);
}

TEST_CASE("loops: init, iter-arg and return var share one MemRef, for tiles and tensors") {
  auto r = compile_ok(test::kernel(params,
                                   "    t = tile.load(x, [0, 0], [64, 64], target_memory=Vec)\n"
                                   "    for i, (acc, o) in range(2, init_values=(t, out)):\n"
                                   "        nxt = tile.add(acc, acc)\n"
                                   "        o2 = tile.store(nxt, [0, 0], o)\n"
                                   "        res, ro = yield_(nxt, o2)\n"
                                   "    return ro\n"),
                      Stage::init);
  const Program& p = r.program;
  CHECK(memref(p, "acc") == memref(p, "t"));
  CHECK(memref(p, "res") == memref(p, "t"));
  CHECK(memref(p, "nxt") != memref(p, "t"));  // the yield keeps its own: aliases reconciles it
  CHECK(memref(p, "o") == memref(p, "out"));
  CHECK(memref(p, "o2") == memref(p, "out"));
  // A tensor carry too (it aligns with its initializer's storage): after zero trips ro is out itself.
  CHECK(memref(p, "ro") == memref(p, "out"));
  CHECK(test::space(p, "res") == MemorySpace::Vec);
}

TEST_CASE("phis: the then-value's MemRef, or the else-value's when the then-value is an iter-arg") {
  auto r = compile_ok(test::kernel(params,
                                   "    t = tile.load(x, [0, 0], [64, 64], target_memory=Vec)\n"
                                   "    for i, (acc,) in range(2, init_values=(t,)):\n"
                                   "        if c < 1:\n"
                                   "            p = yield_(acc)\n"
                                   "        else:\n"
                                   "            e = tile.exp(acc)\n"
                                   "            p = yield_(e)\n"
                                   "        res = yield_(p)\n"
                                   "    return\n"),
                      Stage::init);
  CHECK(memref(r.program, "p") == memref(r.program, "e"));
}

TEST_CASE(
    "declared allocations: uniform slots, runtime slot offsets, pinned allocs named after the declaration") {
  auto r = compile_ok(
      test::kernel(
          params,
          "    p0: Tile[[64, 64], FP32, MemRef(\"ping\", slots=2)[0], Vec] = tile.load(x, [0, 0], [64, 64], "
          "target_memory=Vec)\n"
          "    for i in range(4):\n"
          "        q: Tile[[32, 64], FP32, MemRef(\"ping\", slots=2)[i % 2], Vec] = tile.load(x, [0, 0], "
          "[32, 64], target_memory=Vec)\n"
          "    one: Tile[[16, 16], FP32, MemRef(\"solo\"), Vec] = tile.load(x, [0, 0], [16, 16], "
          "target_memory=Vec)\n"
          "    free = tile.exp(one)\n"
          "    return\n"),
      Stage::init);
  const Program& p = r.program;
  CHECK(window(memref(p, "p0")) == "ping@0+16384");
  CHECK(window(memref(p, "q")) == "ping@i % 2 * 16384+16384");
  CHECK(window(memref(p, "one")) == "solo@0+1024");
  for (const char* v : {"p0", "q", "one"}) {
    CAPTURE(v);
    CHECK_FALSE(memref(p, v)->is_pinned);  // cleared once resolved
  }
  CHECK(memref(p, "p0")->slot_count == 2);
  CHECK(print(memref(p, "q")->slot_index) == "i % 2");
  CHECK(as_const_int(memref(p, "p0")->slot_index) == 0);
  CHECK(memref(p, "one")->slot_count == 1);
  CHECK_FALSE(memref(p, "one")->slot_index);
  CHECK(alloc_lines(p.functions[0]) == std::vector<std::string>{"ping tile.alloc(Vec, 32768, pinned)",
                                                                "solo tile.alloc(Vec, 1024, pinned)",
                                                                "mem_vec_2 tile.alloc(Vec, 1024)"});
  // The printed program re-parses (declaration bases print as alloc-defined names).
  test::parse_ok(print(p));
}

TEST_CASE("PTOAS rejects single-slot declarations, not multi-slot ones") {
  const std::string solo = test::kernel(params,
                                        "    one: Tile[[16, 16], FP32, MemRef(\"solo\"), Vec] = tile.load(x, "
                                        "[0, 0], [16, 16], target_memory=Vec)\n"
                                        "    return\n");
  auto r = compile_text(solo, Stage::init, Planner::ptoas);
  REQUIRE_FALSE(r.ok());
  const Diagnostic* d = test::with_code(r.diagnostics, "ptoas-single-slot");
  REQUIRE(d);
  CHECK(d->message.find("A single-slot declared allocation (pl.MemRef(\"solo\")) is not supported under "
                        "memory_planner=PTOAS") == 0);
  REQUIRE(d->location);
  CHECK(d->location->line == 5);
  compile_ok(solo, Stage::init, Planner::pypto);
  compile_ok(
      test::kernel(params,
                   "    two: Tile[[16, 16], FP32, MemRef(\"pp\", slots=2)[1], Vec] = tile.load(x, [0, 0], "
                   "[16, 16], target_memory=Vec)\n"
                   "    return\n"),
      Stage::init, Planner::ptoas);
}

TEST_CASE("rejections carry a code, the variable's line:column, and say what to change") {
  struct Case {
    const char* what;
    std::string params;
    std::string body;
    const char* code;
    const char* message;
    std::uint32_t line, column;
  };
  const std::string p1 = "x: Tensor[[64, 64], FP32],\n         n: Scalar[INDEX]";
  const Case cases[] = {
      {"a declared binding on a view", p1,
       "    t = tile.load(x, [0, 0], [64, 64], target_memory=Vec)\n"
       "    v: Tile[[4096, 1], FP32, MemRef(\"d\"), Vec] = tile.reshape(t, [4096, 1])\n"
       "    return\n",
       "declared-binding-on-view",
       "Tile 'v' is produced by 'tile.reshape', which lands in its source tile's allocation, so it cannot be "
       "given "
       "one of its own. Bind the source tile instead.",
       5, 5},
      {"a declared binding on an in-place result", "a: Tensor[[16, 16], BF16]",
       "    am = tile.load(a, [0, 0], [16, 16], target_memory=Mat)\n"
       "    z = tile.matmul(am, am)\n"
       "    z2: Tile[[16, 16], FP32, MemRef(\"acc\"), Acc] = tile.matmul_acc(z, am, am)\n"
       "    return\n",
       "declared-binding-on-view", "Tile 'z2' is produced by 'tile.matmul_acc', which lands in its source", 5,
       5},
      {"one declaration in two spaces", p1,
       "    v: Tile[[64, 64], FP32, MemRef(\"s\"), Vec] = tile.load(x, [0, 0], [64, 64], target_memory=Vec)\n"
       "    m: Tile[[64, 64], FP32, MemRef(\"s\"), Mat] = tile.load(x, [0, 0], [64, 64], target_memory=Mat)\n"
       "    return\n",
       "declared-mixed-space",
       "Tiles bound to the declared allocation 's' must all live in the same memory space, but 'm' is Mat "
       "while "
       "the allocation is already Vec",
       5, 5},
      {"disagreeing slot counts", p1,
       "    a: Tile[[64, 64], FP32, MemRef(\"b\", slots=4)[0], Vec] = tile.load(x, [0, 0], [64, 64], "
       "target_memory=Vec)\n"
       "    c: Tile[[64, 64], FP32, MemRef(\"b\", slots=2)[1], Vec] = tile.load(x, [0, 0], [64, 64], "
       "target_memory=Vec)\n"
       "    return\n",
       "declared-slot-count",
       "References to the declared allocation 'b' disagree on how many slots it has (4 vs 2)", 5, 5},
      {"a declared tile of dynamic shape", p1,
       "    t: Tile[[16, n], FP32, MemRef(\"d\"), Vec] = tile.load(x, [0, 0], [16, n], target_memory=Vec)\n"
       "    return\n",
       "declared-dynamic-shape",
       "Tile 't' is bound to the declared allocation 'd' but has a dynamic shape; a declared allocation must "
       "be "
       "sized at compile time",
       4, 5},
      {"a dynamic tile shape", p1,
       "    t: Tile[[16, n], FP32, Vec] = tile.load(x, [0, 0], [16, n], target_memory=Vec)\n"
       "    return\n",
       "dynamic-shape", "InitMemRef requires static shape for variable 't', but shape element 1 is dynamic",
       4, 5},
      {"a non-positive dim", p1,
       "    t: Tile[[0, 16], FP32, Vec] = tile.create([0, 16], dtype=FP32, target_memory=Vec)\n"
       "    return\n",
       "non-positive-shape", "InitMemRef requires positive shape for variable 't', but shape element 0 is 0",
       4, 5},
      {"a size beyond 64 bits", p1,
       "    t: Tile[[4294967296, 4294967296], FP32, Vec] = tile.create([4294967296, 4294967296], dtype=FP32, "
       "target_memory=Vec)\n"
       "    return\n",
       "size-overflow", "InitMemRef cannot represent the physical allocation size of variable 't'", 4, 5},
      {"an Acc tile of rank 1", p1,
       "    t: Tile[[64], FP32, Acc] = tile.create([64], dtype=FP32, target_memory=Acc)\n"
       "    return\n",
       "acc-rank", "InitMemRef cannot size variable 't': an Acc tile needs rank >= 2", 4, 5},
      {"an odd 4-bit slice origin", "x: Tensor[[8, 16], FP4]",
       "    t = tile.load(x, [0, 0], [8, 16], target_memory=Vec)\n"
       "    s = tile.slice(t, [1, 4], [0, 1])\n"
       "    return\n",
       "packed-slice-origin", "Packed 4-bit slice origins must be byte-aligned", 4, 5},
      {"a runtime 4-bit slice origin", "x: Tensor[[8, 16], FP4],\n         n: Scalar[INDEX]",
       "    t = tile.load(x, [0, 0], [8, 16], target_memory=Vec)\n"
       "    s = tile.slice(t, [1, 4], [n, 0])\n"
       "    return\n",
       "packed-slice-origin", "Packed 4-bit slice origins must be compile-time constants", 5, 5},
  };
  for (const auto& c : cases) {
    CAPTURE(c.what);
    auto r = compile_text(test::kernel(c.params, c.body), Stage::init);
    REQUIRE_FALSE(r.ok());
    CHECK(r.exit_code() == 2);
    INFO(test::dump(r.diagnostics));
    const Diagnostic* d = test::with_code(r.diagnostics, c.code);
    REQUIRE(d);
    CHECK(d->message.find(c.message) == 0);
    REQUIRE(d->location);
    CHECK(d->location->file == "test.pto");
    CHECK(d->location->line == c.line);
    CHECK(d->location->column == c.column);
    CHECK(r.ran.back() == Stage::infer);  // InitMemRef did not complete
  }
}

TEST_CASE("a tile with no space (a non-kernel function) lives in DDR and gets tensor.alloc") {
  auto r = compile_ok(
      "@function(type=Opaque)\n"
      "def helper(x: Tensor[[64, 64], FP32], n: Scalar[INDEX], y: Tensor[[n, 64], FP32]):\n"
      "    t = tile.load(x, [0, 0], [64, 64])\n"
      "    return\n",
      Stage::init);
  CHECK(window(memref(r.program, "t")) == "mem_ddr_2@0+16384");
  CHECK(window(memref(r.program, "y")) == "mem_ddr_1@0+0");  // a dynamic tensor is not sized
  CHECK(alloc_lines(r.program.functions[0]) ==
        std::vector<std::string>{"mem_ddr_2 tensor.alloc(DDR, 16384)"});
  test::parse_ok(print(r.program));
}

TEST_CASE("cross-core receives have no MemRef, nor do views of them; the verifier accepts that") {
  auto r = compile_ok(
      "@function(type=AIV)\n"
      "def k(o: Out[Tensor[[16, 64], FP32]]):\n"
      "    t: Tile[[16, 64], FP32, Vec] = tile.tpop_from_aic(split=0)\n"
      "    v = tile.reshape(t, [64, 16])\n"
      "    a = t\n"
      "    e = tile.exp(t)\n"
      "    r = tile.store(e, [0, 0], o)\n"
      "    return r\n",
      Stage::init);
  CHECK_FALSE(memref(r.program, "t"));
  CHECK_FALSE(memref(r.program, "v"));
  CHECK_FALSE(memref(r.program, "a"));
  CHECK(window(memref(r.program, "e")) == "mem_vec_1@0+4096");
}

TEST_CASE("structure is normalised: nested sequences flattened, one-statement sequences unwrapped") {
  FunctionBuilder fb("k");
  auto x = fb.param("x", tensor_type({64, 64}, DataType::FP32));
  fb.ret({});
  Function f = fb.build();
  auto t = make_var("t", tile_type({64, 64}, DataType::FP32, MemorySpace::Vec));
  auto u = make_var("u", tile_type({64, 64}, DataType::FP32, MemorySpace::Vec));
  auto load = assign(t, call("tile.load", {var_ref(x), int_list({0, 0}), int_list({64, 64})},
                             {Kwarg{"target_memory", space_imm(MemorySpace::Vec)}}));
  auto i = make_var("i", scalar_type(DataType::INDEX));
  auto loop = std::make_shared<const ForStmt>(i, int_imm(0), int_imm(2), int_imm(1), std::vector<IterArg>{},
                                              seq({seq({assign(u, call("tile.exp", {var_ref(t)}))})}),
                                              std::vector<VarPtr>{});
  f.body = seq({seq({load}), seq({loop, seq({ret({})})})});
  Program p;
  p.functions.push_back(f);
  CompileOptions o;
  o.until = Stage::init;
  auto r = compile(p, o);
  INFO(test::dump(r.diagnostics));
  REQUIRE(r.ok());
  const auto* body = r.program.functions[0].body->as<SeqStmts>();
  REQUIRE(body);
  REQUIRE(body->stmts.size() == 5);  // 2 allocs, load, loop, return
  CHECK(body->stmts[2]->is<AssignStmt>());
  const auto* l = body->stmts[3]->as<ForStmt>();
  REQUIRE(l);
  CHECK(l->body->is<AssignStmt>());  // a sequence of one statement is that statement
  CHECK(body->stmts[4]->is<ReturnStmt>());
}

TEST_CASE("re-planning a printed dump: old alloc statements are dropped and made again") {
  const std::string text = test::kernel(params,
                                        "    t = tile.load(x, [0, 0], [64, 64], target_memory=Vec)\n"
                                        "    e = tile.exp(t)\n"
                                        "    return\n");
  auto once = compile_ok(text, Stage::init);
  auto twice = compile_ok(print(once.program), Stage::init);
  CHECK(print(twice.program) == print(once.program));
  CHECK(alloc_lines(twice.program.functions[0]).size() == 2);
}

namespace {

/// The statement that assigns `name`, or null.
const AssignStmt* assignment(const Program& p, const std::string& name) {
  const AssignStmt* out = nullptr;
  for (const auto& f : p.functions)
    for_each_statement(f.body, [&](const Stmt& s) {
      if (const auto* a = s.as<AssignStmt>(); a && a->var->name == name) out = a;
    });
  return out;
}

std::size_t count_op(const Program& p, const std::string& op) {
  std::size_t n = 0;
  for (const auto& f : p.functions)
    for_each_statement(f.body, [&](const Stmt& s) {
      const auto* a = s.as<AssignStmt>();
      const Call* c = a && a->value ? a->value->as<Call>() : nullptr;
      n += c && c->op == op;
    });
  return n;
}

/// The scratch `<lhs>_scratch` of `lhs`: created in Vec right before the call,
/// passed as its operand `index`, in a buffer apart from the call's result.
void check_scratch(const Program& p, const std::string& lhs, std::size_t index, Addr bytes) {
  const AssignStmt* create = assignment(p, lhs + "_scratch");
  REQUIRE(create);
  const Call* cc = create->value->as<Call>();
  REQUIRE(cc);
  CHECK(cc->op == "tile.create");
  CHECK(test::space(p, lhs + "_scratch") == MemorySpace::Vec);
  const MemRefPtr m = memref(p, lhs + "_scratch");
  REQUIRE(m);
  CHECK(m->size == bytes);
  CHECK(m->base != memref(p, lhs)->base);
  const AssignStmt* use = assignment(p, lhs);
  REQUIRE(use);
  const Call* c = use->value->as<Call>();
  REQUIRE(c);
  REQUIRE(c->args.size() == index + 1);
  CHECK(as_var(c->args[index]) == create->var);
}

}  // namespace

TEST_CASE("level-3 scratch: tile.sort32 gets a Vec tmp on a2a3 and a5, not without a SoC nor under PTOAS") {
  const std::string text = test::kernel(params,
                                        "    t = tile.load(x, [0, 0], [64, 64], target_memory=Vec)\n"
                                        "    i = tile.load(x, [0, 0], [64, 64], target_memory=Vec)\n"
                                        "    s: Tile[[64, 128], FP32, Vec] = tile.sort32(t, i)\n"
                                        "    return\n");
  for (const SocPolicy& soc : {soc_a2a3(), soc_a5()}) {
    CAPTURE(soc.soc_name);
    auto r = compile_ok(text, Stage::init, Planner::pypto, soc);
    check_scratch(r.program, "s", 2, 16384);  // a tile like the source: [64, 64] FP32
    CHECK_FALSE(test::with_code(r.diagnostics, "scratch-not-materialised"));
    CHECK(test::allocs(r.program.functions[0]).size() == 4);
    // Re-planning the printed result adds no second scratch: the call has its operand.
    auto again = compile_ok(print(r.program), Stage::init, Planner::pypto, soc);
    CHECK(count_op(again.program, "tile.create") == 1);
    // DSA_RP inserts it too, and places it apart from the result.
    auto d = compile_ok(text, Stage::alloc, Planner::dsa_rp, soc);
    check_scratch(d.program, "s", 2, 16384);
  }
  CHECK(count_op(compile_ok(text, Stage::init, Planner::pypto, soc_none()).program, "tile.create") == 0);
  CHECK(count_op(compile_ok(text, Stage::init, Planner::ptoas).program, "tile.create") == 0);
}

TEST_CASE("level-3 scratch: tile.ci and only a narrowing tile.cast with saturation_mode=0, on a2a3 only") {
  const std::string text =
      test::kernel("x: Tensor[[64, 64], FP32],\n         h: Tensor[[64, 64], FP16]",
                   "    t = tile.load(x, [0, 0], [64, 64], target_memory=Vec)\n"
                   "    f = tile.load(h, [0, 0], [64, 64], target_memory=Vec)\n"
                   "    ci: Tile[[16, 32], INT32, Vec] = tile.ci(0, [16, 32], dtype=INT32)\n"
                   "    narrow = tile.cast(t, target_type=FP16, saturation_mode=0)\n"
                   "    widen = tile.cast(f, target_type=FP32, saturation_mode=0)\n"
                   "    plain = tile.cast(t, target_type=FP16)\n"
                   "    sat = tile.cast(t, target_type=FP16, saturation_mode=1)\n"
                   "    same = tile.cast(t, target_type=INT32, saturation_mode=0)\n"
                   "    return\n");
  auto r = compile_ok(text, Stage::init);
  check_scratch(r.program, "ci", 2, 2048);       // like the result: [16, 32] INT32
  check_scratch(r.program, "narrow", 1, 16384);  // like the input: [64, 64] FP32
  for (const char* none : {"widen", "plain", "sat", "same"}) {
    CAPTURE(none);
    CHECK(test::vars_named(r.program, std::string(none) + "_scratch").empty());
  }
  CHECK(count_op(r.program, "tile.create") == 2);
  CHECK(count_op(compile_ok(text, Stage::init, Planner::pypto, soc_a5()).program, "tile.create") == 0);
  // The scratch is an ordinary buffer: after MemoryReuse the cast's result still is not on it.
  auto reused = compile_ok(text, Stage::reuse);
  CHECK(memref(reused.program, "narrow")->base != memref(reused.program, "narrow_scratch")->base);
  CHECK(memref(reused.program, "ci")->base != memref(reused.program, "ci_scratch")->base);
}

namespace {

/// Byte address of element (r, c) of an R-row, 4-byte NZ accumulator: 16 x 16
/// boxes of 1024 bytes, boxes column by column, row-major inside a box. An
/// independent model of the layout, not the pass's formula.
std::uint64_t nz_byte(std::uint64_t rows, std::uint64_t r, std::uint64_t c) {
  const std::uint64_t box = (c / 16) * (rows / 16) + r / 16;
  return 4 * (box * 256 + (r % 16) * 16 + c % 16);
}

}  // namespace

TEST_CASE("accumulator NZ slices: accepted windows are exactly the bytes they touch; others are row-major") {
  std::uint64_t seed = 12345;
  auto next = [&seed](std::uint64_t n) {
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    return (seed >> 33) % n;
  };
  const SocPolicy socs[] = {soc_a2a3(), soc_a5()};
  int accepted = 0, rejected = 0;
  for (int iter = 0; iter < 400; ++iter) {
    const SocPolicy& soc = socs[next(2)];
    const DataType dt = next(4) == 0 ? DataType::INT32 : (next(6) == 0 ? DataType::FP16 : DataType::FP32);
    const std::int64_t rows = next(5) == 0 ? 8 * static_cast<std::int64_t>(1 + next(6)) : 16 * (1 + next(3));
    const std::int64_t cols = next(5) == 0 ? 8 * static_cast<std::int64_t>(1 + next(16)) : 16 * (1 + next(8));
    const std::int64_t r0 = next(4) == 0 ? static_cast<std::int64_t>(next(rows)) : 0;
    const std::int64_t nr = next(4) == 0 ? 1 + static_cast<std::int64_t>(next(rows - r0)) : rows - r0;
    const std::int64_t c0 = next(2) == 0 ? 16 * static_cast<std::int64_t>(next(cols / 16 + 1)) : next(cols);
    if (c0 >= cols) continue;
    const std::int64_t nc =
        next(3) == 0
            ? 1 + static_cast<std::int64_t>(next(cols - c0))
            : 16 * (1 + static_cast<std::int64_t>(next(std::max<std::int64_t>(1, (cols - c0) / 16))));
    if (c0 + nc > cols) continue;
    const TypePtr t = tile_type({rows, cols}, dt, MemorySpace::Acc);
    const std::vector<ExprPtr> off = {int_imm(r0), int_imm(c0)}, shape = {int_imm(nr), int_imm(nc)};
    CAPTURE(rows);
    CAPTURE(cols);
    CAPTURE(r0);
    CAPTURE(nr);
    CAPTURE(c0);
    CAPTURE(nc);
    CAPTURE(soc.soc_name);
    auto nz = acc_nz_slice_window(*as_tile(t), off, shape, soc);
    if (!nz) {
      ++rejected;
      continue;
    }
    ++accepted;
    // The seed's predicate, restated: 4-byte, box-aligned, unpadded rows, all rows, panel edges.
    CHECK(storage_bits(dt) == 32);
    CHECK(rows % 16 == 0);
    CHECK(cols % 16 == 0);
    CHECK(rows % static_cast<std::int64_t>(soc.acc_m_alignment(dt)) == 0);
    CHECK(r0 == 0);
    CHECK(nr == rows);
    CHECK(c0 % 16 == 0);
    std::uint64_t lo = ~0ull, hi = 0, n = 0;
    for (std::int64_t r = r0; r < r0 + nr; ++r)
      for (std::int64_t c = c0; c < c0 + nc; ++c) {
        const auto b = nz_byte(static_cast<std::uint64_t>(rows), static_cast<std::uint64_t>(r),
                               static_cast<std::uint64_t>(c));
        lo = std::min(lo, b), hi = std::max(hi, b + 4), ++n;
      }
    REQUIRE(as_const_int(nz->byte_offset));
    CHECK(static_cast<std::uint64_t>(*as_const_int(nz->byte_offset)) == lo);
    CHECK(*nz->span == hi - lo);  // the envelope ...
    CHECK(*nz->span == 4 * n);    // ... and dense: every byte in it is touched
  }
  CHECK(accepted > 25);  // the generator reaches both sides of the predicate
  CHECK(rejected > 25);
}

TEST_CASE("accumulator NZ slices through InitMemRef: pages, a runtime page, and the row-major fallback") {
  const std::string text = test::kernel("c: Scalar[INDEX]",
                                        "    acc = tile.create([16, 128], dtype=FP32, target_memory=Acc)\n"
                                        "    p1 = tile.slice(acc, [16, 32], [0, 32])\n"
                                        "    pc = tile.slice(acc, [16, 32], [0, c])\n"
                                        "    q = tile.reshape(p1, [32, 16])\n"
                                        "    rows = tile.slice(acc, [8, 32], [0, 32])\n"
                                        "    v = tile.create([16, 128], dtype=FP32, target_memory=Vec)\n"
                                        "    vp = tile.slice(v, [16, 32], [0, 32])\n"
                                        "    return\n");
  auto r = compile_ok(text, Stage::init);
  const Program& p = r.program;
  CHECK(window(memref(p, "p1")) == "mem_acc_0@2048+2048");
  CHECK(window(memref(p, "pc")) == "mem_acc_0@c * 64+2048");
  CHECK(memref(p, "q") == memref(p, "p1"));
  // Rejected windows: exactly what slice_window's row-major arithmetic gives.
  for (const char* name : {"rows", "vp"}) {
    CAPTURE(name);
    const auto* parent = as_tile(test::var(p, name == std::string("rows") ? "acc" : "v")->type);
    const Call* c = assignment(p, name)->value->as<Call>();
    auto w = slice_window(parent->shape, parent->dtype, *as_sequence(c->args[2]), *as_sequence(c->args[1]));
    REQUIRE(w);
    CHECK(print(memref(p, name)->byte_offset) == print(w->byte_offset));
    CHECK(memref(p, name)->size == *w->span);
  }
  CHECK(window(memref(p, "rows")) == "mem_acc_0@128+3712");
}

TEST_CASE("the HasMemRefs verifier names a tile left without a MemRef") {
  FunctionBuilder fb("k");
  auto x = fb.param("x", tensor_type({64, 64}, DataType::FP32));
  fb.let("t", tile_type({64, 64}, DataType::FP32, MemorySpace::Vec), op("tile.exp", {x}));
  fb.ret({});
  Program p;
  p.file = "built.pto";
  p.functions.push_back(fb.build());
  PassContext ctx;
  const SocPolicy soc = soc_a2a3();
  ctx.soc = &soc;
  ctx.ops = &default_registry();
  CHECK_FALSE(verify_has_memrefs(p, ctx));
  REQUIRE(ctx.diagnostics.size() == 1);
  CHECK(ctx.diagnostics[0].code == "missing-memref");
  CHECK(ctx.diagnostics[0].message == "Tile 't' in function 'k' has no MemRef after InitMemRef");
  ctx.diagnostics.clear();
  Program q = init_memref(p, ctx);
  CHECK(verify_has_memrefs(q, ctx));
  CHECK(ctx.diagnostics.empty());
}
