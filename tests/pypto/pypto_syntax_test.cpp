// Reading PyPTO's own programs (what its printer writes and its DSL tests
// are written in) and printing them back in PyPTO's spelling.
#include <doctest/doctest.h>
#include <algorithm>

#include <string>
#include <vector>

#include "pto_mem/pypto/passes/pipeline.hpp"
#include "pypto_support.hpp"

using namespace pto_mem;
using namespace pto_mem::pypto;
using pto_mem::test::parse_error;
using pto_mem::test::parse_ok;

namespace {

std::vector<StmtPtr> stmts_of(const Program& p, std::size_t fn = 0) {
  return flatten(p.functions.at(fn).body);
}

const AssignStmt* assign_at(const std::vector<StmtPtr>& s, std::size_t i) {
  REQUIRE(i < s.size());
  const auto* a = s[i]->as<AssignStmt>();
  REQUIRE(a);
  return a;
}

const Call* call_at(const std::vector<StmtPtr>& s, std::size_t i) {
  const auto* c = assign_at(s, i)->value->as<Call>();
  REQUIRE(c);
  return c;
}

ParseOptions rebinding() {
  ParseOptions o;
  o.allow_rebinding = true;
  return o;
}

// A kernel and its orchestration function, written as PyPTO's tests write them.
const char* const two_functions =
    "@pl.program\n"
    "class Prog:\n"
    "    @pl.function(type=pl.FunctionType.InCore)\n"
    "    def kern(\n"
    "        self,\n"
    "        a: pl.Tensor[[32, 64], pl.FP32],\n"
    "        dst: pl.Out[pl.Tensor[[32, 64], pl.FP32]],\n"
    "    ) -> pl.Tensor[[32, 64], pl.FP32]:\n"
    "        \"\"\"Doubles a.\n"
    "\n"
    "        Written over two lines.\"\"\"\n"
    "        t: pl.Tile[[32, 64], pl.FP32] = pl.load(a, [0, 0], [32, 64])\n"
    "        t2: pl.Tile[[32, 64], pl.FP32] = pl.add(t, t)\n"
    "        dst: pl.Tensor[[32, 64], pl.FP32] = pl.store(t2, [0, 0], dst)\n"
    "        return dst\n"
    "\n"
    "    @pl.function\n"
    "    def main(self, a: pl.Tensor[[32, 64], pl.FP32]) -> pl.Tensor[[32, 64], pl.FP32]:\n"
    "        buf = pl.create_tensor([32, 64], dtype=pl.FP32)\n"
    "        r: pl.Tensor[[32, 64], pl.FP32] = self.kern(a, buf)\n"
    "        return r\n";

}  // namespace

TEST_CASE("pypto syntax: @pl.function without type= is Opaque, @function without it InCore") {
  const Program p = parse_ok(two_functions, "t.pto", rebinding());
  CHECK(p.functions.at(0).kind == FunctionKind::InCore);
  CHECK(p.functions.at(1).kind == FunctionKind::Opaque);
  const Program q = parse_ok("@function\ndef k(x: Scalar[INDEX]):\n    return x\n");
  CHECK(q.functions.at(0).kind == FunctionKind::InCore);
  const Program r =
      parse_ok("@pl.function(type=pl.FunctionType.AIV)\ndef k(x: pl.Scalar[pl.INDEX]):\n    return x\n");
  CHECK(r.functions.at(0).kind == FunctionKind::AIV);
}

TEST_CASE("pypto syntax: re-binding is SSA renaming, the name is kept") {
  const Program p = parse_ok(two_functions, "t.pto", rebinding());
  const Function& k = p.functions.at(0);
  const auto s = stmts_of(p);
  const AssignStmt* store = assign_at(s, 2);
  CHECK(store->var->name == "dst");
  CHECK(store->var != k.params.at(1).var);                                    // a new value ...
  CHECK(as_var(store->value->as<Call>()->args.at(2)) == k.params.at(1).var);  // ... made from the parameter
  CHECK(as_var(s.at(3)->as<ReturnStmt>()->values.at(0)) == store->var);
  // Printed, the second `dst` takes a suffix so that the text is SSA without re-binding.
  const Program again = parse_ok(print(p));
  CHECK(print(again) == print(p));
  // The tool turns re-binding on; the library's default keeps the strict rule.
  CHECK(std::string(parse_error(two_functions).message).find("already defined") != std::string::npos);
}

TEST_CASE("pypto syntax: re-binding an outer name in a loop or an if arm makes the carry or the phi") {
  const std::string loop =
      "def k(x: Tile[[8, 8], FP32, Vec]):\n"
      "    y = tile.exp(x)\n"
      "    for i in range(4):\n"
      "        y = tile.exp(y)\n"
      "    return y\n";
  // As PyPTO's DSL does (implicit_carries_test.cpp has the details).
  const Program loop_program = parse_ok(loop, "t.pto", rebinding());  // outlives the pointer below
  const auto* f = stmts_of(loop_program).at(1)->as<ForStmt>();
  REQUIRE(f);
  CHECK(f->iter_args.size() == 1);
  CHECK(f->return_vars.size() == 1);
  const std::string arm =
      "def k(x: Tile[[8, 8], FP32, Vec], c: Scalar[INDEX]):\n"
      "    y = tile.exp(x)\n"
      "    if c < 1:\n"
      "        y = tile.exp(y)\n"
      "    return y\n";
  const Program arm_program = parse_ok(arm, "t.pto", rebinding());
  const auto* i = stmts_of(arm_program).at(1)->as<IfStmt>();
  REQUIRE(i);
  CHECK(i->return_vars.size() == 1);
  // Inside one block, and for iter-args in their own loop body, it is plain renaming.
  const std::string ok =
      "def k(x: Tile[[8, 8], FP32, Vec]):\n"
      "    for i, (acc,) in range(4, init_values=(x,)):\n"
      "        acc = tile.exp(acc)\n"
      "        acc = tile.exp(acc)\n"
      "        r = yield_(acc)\n"
      "    return r\n";
  parse_ok(ok, "t.pto", rebinding());
}

TEST_CASE("pypto syntax: result types PyPTO deduces") {
  const Program p = parse_ok(
      "@pl.function\n"
      "def main(a: pl.Tensor[[32, 64], pl.FP32]):\n"
      "    buf = pl.create_tensor([32, 64], dtype=pl.FP16)\n"
      "    fence = pl.system.fence()\n"
      "    b = pl.tile.get_block_idx()\n"
      "    part = pl.slice(a, [16, 64], [16, 0])\n"
      "    slot = pl.reserve_buffer(name=\"c2v\", size=4096, base=0)\n"
      "    pl.aiv_initialize_pipe(dir_mask=1, slot_size=512)\n"
      "    return part\n");
  const auto s = stmts_of(p);
  CHECK(call_at(s, 0)->op == "tensor.create");
  CHECK(print(assign_at(s, 0)->var->type) == "Tensor[[32, 64], FP16]");
  CHECK(call_at(s, 1)->op == "system.fence");
  CHECK(assign_at(s, 1)->var->type->is<UnknownType>());
  CHECK(print(assign_at(s, 2)->var->type) == "Scalar[INDEX]");
  CHECK(call_at(s, 3)->op == "tensor.slice");
  CHECK(print(assign_at(s, 3)->var->type) == "Tensor[[16, 64], FP32]");
  CHECK(call_at(s, 4)->op == "system.reserve_buffer");
  CHECK(print(assign_at(s, 4)->var->type) == "Scalar[INT32]");
  CHECK(s.at(5)->as<EvalStmt>()->value->as<Call>()->op == "system.aiv_initialize_pipe");
  // UnknownType re-parses.
  const Program again = parse_ok(print(p));
  CHECK(print(again) == print(p));
}

TEST_CASE(
    "pypto syntax: pl.tile.load / pl.tile.create default to Vec, partial annotations take the op's space") {
  const Program p = parse_ok(
      "def k(a: Tensor[[16, 16], FP32]):\n"
      "    x: pl.Tile[[16, 16], pl.FP32] = pl.tile.load(a, [0, 0], [16, 16])\n"
      "    y: pl.Tile[[16, 16], pl.FP32] = pl.tile.create([16, 16], dtype=pl.FP32)\n"
      "    z: pl.Tile[[16, 16], pl.FP32] = pl.tile.load(a, [0, 0], [16, 16], target_memory=pl.Mem.Mat)\n"
      "    w: Tile[[16, 16], FP32] = tile.load(a, [0, 0], [16, 16])\n"
      "    return a\n");
  const auto s = stmts_of(p);
  CHECK(as_space(*call_at(s, 0)->kwarg("target_memory")) == MemorySpace::Vec);
  CHECK(as_tile(assign_at(s, 0)->var->type)->space == MemorySpace::Vec);
  CHECK(as_space(*call_at(s, 1)->kwarg("target_memory")) == MemorySpace::Vec);
  CHECK(as_tile(assign_at(s, 2)->var->type)->space == MemorySpace::Mat);
  // Our own spelling is taken literally: the load stays undecided for InferTileMemorySpace.
  CHECK_FALSE(call_at(s, 3)->kwarg("target_memory"));
  CHECK_FALSE(as_tile(assign_at(s, 3)->var->type)->space);
}

TEST_CASE("pypto syntax: attrs, docstrings, parenthesised yield, enums, scopes, continue, spmd") {
  const std::string text =
      "@pl.program\n"
      "class P:\n"
      "    \"\"\"Class docstring.\"\"\"\n"
      "\n"
      "    @pl.function(type=pl.FunctionType.InCore, attrs={\"split\": 1})\n"
      "    def k(self, a: pl.Tensor[[16, 16], pl.FP32], o: pl.Out[pl.Tensor[[16, 16], pl.FP32]]):\n"
      "        '''One line.'''\n"
      "        x: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.load(a, [0, 0], [16, 16], attrs={\"tag\": "
      "\"in\"})\n"
      "        for i, (acc,) in pl.range(4, init_values=(x,)):\n"
      "            if i == 1:\n"
      "                continue\n"
      "            m: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.tile.gather_mask(\n"
      "                acc, mask_pattern=pl.tile.MaskPattern.P0101\n"
      "            )\n"
      "            acc_out: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = (\n"
      "                pl.yield_(m)\n"
      "            )\n"
      "        with pl.manual_scope():\n"
      "            r: pl.Tensor[[16, 16], pl.FP32] = pl.store(acc_out, [0, 0], o)\n"
      "        for b in pl.spmd(8):\n"
      "            pass\n"
      "        return r\n";
  const Program p = parse_ok(text);
  const Function& k = p.functions.at(0);
  REQUIRE(k.attrs.size() == 1);
  CHECK(k.attrs[0].name == "attrs");
  CHECK(k.attrs[0].value->as<ListExpr>()->dict);
  const auto& top = k.body->as<SeqStmts>()->stmts;
  REQUIRE(top.size() == 5);
  CHECK(top[0]->as<AssignStmt>()->value->as<Call>()->kwarg("attrs"));
  const auto* loop = top[1]->as<ForStmt>();
  REQUIRE(loop);
  REQUIRE(loop->return_vars.size() == 1);
  const auto body = flatten(loop->body);
  CHECK(body.at(0)->as<IfStmt>());
  const auto* scoped = top[2]->as<SeqStmts>();
  REQUIRE(scoped);
  CHECK(scoped->scope == "manual_scope");
  CHECK(top[3]->as<ForStmt>()->for_kind == ForKind::Spmd);
  // Names inside the with block are visible after it.
  CHECK(as_var(top[4]->as<ReturnStmt>()->values.at(0)) == scoped->stmts.at(0)->as<AssignStmt>()->var);

  const std::string ours = print(p);
  CHECK(ours.find("tile.MaskPattern.P0101") != std::string::npos);
  CHECK(ours.find("attrs={\"tag\": \"in\"}") != std::string::npos);
  CHECK(ours.find("            continue\n") != std::string::npos);
  CHECK(ours.find("        with manual_scope():\n            r: Tensor") != std::string::npos);
  CHECK(ours.find("for b in spmd(8):") != std::string::npos);
  CHECK(print(parse_ok(ours)) == ours);
  const std::string theirs = print(p, PrintOptions{Syntax::pypto});
  CHECK(theirs.find("pl.tile.MaskPattern.P0101") != std::string::npos);
  CHECK(theirs.find("with pl.manual_scope():") != std::string::npos);
  CHECK(theirs.find("for b in pl.spmd(8):") != std::string::npos);
  CHECK(print(parse_ok(theirs), PrintOptions{Syntax::pypto}) == theirs);
}

TEST_CASE("pypto syntax: what has no text form is refused and says so") {
  const auto d = parse_error(
      "@pl.program\nclass P:\n    TILE = 64\n\n    @pl.function\n    def main(self, x: "
      "pl.Scalar[pl.INDEX]):\n"
      "        return x\n");
  CHECK(d.message.find("no text form") != std::string::npos);
  CHECK(d.message.find("class body") != std::string::npos);
  const auto u =
      parse_error("@pl.function\ndef main(x: pl.Scalar[pl.INDEX]):\n    y = x * TILE\n    return y\n");
  CHECK(u.message.find("undefined name 'TILE'") != std::string::npos);
  CHECK(u.message.find("no text form") != std::string::npos);
  const auto w =
      parse_error("@pl.function\ndef main(x: pl.Scalar[pl.INDEX]):\n    with pl.incore():\n        pass\n");
  CHECK(w.message.find("has no form in this IR") != std::string::npos);
}

TEST_CASE("pypto printer: PyPTO's spelling, exactly") {
  const Program p = parse_ok(two_functions, "t.pto", rebinding());
  const std::string expected =
      "@pl.program\n"
      "class Prog:\n"
      "    @pl.function(type=pl.FunctionType.InCore)\n"
      "    def kern(self, a: pl.Tensor[[32, 64], pl.FP32], dst: pl.Out[pl.Tensor[[32, 64], pl.FP32]]) -> "
      "pl.Tensor[[32, 64], pl.FP32]:\n"
      "        t: pl.Tile[[32, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(a, [0, 0], [32, 64], "
      "target_memory=pl.Mem.Vec)\n"
      "        t2: pl.Tile[[32, 64], pl.FP32, pl.Mem.Vec] = pl.tile.add(t, t)\n"
      "        dst_1: pl.Tensor[[32, 64], pl.FP32] = pl.tile.store(t2, [0, 0], dst)\n"
      "        return dst_1\n"
      "\n"
      "    @pl.function\n"
      "    def main(self, a: pl.Tensor[[32, 64], pl.FP32]) -> pl.Tensor[[32, 64], pl.FP32]:\n"
      "        buf: pl.Tensor[[32, 64], pl.FP32] = pl.tensor.create([32, 64], dtype=pl.FP32)\n"
      "        r: pl.Tensor[[32, 64], pl.FP32] = self.kern(a, buf)\n"
      "        return r\n";
  const std::string printed = print(p, PrintOptions{Syntax::pypto});
  CHECK(printed == expected);
  CHECK(print(parse_ok(printed), PrintOptions{Syntax::pypto}) == printed);
  // Our spelling of the same program re-parses to the same PyPTO text.
  CHECK(print(parse_ok(print(p)), PrintOptions{Syntax::pypto}) == printed);
}

TEST_CASE("pypto printer: print -> parse -> print is a fixed point in both spellings on every case") {
  std::vector<std::string> files = test::own_data_files();
  for (const auto& dir : {"/tests/pypto/cases", "/tests/pypto/data/passes", "/examples/kernels"})
    for (const auto& f : test::pto_files(std::string(PTO_MEM_SOURCE_DIR) + dir)) files.push_back(f);
  if (test::have_shared)
    for (const auto& f : test::case_files()) files.push_back(f);
  REQUIRE_FALSE(files.empty());
  int checked = 0;
  for (const auto& file : files) {
    auto r = parse_program(test::read_text(file), file, rebinding());
    if (!r.ok()) continue;  // error cases
    INFO(file);
    const std::string ours = print(r.program);
    CHECK(print(parse_ok(ours, file)) == ours);
    // PyPTO's spelling reads `pl.tile.load` without target_memory as Vec (its
    // default), so the first round trip may decide what our text left open;
    // from then on the text is a fixed point.
    const std::string pl1 = print(r.program, PrintOptions{Syntax::pypto});
    const std::string pl2 = print(parse_ok(pl1, file), PrintOptions{Syntax::pypto});
    CHECK(print(parse_ok(pl2, file), PrintOptions{Syntax::pypto}) == pl2);
    // After InferTileMemorySpace every space of a kernel is decided: then the first round trip is exact
    // too (the pass leaves Opaque and Orchestration functions as written).
    CompileOptions only_infer;
    only_infer.until = Stage::infer;
    CompileResult inferred = compile(clone(r.program), only_infer);
    const bool all_kernels = std::all_of(r.program.functions.begin(), r.program.functions.end(),
                                         [](const auto& f) { return is_kernel(f.kind); });
    if (inferred.ok() && all_kernels) {
      const std::string pl = print(inferred.program, PrintOptions{Syntax::pypto});
      CHECK(print(parse_ok(pl, file), PrintOptions{Syntax::pypto}) == pl);
    }
    ++checked;
  }
  CHECK(checked > 20);
}

TEST_CASE("pypto syntax: a pl.yield_ annotation without a space takes the carried value's") {
  const Program p = parse_ok(
      "def k(x: Tile[[8, 8], FP32, Vec]):\n"
      "    for i, (acc,) in pl.range(2, init_values=(x,)):\n"
      "        nxt: Tile[[8, 8], FP32, Vec] = tile.exp(acc)\n"
      "        r: pl.Tile[[8, 8], pl.FP32] = pl.yield_(nxt)\n"
      "    for j, (acc2,) in range(2, init_values=(x,)):\n"
      "        nxt2: Tile[[8, 8], FP32, Vec] = tile.exp(acc2)\n"
      "        r2: Tile[[8, 8], FP32] = yield_(nxt2)\n"
      "    return r\n");
  const auto s = stmts_of(p);
  CHECK(as_tile(s.at(0)->as<ForStmt>()->return_vars.at(0)->type)->space == MemorySpace::Vec);
  CHECK_FALSE(as_tile(s.at(1)->as<ForStmt>()->return_vars.at(0)->type)->space);  // ours: as annotated
}

namespace {

/// The inserted move defining `name` after InferTileMemorySpace.
const AssignStmt* inserted_move(const Program& p, const std::string& name) {
  const AssignStmt* found = nullptr;
  for_each_stmt(p.functions.at(0).body, [&](const Stmt& s) {
    if (const auto* a = s.as<AssignStmt>(); a && a->var->name == name) found = a;
  });
  REQUIRE(found);
  REQUIRE(found->value->as<Call>()->op == "tile.move");
  return found;
}

Program infer_only(const std::string& text) {
  CompileOptions o;
  o.until = Stage::infer;
  CompileResult r = compile_source(text, "t.pto", o);
  INFO(test::dump(r.diagnostics));
  REQUIRE(r.ok());
  return r.program;
}

}  // namespace

TEST_CASE("move layouts: a Mat source keeps its layout in Vec, Acc -> Vec lands row_major/none_box") {
  const Program p = infer_only(
      "def k(a: Tensor[[16, 16], FP16], b: Tensor[[16, 16], FP16], o: Out[Tensor[[16, 16], FP16]],\n"
      "      o2: Out[Tensor[[16, 16], FP32]]):\n"
      "    m: Tile[[16, 16], FP16] = tile.load(a, [0, 0], [16, 16], target_memory=Mat)\n"
      "    r1: Tensor[[16, 16], FP16] = tile.store(m, [0, 0], o)\n"
      "    n: Tile[[16, 16], FP16] = tile.load(b, [0, 0], [16, 16], target_memory=Mat)\n"
      "    c: Tile[[16, 16], FP32] = tile.matmul(m, n)\n"
      "    e: Tile[[16, 16], FP32] = tile.exp(c)\n"
      "    r2: Tensor[[16, 16], FP32] = tile.store(e, [0, 0], o2)\n"
      "    return r2\n");
  const AssignStmt* mv = inserted_move(p, "m_Vec");
  const TileType* t = as_tile(mv->var->type);
  CHECK(t->space == MemorySpace::Vec);
  CHECK(t->view.layout("blayout") == "col_major");
  CHECK(t->view.layout("slayout") == "row_major");
  CHECK_FALSE(mv->value->as<Call>()->kwarg("blayout"));
  // Left / Right moves take the target's own layout: nothing beyond the implicit one.
  CHECK(as_tile(inserted_move(p, "m_Left")->var->type)->view.empty());
  CHECK(as_tile(inserted_move(p, "n_Right")->var->type)->view.empty());
  const AssignStmt* acc = inserted_move(p, "c_Vec");
  const Call* call = acc->value->as<Call>();
  REQUIRE(call->kwarg("blayout"));
  CHECK(print(*call->kwarg("blayout")) == "TileLayout.row_major");
  CHECK(print(*call->kwarg("slayout")) == "TileLayout.none_box");
  CHECK(as_tile(acc->var->type)->view.empty());  // row_major / none_box is Vec's implicit layout
  // The printed text re-parses to the same types (the tile.move type rule is the same one).
  const std::string text = print(p);
  CHECK(text.find("m_Vec: Tile[[16, 16], FP16, Vec, TileView(blayout=TileLayout.col_major, "
                  "slayout=TileLayout.row_major)] = tile.move(m, target_memory=Vec)") != std::string::npos);
  CHECK(print(parse_ok(text)) == text);
}

TEST_CASE("move layouts: valid_shape and pad carry over, a load's narrower valid_shape is its view") {
  const Program p = infer_only(
      "def k(a: Tensor[[16, 16], FP32], o: Out[Tensor[[16, 16], FP32]]):\n"
      "    m = tile.load(a, [0, 0], [16, 16], [12, 16], target_memory=Mat)\n"
      "    r: Tensor[[16, 16], FP32] = tile.store(m, [0, 0], o)\n"
      "    return r\n");
  const TileType* src = as_tile(flatten(p.functions.at(0).body).at(0)->as<AssignStmt>()->var->type);
  REQUIRE(src->view.valid_shape());
  CHECK(print(*src->view.field("valid_shape")) == "[12, 16]");
  const TileType* t = as_tile(inserted_move(p, "m_Vec")->var->type);
  REQUIRE(t->view.valid_shape());
  CHECK(print(*t->view.field("valid_shape")) == "[12, 16]");
  TileView padded;
  padded.fields.push_back(Kwarg{"pad", enum_imm("PadValue", "zero")});
  padded.fields.push_back(Kwarg{"fractal", int_imm(1024)});
  const TileView v = moved_view(padded, MemorySpace::Acc, MemorySpace::Vec);
  CHECK(v.field("pad"));
  CHECK_FALSE(v.field("fractal"));
  CHECK(v.layout("blayout") == "col_major");  // Acc's effective layout, no kwargs given
}

TEST_CASE("one pass at a time: each pass checks the properties it needs") {
  const std::string raw =
      "def k(a: Tensor[[16, 16], FP32], o: Out[Tensor[[16, 16], FP32]]):\n"
      "    t: Tile[[16, 16], FP32] = tile.load(a, [0, 0], [16, 16])\n"
      "    r: Tensor[[16, 16], FP32] = tile.store(t, [0, 0], o)\n"
      "    return r\n";
  CompileOptions init_only;
  init_only.passes = {Stage::init};
  CompileResult bad = compile_source(raw, "t.pto", init_only);
  REQUIRE_FALSE(bad.ok());
  REQUIRE(bad.diagnostics.size() == 1);
  CHECK(bad.diagnostics[0].code == "missing-property");
  CHECK(bad.diagnostics[0].message.find(
            "InitMemRef needs its input to have the property TileMemoryInferred") == 0);
  CHECK(bad.diagnostics[0].message.find("'t'") != std::string::npos);
  CHECK(bad.exit_code() == 2);
  // infer then init, one at a time, is the pipeline up to init.
  CompileOptions infer_then_init;
  infer_then_init.passes = {Stage::infer, Stage::init};
  CompileOptions until_init;
  until_init.until = Stage::init;
  const CompileResult a = compile_source(raw, "t.pto", infer_then_init);
  const CompileResult b = compile_source(raw, "t.pto", until_init);
  REQUIRE(a.ok());
  CHECK(print(a.program) == print(b.program));
  CHECK(a.ran == std::vector<Stage>{Stage::parse, Stage::infer, Stage::init});
  // MemoryReuse alone on the inferred program: no MemRefs yet.
  CompileOptions reuse_only;
  reuse_only.passes = {Stage::reuse};
  const CompileResult c = compile_source(print(infer_only(raw)), "t.pto", reuse_only);
  REQUIRE_FALSE(c.ok());
  CHECK(c.diagnostics[0].message.find("MemoryReuse needs its input to have the property HasMemRefs") == 0);
  // ... and on the program after InitMemRef it runs.
  const CompileResult d = compile_source(print(b.program), "t.pto", reuse_only);
  CHECK(d.ok());
}

TEST_CASE("AllocatedMemoryAddr verifier: an Opaque function is checked too") {
  // An Opaque function whose Vec tile (bound by hand) is larger than a2a3's Vec.
  const Program p = parse_ok(
      "@function(type=Opaque)\n"
      "def orch(a: Tensor[[256, 256], FP32]):\n"
      "    big: Tile[[256, 256], FP32, MemRef(\"scratch\", 0, 262144), Vec] = tile.load(a, [0, 0], [256, "
      "256], "
      "target_memory=Vec)\n"
      "    return a\n");
  SocPolicy soc = soc_a2a3();
  PassContext ctx;
  ctx.soc = &soc;
  ctx.ops = &default_registry();
  CHECK_FALSE(passes::verify_allocated_memory_addr(p, ctx));
  REQUIRE(ctx.diagnostics.size() == 1);
  CHECK(ctx.diagnostics[0].message.find(
            "Function 'orch': Vec buffer usage (262144 bytes) exceeds platform limit") == 0);
  PassContext ok_ctx;
  ok_ctx.soc = &soc;
  ok_ctx.ops = &default_registry();
  Program small = parse_ok(
      "@function(type=Opaque)\n"
      "def orch(a: Tensor[[16, 16], FP32]):\n"
      "    t: Tile[[16, 16], FP32, MemRef(\"scratch\", 0, 1024), Vec] = tile.load(a, [0, 0], [16, 16], "
      "target_memory=Vec)\n"
      "    return a\n");
  CHECK(passes::verify_allocated_memory_addr(small, ok_ctx));
}

TEST_CASE("tile views PyPTO derives from the op: a slice's valid_shape and pad") {
  const Program p = parse_ok(
      "def k(x: Tile[[16, 16], FP32, Vec]):\n"
      "    s = tile.slice(x, [8, 16], [0, 0], [6, 16], pad_value=PadValue.zero)\n"
      "    full = tile.slice(x, [8, 16], [8, 0], [8, 16])\n"
      "    return s\n");
  const auto st = stmts_of(p);
  CHECK(print(assign_at(st, 0)->var->type) ==
        "Tile[[8, 16], FP32, Vec, TileView(valid_shape=[6, 16], pad=PadValue.zero)]");
  CHECK(print(assign_at(st, 1)->var->type) == "Tile[[8, 16], FP32, Vec]");  // the whole slice is valid
}

TEST_CASE("pypto printer: names repeated anywhere in a function take _1, _2 after the first, as PyPTO's") {
  const Program p = parse_ok(
      "def k(x: Tile[[8, 8], FP32, Vec], c: Scalar[INDEX]):\n"
      "    if c < 1:\n"
      "        t = tile.exp(x)\n"
      "        r = yield_(t)\n"
      "    else:\n"
      "        t = tile.neg(x)\n"
      "        r = yield_(t)\n"
      "    return r\n");
  const std::string ours = print(p);
  CHECK(ours.find("        t: Tile[[8, 8], FP32, Vec] = tile.neg(x)") !=
        std::string::npos);  // sibling blocks
  const std::string theirs = print(p, PrintOptions{Syntax::pypto});
  CHECK(theirs.find("            t: pl.Tile[[8, 8], pl.FP32, pl.Mem.Vec] = pl.tile.exp(x)") !=
        std::string::npos);
  CHECK(theirs.find("            t_1: pl.Tile[[8, 8], pl.FP32, pl.Mem.Vec] = pl.tile.neg(x)\n"
                    "            r = pl.yield_(t_1)") != std::string::npos);
  CHECK(print(parse_ok(theirs), PrintOptions{Syntax::pypto}) == theirs);
}

TEST_CASE(
    "pypto syntax: a PyPTO file's docstring and imports are skipped; func_attr and module values refused") {
  const Program p = parse_ok(
      "\"\"\"Module docstring.\"\"\"\n"
      "import pypto.language as pl\n"
      "from pypto import ir\n"
      "\n"
      "@pl.function\n"
      "def main(x: pl.Scalar[pl.INDEX]):\n"
      "    return x\n");
  CHECK(p.functions.size() == 1);
  const auto m = parse_error("import pypto.language as pl\nN = 64\n");
  CHECK(m.message.find("expected 'def', found 'N'") == 0);
  CHECK(m.message.find("no text form") != std::string::npos);
  const auto f = parse_error(
      "@pl.function\ndef main(x: pl.Scalar[pl.INDEX]):\n    pl.func_attr({\"a\": 1})\n"
      "    return x\n");
  CHECK(f.message.find("pl.func_attr") != std::string::npos);
  CHECK(f.message.find("decorator") != std::string::npos);
}
