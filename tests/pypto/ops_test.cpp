// The op registry against the documented op table, and user registration.
#include <doctest/doctest.h>

#include <algorithm>
#include <set>

#include "pypto_support.hpp"

using namespace pto_mem;
using namespace pto_mem::pypto;
using enum MemorySpace;

namespace {

const OpSpec& spec(std::string_view name) {
  static const OpRegistry reg = OpRegistry::with_builtins();  // node-based: references stay valid
  const OpSpec* s = reg.find(name);
  INFO(name);
  REQUIRE(s);
  return *s;
}

std::vector<MemorySpace> allowed(const OpSpec& s, std::size_t i) {
  auto a = s.allowed_spaces(i);
  return {a.begin(), a.end()};
}

}  // namespace

TEST_CASE("every op of the documented op table is registered") {
  const OpRegistry reg = OpRegistry::with_builtins();
  const char* names[] = {"tile.load",
                         "tile.store",
                         "tile.move",
                         "tile.create",
                         "tile.full",
                         "tile.ci",
                         "tile.tri",
                         "tile.random",
                         "tile.alloc",
                         "tile.extract",
                         "tile.mgather",
                         "tile.mscatter",
                         "tile.read",
                         "tile.write",
                         "tile.tpop_from_aic",
                         "tile.tpop_from_aiv",
                         "tile.tpush_to_aiv",
                         "tile.tpush_to_aic",
                         "tile.aiv_shard",
                         "tile.aic_gather",
                         "tile.slice",
                         "tile.reshape",
                         "tile.reinterpret_view",
                         "tile.transpose_view",
                         "tile.set_validshape",
                         "tile.assemble",
                         "tile.transpose",
                         "tile.fillpad",
                         "tile.fillpad_inplace",
                         "tile.fillpad_expand",
                         "tile.concat",
                         "tile.cast",
                         "tile.add",
                         "tile.sub",
                         "tile.mul",
                         "tile.div",
                         "tile.maximum",
                         "tile.minimum",
                         "tile.and",
                         "tile.or",
                         "tile.shl",
                         "tile.shr",
                         "tile.part_add",
                         "tile.part_mul",
                         "tile.part_max",
                         "tile.part_min",
                         "tile.rem",
                         "tile.xor",
                         "tile.fmod",
                         "tile.adds",
                         "tile.subs",
                         "tile.muls",
                         "tile.divs",
                         "tile.shls",
                         "tile.shrs",
                         "tile.maximums",
                         "tile.minimums",
                         "tile.rems",
                         "tile.fmods",
                         "tile.ands",
                         "tile.ors",
                         "tile.xors",
                         "tile.addc",
                         "tile.subc",
                         "tile.addsc",
                         "tile.subsc",
                         "tile.exp",
                         "tile.neg",
                         "tile.sin",
                         "tile.cos",
                         "tile.sqrt",
                         "tile.log",
                         "tile.abs",
                         "tile.relu",
                         "tile.not",
                         "tile.recip",
                         "tile.rsqrt",
                         "tile.lrelu",
                         "tile.prelu",
                         "tile.sel",
                         "tile.sels",
                         "tile.cmp",
                         "tile.cmps",
                         "tile.expands",
                         "tile.row_expand",
                         "tile.row_expand_add",
                         "tile.row_expand_sub",
                         "tile.row_expand_mul",
                         "tile.row_expand_div",
                         "tile.row_expand_max",
                         "tile.row_expand_min",
                         "tile.row_expand_expdif",
                         "tile.col_expand",
                         "tile.col_expand_add",
                         "tile.col_expand_sub",
                         "tile.col_expand_mul",
                         "tile.col_expand_div",
                         "tile.col_expand_max",
                         "tile.col_expand_min",
                         "tile.col_expand_expdif",
                         "tile.row_sum",
                         "tile.row_max",
                         "tile.row_min",
                         "tile.row_prod",
                         "tile.row_argmax",
                         "tile.row_argmin",
                         "tile.col_argmax",
                         "tile.col_argmin",
                         "tile.col_sum",
                         "tile.col_max",
                         "tile.col_min",
                         "tile.col_prod",
                         "tile.sort32",
                         "tile.mrgsort_format1",
                         "tile.mrgsort",
                         "tile.mrgsort_format2",
                         "tile.gather",
                         "tile.gatherb",
                         "tile.gather_mask",
                         "tile.gather_compare",
                         "tile.scatter",
                         "tile.scatter_mask",
                         "tile.scatter_update",
                         "tile.gather_row",
                         "tile.matmul",
                         "tile.matmul_acc",
                         "tile.matmul_bias",
                         "tile.gemv",
                         "tile.gemv_acc",
                         "tile.gemv_bias",
                         "tile.batch_matmul",
                         "tile.batch_matmul_acc",
                         "tile.matmul_mx",
                         "tile.matmul_mx_acc",
                         "tile.matmul_mx_bias",
                         "tile.tget_scale_addr",
                         "system.reserve_buffer",
                         "tensor.alloc",
                         "tensor.slice"};
  for (const char* n : names) {
    CAPTURE(n);
    CHECK(reg.contains(n));
  }
  CHECK(reg.size() == std::size(names));
  for (const OpSpec* s : reg.ops()) {
    CAPTURE(s->name);
    CHECK(OpRegistry::check(*s).empty());
  }
  auto listed = reg.ops();
  CHECK(std::is_sorted(listed.begin(), listed.end(), [](auto* a, auto* b) { return a->name < b->name; }));
}

TEST_CASE("data movement: load, store, move, create") {
  const OpSpec& load = spec("tile.load");
  CHECK(load.is_retargetable());
  CHECK(load.accepts_target(Vec));
  CHECK(load.accepts_target(Mat));
  CHECK_FALSE(load.accepts_target(Left));
  CHECK_FALSE(load.has_input_constraints());
  CHECK(load.evidence == AccessEvidence::functional);

  const OpSpec& store = spec("tile.store");
  CHECK(allowed(store, 0) == std::vector<MemorySpace>{Vec, Acc});
  CHECK(store.canonical_space(0) == Vec);  // demand on the tile is Vec
  CHECK(store.reuses_input == 2u);
  CHECK(store.lands_in_source());
  CHECK(store.result == ResultKind::tensor);
  CHECK(store.evidence == AccessEvidence::unknown);

  const OpSpec& move = spec("tile.move");
  CHECK(move.output == OutputSpace::kwarg);
  CHECK(move.output_space == Vec);
  CHECK_FALSE(move.is_retargetable());
  CHECK_FALSE(move.inplace_safe);
  CHECK(move.evidence == AccessEvidence::functional);

  const OpSpec& create = spec("tile.create");
  CHECK(create.is_retargetable());
  CHECK_FALSE(create.accepts_target(LeftScale));
  CHECK_FALSE(create.accepts_target(RightScale));
  CHECK(create.accepts_target(Acc));
  CHECK(create.evidence == AccessEvidence::no_access);

  CHECK(spec("tile.tpop_from_aic").output == OutputSpace::call_type);
  CHECK(spec("tile.tpop_from_aic").no_memory_spec);
  CHECK(spec("tile.alloc").result == ResultKind::ptr);
  CHECK(spec("tile.aic_gather").output_space == Mat);
  CHECK(spec("system.reserve_buffer").result == ResultKind::scalar);
}

TEST_CASE("views: buffer-aliasing (V) versus data-permuting (T)") {
  for (const char* v : {"tile.slice", "tile.reshape", "tile.reinterpret_view", "tile.transpose_view",
                        "tile.set_validshape", "tile.assemble"}) {
    CAPTURE(v);
    const OpSpec& s = spec(v);
    CHECK(s.is_inherit_input());
    CHECK(s.is_view());
    CHECK(s.view_kind() == ViewKind::alias);
    CHECK(s.lands_in_source());
  }
  const OpSpec& t = spec("tile.transpose");
  CHECK(t.is_inherit_input());
  CHECK_FALSE(t.is_view());
  CHECK(t.view_kind() == ViewKind::permute);
  CHECK_FALSE(t.lands_in_source());
  CHECK_FALSE(t.inplace_safe);
  CHECK(spec("tile.slice").evidence == AccessEvidence::no_access);
  CHECK(spec("tile.reinterpret_view").evidence == AccessEvidence::no_access);
  CHECK(spec("tile.assemble").evidence == AccessEvidence::unknown);
  // tile.fillpad is a fixed-Vec producer at HEAD, not a view.
  const OpSpec& fp = spec("tile.fillpad");
  CHECK(fp.output == OutputSpace::fixed);
  CHECK_FALSE(fp.lands_in_source());
  CHECK(spec("tile.fillpad_inplace").reuses_input == 0u);
}

TEST_CASE("no-alias sets: ALL, explicit indices, widening casts, the A5 prelu override") {
  using V = std::vector<std::size_t>;
  CHECK(spec("tile.recip").forbidden_operands(1) == V{0});
  CHECK(spec("tile.fmod").forbidden_operands(2) == V{0, 1});
  CHECK(spec("tile.add").forbidden_operands(2).empty());
  CHECK(spec("tile.sel").forbidden_operands(4) == V{0, 3});
  CHECK(spec("tile.sels").forbidden_operands(4) == V{0});
  CHECK(spec("tile.row_expand_mul").forbidden_operands(2) == V{1});
  CHECK(spec("tile.col_expand").forbidden_operands(2) == V{1});
  CHECK(spec("tile.row_sum").forbidden_operands(2) == V{0, 1});
  CHECK(spec("tile.col_sum").forbidden_operands(2).empty());
  const OpSpec& cast = spec("tile.cast");
  CHECK(cast.forbidden_operands(1, "a2a3", /*widening=*/false).empty());
  CHECK(cast.forbidden_operands(1, "a2a3", /*widening=*/true) == V{0});
  const OpSpec& prelu = spec("tile.prelu");
  CHECK(prelu.forbidden_operands(3, "a2a3") == V{0, 1, 2});
  CHECK(prelu.forbidden_operands(3, "a5") == V{0, 1});
}

TEST_CASE("the cube family: Left x Right -> Acc, accumulating ops reuse the accumulator") {
  for (const char* m : {"tile.matmul", "tile.gemv", "tile.batch_matmul"}) {
    CAPTURE(m);
    const OpSpec& s = spec(m);
    CHECK(allowed(s, 0) == std::vector<MemorySpace>{Left});
    CHECK(allowed(s, 1) == std::vector<MemorySpace>{Right});
    CHECK(s.output_space == Acc);
    CHECK_FALSE(s.reuses_input);
    CHECK(s.evidence == AccessEvidence::functional);
  }
  for (const char* m : {"tile.matmul_acc", "tile.gemv_acc", "tile.batch_matmul_acc", "tile.matmul_mx_acc"}) {
    CAPTURE(m);
    const OpSpec& s = spec(m);
    CHECK(s.canonical_space(0) == Acc);
    CHECK(s.reuses_input == 0u);
    CHECK(s.lands_in_source());
  }
  CHECK(allowed(spec("tile.matmul_bias"), 2) == std::vector<MemorySpace>{Bias});
  CHECK(allowed(spec("tile.matmul_mx"), 1) == std::vector<MemorySpace>{LeftScale});
  CHECK(allowed(spec("tile.matmul_mx"), 3) == std::vector<MemorySpace>{RightScale});
  CHECK(spec("tile.tget_scale_addr").reuses_input == 0u);
}

TEST_CASE("output resolution: fixed, kwarg with default, retargetable, inherit") {
  auto c = [](std::vector<Kwarg> kw) { return Call("x", {}, std::move(kw)); };
  const Kwarg mat{"target_memory", space_imm(Mat)};
  CHECK(spec("tile.add").resolve_output(c({})) == Vec);
  CHECK(spec("tile.matmul").resolve_output(c({})) == Acc);
  CHECK(spec("tile.move").resolve_output(c({})) == Vec);
  CHECK(spec("tile.move").resolve_output(c({mat})) == Mat);
  CHECK_FALSE(spec("tile.load").resolve_output(c({})));
  CHECK(spec("tile.load").resolve_output(c({mat})) == Mat);
  CHECK_FALSE(spec("tile.slice").resolve_output(c({})));
}

TEST_CASE("every elementwise op takes Vec inputs and gives Vec") {
  for (const char* n : {"tile.add", "tile.muls", "tile.exp", "tile.rem", "tile.addsc", "tile.lrelu",
                        "tile.cmp", "tile.expands", "tile.row_expand", "tile.gather", "tile.sort32"}) {
    CAPTURE(n);
    const OpSpec& s = spec(n);
    CHECK(s.output == OutputSpace::fixed);
    CHECK(s.output_space == Vec);
    CHECK(s.canonical_space(0) == Vec);
  }
  CHECK(spec("tile.muls").allowed_spaces(1).empty());  // the scalar operand
  CHECK(spec("tile.rem").args[2].scratch);
  CHECK(spec("tile.rem").evidence == AccessEvidence::unknown);  // writes its tmp
  CHECK(spec("tile.gather_compare").evidence == AccessEvidence::unknown);
}

TEST_CASE("access evidence: which pipe reads and writes each operand") {
  for (const char* n : {"tile.create", "tile.alloc", "tile.slice", "tile.reinterpret_view"})
    CHECK(spec(n).evidence == AccessEvidence::no_access);
  for (const char* n : {"tile.load", "tile.add", "tile.full", "tile.move", "tile.recip", "tile.matmul",
                        "tile.matmul_acc", "tile.gemv_acc", "tile.batch_matmul_acc"})
    CHECK(spec(n).evidence == AccessEvidence::functional);
  for (const char* n : {"tile.store", "tile.assemble", "tile.write", "tile.read", "tile.gather_compare"})
    CHECK(spec(n).evidence == AccessEvidence::unknown);
}

TEST_CASE("users register ops; inconsistent or duplicate specs are refused with a reason") {
  OpRegistry reg = OpRegistry::with_builtins();
  const std::size_t before = reg.size();
  std::string why;
  CHECK(reg.add(OpSpec("my.op").arg("x", {Vec}).fixed(Vec), &why));
  CHECK(reg.size() == before + 1);
  CHECK_FALSE(reg.add(OpSpec("my.op").arg("x").fixed(Mat), &why));
  CHECK(why.find("already registered") != std::string::npos);
  CHECK(reg.find("my.op")->output_space == Vec);  // unchanged
  CHECK_FALSE(reg.add(OpSpec("my.bad").arg("x").fixed(Vec).reuses(1), &why));
  CHECK(why.find("past its 1 arguments") != std::string::npos);
  CHECK_FALSE(reg.add(OpSpec("my.bad").arg("x"), &why));
  CHECK(why.find("needs an output-space rule") != std::string::npos);
  CHECK_FALSE(reg.add(OpSpec("my.bad").arg("x").returns(ResultKind::scalar).fixed(Vec), &why));
  CHECK_FALSE(reg.add(OpSpec("my.bad").retargetable({Vec}).target_kwarg(Mat), &why));
  CHECK_FALSE(reg.add(OpSpec("my.bad").arg("x").fixed(Vec).forbid_alias({4}), &why));
  CHECK_FALSE(reg.add(OpSpec(""), &why));
  reg.add_or_replace(OpSpec("tile.add").arg("lhs", {Mat}).fixed(Mat));
  CHECK(reg.find("tile.add")->output_space == Mat);
  CHECK(reg.remove("my.op"));
  CHECK_FALSE(reg.contains("my.op"));
  CHECK_FALSE(reg.remove("my.op"));
}

TEST_CASE("lookups follow every change: add, replace, remove, copies and moves") {
  OpRegistry reg = OpRegistry::with_builtins();
  // Every registered name finds its own spec, and names that are not
  // registered (same length, same prefix, empty) find nothing.
  for (const OpSpec* s : reg.ops()) CHECK(reg.find(s->name) == s);
  for (const char* n : {"", "t", "tile", "tile.", "tile.ad", "tile.adds_", "tile.addx", "tile.matmul_acd",
                        "system.reserve_bufferx"})
    CHECK(reg.find(n) == nullptr);
  // Many user ops (the index grows and is rebuilt each time).
  for (int i = 0; i < 300; ++i) REQUIRE(reg.add(OpSpec("user.op_" + std::to_string(i)).arg("x").fixed(Vec)));
  for (const OpSpec* s : reg.ops()) CHECK(reg.find(s->name) == s);
  // A replaced spec is found as replaced; a removed one is gone, its
  // neighbours stay.
  reg.add_or_replace(OpSpec("user.op_7").arg("x").fixed(Mat));
  CHECK(reg.find("user.op_7")->output_space == Mat);
  CHECK(reg.remove("user.op_8"));
  CHECK(reg.find("user.op_8") == nullptr);
  CHECK(reg.find("user.op_9") != nullptr);
  CHECK(reg.find("tile.add") != nullptr);
  // A copy finds its own specs; changing one side leaves the other alone.
  OpRegistry copy = reg;
  for (const OpSpec* s : reg.ops()) {
    const OpSpec* c = copy.find(s->name);
    REQUIRE(c);
    CHECK(c != s);
    CHECK(c->name == s->name);
  }
  CHECK(copy.remove("tile.add"));
  CHECK(copy.find("tile.add") == nullptr);
  CHECK(reg.find("tile.add") != nullptr);
  copy = reg;
  CHECK(copy.find("tile.add") != nullptr);
  CHECK(copy.find("tile.add") != reg.find("tile.add"));
  // A move takes the very specs along and leaves the source empty.
  const OpSpec* add = reg.find("tile.add");
  OpRegistry moved = std::move(reg);
  CHECK(moved.find("tile.add") == add);
  CHECK(reg.size() == 0);  // NOLINT(bugprone-use-after-move): a moved-from registry is empty
  CHECK(reg.find("tile.add") == nullptr);
  OpRegistry assigned;
  assigned = std::move(moved);
  CHECK(assigned.find("tile.add") == add);
  CHECK(moved.find("tile.add") == nullptr);  // NOLINT(bugprone-use-after-move)
  CHECK(OpRegistry{}.find("tile.add") == nullptr);
}

TEST_CASE("type rules of the cube family and views") {
  const Program p = test::parse_ok(
      "def k(a: Tensor[[16, 64], FP8E4M3FN], s: Tensor[[16, 2], FP8E8M0], b: Tensor[[64, 32], FP8E4M3FN]):\n"
      "    l: Tile[[16, 64], FP8E4M3FN, Left] = tile.load(a, [0, 0], [16, 64])\n"
      "    ls: Tile[[16, 2], FP8E8M0, LeftScale] = tile.load(s, [0, 0], [16, 2])\n"
      "    r: Tile[[64, 32], FP8E4M3FN, Right] = tile.load(b, [0, 0], [64, 32])\n"
      "    rs: Tile[[2, 32], FP8E8M0, RightScale] = tile.load(s, [0, 0], [2, 32])\n"
      "    acc = tile.matmul_mx(l, ls, r, rs)\n"
      "    half = tile.slice(acc, [8, 32], [8, 0])\n"
      "    flat = tile.reshape(half, [256])\n"
      "    tr = tile.transpose_view(acc)\n");
  const auto s = flatten(p.functions[0].body);
  CHECK(print(s[4]->as<AssignStmt>()->var->type) == "Tile[[16, 32], FP32, Acc]");
  CHECK(print(s[5]->as<AssignStmt>()->var->type) == "Tile[[8, 32], FP32, Acc]");
  CHECK(print(s[6]->as<AssignStmt>()->var->type) == "Tile[[256], FP32, Acc]");
  CHECK(print(s[7]->as<AssignStmt>()->var->type) == "Tile[[32, 16], FP32, Acc]");
}

TEST_CASE("type rules: a load's valid region, fillpad's pad value, set_validshape's region") {
  // Unannotated in our spelling: the op's rule alone gives the type.
  const Program ours = test::parse_ok(
      "def k(a: Tensor[[64, 64], FP32]):\n"
      "    t = tile.load(a, [0, 0], [64, 64], [48, 64], target_memory=Vec)\n"
      "    p = tile.fillpad(t, pad_value=PadValue.max)\n"
      "    q = tile.fillpad_inplace(t)\n"
      "    v = tile.set_validshape(p, 16, 32)\n"
      "    w = tile.load(a, [0, 0], [64, 64], [64, 64], target_memory=Vec)\n");
  const auto s = flatten(ours.functions[0].body);
  CHECK(print(s[0]->as<AssignStmt>()->var->type) ==
        "Tile[[64, 64], FP32, Vec, TileView(valid_shape=[48, 64])]");
  CHECK(print(s[1]->as<AssignStmt>()->var->type) == "Tile[[64, 64], FP32, Vec, TileView(pad=PadValue.max)]");
  CHECK(print(s[2]->as<AssignStmt>()->var->type) == "Tile[[64, 64], FP32, Vec, TileView(pad=PadValue.zero)]");
  CHECK(print(s[3]->as<AssignStmt>()->var->type) ==
        "Tile[[64, 64], FP32, Vec, TileView(valid_shape=[16, 32], pad=PadValue.max)]");
  CHECK(print(s[4]->as<AssignStmt>()->var->type) == "Tile[[64, 64], FP32, Vec]");  // not narrower: no view

  // PyPTO's spelling: valid_shape= is the load's fourth argument, and an annotation without a
  // view takes the op's valid region and pad; without a space, the space the op's spec gives.
  const Program pl = test::parse_ok(
      "@pl.function(type=pl.FunctionType.InCore)\n"
      "def k(self, a: pl.Tensor[[64, 64], pl.FP32], i: pl.Tensor[[64, 64], pl.UINT32]):\n"
      "    t: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.load(a, [0, 0], [64, 64], valid_shape=[48, 64])\n"
      "    p: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.fillpad(t, pad_value=pl.PadValue.min)\n"
      "    x: pl.Tile[[64, 64], pl.UINT32] = pl.load(i, [0, 0], [64, 64])\n"
      "    s: pl.Tile[[64, 128], pl.FP32] = pl.tile.sort32(t, x)\n");
  const auto f = flatten(pl.functions[0].body);
  const auto* load = f[0]->as<AssignStmt>()->value->as<Call>();
  REQUIRE(load);
  CHECK(load->args.size() == 4);
  CHECK(load->kwarg("valid_shape") == nullptr);
  CHECK(print(f[0]->as<AssignStmt>()->var->type) ==
        "Tile[[64, 64], FP32, Vec, TileView(valid_shape=[48, 64])]");
  CHECK(print(f[1]->as<AssignStmt>()->var->type) == "Tile[[64, 64], FP32, Vec, TileView(pad=PadValue.min)]");
  CHECK(print(f[3]->as<AssignStmt>()->var->type) == "Tile[[64, 128], FP32, Vec]");
}
