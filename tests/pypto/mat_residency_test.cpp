// InferTileMemorySpace phase 4, loop-invariant Mat residency
// (passes/mat_residency.hpp): what moves, and every legality rule that keeps
// a chain in its loop.
#include <string>
#include <vector>

#include <doctest/doctest.h>

#include "pass_support.hpp"

using namespace pto_mem;
using namespace pto_mem::pypto;

namespace {

/// A stationary-lhs kernel and its root orchestration caller; `edit` rewrites
/// the text (one legality rule broken at a time).
std::string program(const std::vector<std::pair<std::string, std::string>>& edits = {}) {
  std::string t =
      "@function(type=InCore)\n"
      "def main(lhs: Tensor[[16, 128], BF16],\n"
      "         rhs: Tensor[[128, 256], BF16],\n"
      "         out: Out[Tensor[[16, 256], FP32]]):\n"
      "    for n in range(0, 256, 128):\n"
      "        PRE\n"
      "        lhs_mat: Tile[[16, 128], BF16] = tile.load(lhs, [0, 0], [16, 128], target_memory=Mat, "
      "compiler_bridge=True)\n"
      "        rhs_mat: Tile[[128, 128], BF16] = tile.load(rhs, [0, n], [128, 128], target_memory=Mat, "
      "compiler_bridge=True)\n"
      "        c: Tile[[16, 128], FP32] = tile.matmul(lhs_mat, rhs_mat)\n"
      "        r: Tensor[[16, 256], FP32] = tile.store(c, [0, n], out)\n"
      "    return\n"
      "\n"
      "@function(type=Orchestration)\n"
      "def orch(rhs: Tensor[[128, 256], BF16],\n"
      "         out: Out[Tensor[[16, 256], FP32]]):\n"
      "    fresh: Tensor[[16, 128], BF16] = tensor.create([16, 128], dtype=BF16)\n"
      "    main(fresh, rhs, out)\n"
      "    return\n";
  for (const auto& [from, to] : edits) {
    const auto at = t.find(from);
    REQUIRE_MESSAGE(at != std::string::npos, from);
    t.replace(at, from.size(), to);
  }
  const std::string pre = "        PRE\n";
  if (const auto at = t.find(pre); at != std::string::npos) t.erase(at, pre.size());
  return t;
}

/// The names assigned at the top level of the kernel before its first loop.
std::vector<std::string> preheader(const Program& p) {
  std::vector<std::string> out;
  const auto* s = p.functions[0].body->as<SeqStmts>();
  REQUIRE(s);
  for (const auto& c : s->stmts) {
    if (c->is<ForStmt>()) break;
    if (const auto* a = c->as<AssignStmt>()) out.push_back(a->var->name);
  }
  return out;
}

std::size_t hints(const CompileResult& r) {
  std::size_t n = 0;
  for (const auto& d : r.diagnostics) n += d.code == "mat-residency";
  return n;
}

}  // namespace

TEST_CASE("residency: the exact stationary prefix moves before the loop, the streamed operand stays") {
  auto r = test::compile_ok(program(), Stage::infer);
  CHECK(preheader(r.program) == std::vector<std::string>{"lhs_mat", "lhs_mat_Left"});
  REQUIRE(hints(r) == 1);
  CHECK(test::with_code(r.diagnostics, "mat-residency")->severity == Severity::hint);
  // The loop kept the rest, in order.
  const auto* s = r.program.functions[0].body->as<SeqStmts>();
  const ForStmt* loop = nullptr;
  for (const auto& c : s->stmts)
    if (c->is<ForStmt>()) loop = c->as<ForStmt>();
  REQUIRE(loop);
  std::vector<std::string> body;
  for (const auto& c : loop->body->as<SeqStmts>()->stmts)
    if (const auto* a = c->as<AssignStmt>()) body.push_back(a->var->name);
  CHECK(body == std::vector<std::string>{"rhs_mat", "rhs_mat_Right", "c", "r"});
  // The whole pipeline still plans it, and the hoisted tiles are apart from the streamed ones.
  auto full = test::compile_ok(program(), Stage::alloc, Planner::dsa_rp);
  CHECK(test::memref(full.program, "lhs_mat")->base != test::memref(full.program, "rhs_mat")->base);
}

TEST_CASE("residency: a transpose_view in the prefix moves with it") {
  auto r = test::compile_ok(
      program({{"        c: Tile[[16, 128], FP32] = tile.matmul(lhs_mat, rhs_mat)\n",
                "        lt: Tile[[128, 16], BF16] = tile.transpose_view(lhs_mat)\n"
                "        lr: Tile[[128, 16], BF16, Right] = tile.move(lt, target_memory=Right)\n"
                "        rl: Tile[[128, 128], BF16, Left] = tile.move(rhs_mat, target_memory=Left)\n"
                "        c: Tile[[128, 16], FP32] = tile.matmul(rl, lr)\n"},
               {"tile.store(c, [0, n], out)", "tile.store(c, [0, 0], out)"}}),
      Stage::infer);
  CHECK(preheader(r.program) == std::vector<std::string>{"lhs_mat", "lt", "lr"});
}

TEST_CASE("residency: every legality rule keeps the chain in its loop") {
  struct Variant {
    const char* why;
    std::vector<std::pair<std::string, std::string>> edits;
  };
  const std::string load = "tile.load(lhs, [0, 0], [16, 128], target_memory=Mat, compiler_bridge=True)";
  const Variant variants[] = {
      {"a user-written load (no marker)", {{load, "tile.load(lhs, [0, 0], [16, 128], target_memory=Mat)"}}},
      {"a marker set to False",
       {{"Mat, compiler_bridge=True)\n        rhs", "Mat, compiler_bridge=False)\n        rhs"}}},
      {"loop-dependent offsets", {{"tile.load(lhs, [0, 0]", "tile.load(lhs, [0, n // 256]"}}},
      {"a parallel loop", {{"in range(0, 256, 128)", "in parallel(0, 256, 128)"}}},
      {"a zero-trip loop", {{"in range(0, 256, 128)", "in range(256, 0, 128)"}}},
      {"a runtime bound",
       {{"in range(0, 256, 128)", "in range(0, k, 128)"},
        {"out: Out[Tensor[[16, 256], FP32]]):\n    for",
         "out: Out[Tensor[[16, 256], FP32]],\n         k: Scalar[INDEX]):\n    for"},
        {"main(fresh, rhs, out)", "main(fresh, rhs, out, 256)"}}},
      {"an InOut source",
       {{"def main(lhs: Tensor[[16, 128], BF16]", "def main(lhs: InOut[Tensor[[16, 128], BF16]]"}}},
      {"no orchestration caller", {{"    main(fresh, rhs, out)\n", ""}}},
      {"a caller that is not root orchestration",
       {{"    main(fresh, rhs, out)\n    return\n",
         "    main(fresh, rhs, out)\n    return\n\n@function(type=Orchestration)\n"
         "def top(rhs: Tensor[[128, 256], BF16],\n        out: Out[Tensor[[16, 256], FP32]]):\n"
         "    orch(rhs, out)\n    return\n"}}},
      {"external storage (a parameter, not a tensor.create)",
       {{"def orch(rhs: Tensor[[128, 256], BF16],",
         "def orch(rhs: Tensor[[128, 256], BF16],\n         ext: Tensor[[16, 128], BF16],"},
        {"main(fresh, rhs, out)", "main(ext, rhs, out)"}}},
      {"a writable argument aliasing the source",
       {{"    main(fresh, rhs, out)\n",
         "    big: Tensor[[16, 256], FP32] = tensor.create([16, 256], dtype=FP32)\n"
         "    part: Tensor[[16, 128], BF16] = tensor.view(big, [16, 128], [0, 0])\n"
         "    main(part, rhs, big)\n"}}},
      {"a writable argument of unknown storage",
       {{"    main(fresh, rhs, out)\n",
         "    o2: Tensor[[16, 256], FP32] = tensor.copy(out)\n    main(fresh, rhs, o2)\n"}}},
      {"a synchronisation in the loop", {{"        PRE\n", "        system.sync_all()\n"}}},
      {"an effect statement before the load",
       {{"        PRE\n",
         "        z: Tile[[16, 128], FP32] = tile.full([16, 128], 0.0, dtype=FP32)\n"
         "        r0: Tensor[[16, 256], FP32] = tile.store(z, [0, n], out)\n"}}},
      {"a second use of the panel outside a matmul slot",
       {{"        c: Tile",
         "        lv: Tile[[16, 128], BF16, Vec] = tile.move(lhs_mat, target_memory=Vec)\n        c: Tile"}}},
      {"Mat over capacity for the whole function",
       {{"        PRE\n",
         "        big: Tile[[256, 1000], BF16] = tile.load(rhs, [0, 0], [256, 1000], target_memory=Mat)\n"}}},
  };
  for (const auto& v : variants) {
    CAPTURE(v.why);
    auto r = test::compile_text(program(v.edits), Stage::infer);
    INFO(test::dump(r.diagnostics));
    CHECK(preheader(r.program).empty());
    CHECK(hints(r) == 0);
  }
}

TEST_CASE("residency: a chain crosses one lexical loop per run; the panel load moves alone") {
  auto nested =
      test::compile_ok(program({{"    for n in range(0, 256, 128):\n",
                                 "    for m in range(0, 2):\n        for n in range(0, 256, 128):\n"},
                                {"        lhs_mat", "            lhs_mat"},
                                {"        rhs_mat", "            rhs_mat"},
                                {"        c:", "            c:"},
                                {"        r:", "            r:"}}),
                       Stage::infer);
  CHECK(preheader(nested.program).empty());  // not out of the outer loop in the same run
  CHECK(hints(nested) == 1);                 // into the inner loop's preheader only
  const auto* outer = nested.program.functions[0].body->as<SeqStmts>()->stmts.front()->as<ForStmt>();
  REQUIRE(outer);
  const auto* first = outer->body->as<SeqStmts>()->stmts.front()->as<AssignStmt>();
  REQUIRE(first);
  CHECK(first->var->name == "lhs_mat");
}

TEST_CASE("residency: the pass consumes the bridge marker, so a second run moves nothing further") {
  // PyPTO's test_retargeted_bridge_preserves_unrelated_attrs_and_strips_private_marker and
  // test_nested_chain_moves_one_lexical_level: the marker is provenance for one run only.
  const std::string nested =
      program({{"    for n in range(0, 256, 128):\n",
                "    for m in range(0, 2):\n        for n in range(0, 256, 128):\n"},
               {"        lhs_mat", "            lhs_mat"},
               {"        rhs_mat", "            rhs_mat"},
               {"        c:", "            c:"},
               {"        r:", "            r:"},
               {"target_memory=Mat, compiler_bridge=True)\n            rhs_mat",
                "target_memory=Mat, compiler_bridge=True, keep_me=7)\n            rhs_mat"}});
  auto once = test::compile_ok(nested, Stage::infer);
  const std::string printed = print(once.program);
  CHECK(printed.find("compiler_bridge") == std::string::npos);
  CHECK(printed.find("keep_me=7") != std::string::npos);  // other keyword arguments stay
  auto twice = test::compile_ok(printed, Stage::infer);
  CHECK(hints(twice) == 0);
  CHECK(preheader(twice.program).empty());  // lhs_mat did not bubble out of the outer loop
  CHECK(print(twice.program) == printed);
}
