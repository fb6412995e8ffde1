// Every op PyPTO knows, with its memory contract. Each line is one row of the
// op table; the evidence column says what the op does to memory: metadata ops
// (create, alloc, zero-copy views) are no_access; pure producers that read
// every tile operand and write their result are functional; ops that write a
// tmp/scratch operand, pass a destination, or touch a sub-range are unknown
// (the recognizer then prices nothing for the buffers they touch).
#pragma once

#include <initializer_list>
#include <string>
#include <vector>

#include "pto_mem/pypto/ops/type_rules.hpp"

namespace pto_mem::pypto {

[[nodiscard]] inline std::vector<OpSpec> builtin_ops() {
  using enum MemorySpace;
  using E = AccessEvidence;
  namespace tr = type_rules;
  std::vector<OpSpec> ops;
  auto add = [&](OpSpec s) -> OpSpec& { return ops.emplace_back(std::move(s)); };

  // ---- 2.1 data movement, creation, allocation --------------------------------------
  add(OpSpec("tile.load")
          .arg("tensor")
          .arg("offsets")
          .arg("shapes")
          .optional_arg("valid_shape")
          .kw({"target_memory", "clamp"})
          .retargetable({Vec, Mat})
          .access(E::functional)
          .typed(tr::load())
          .note("DDR->tile; legal targets Vec or Mat (MX-layout sources: Mat); the DSL defaults the kwarg to "
                "Vec"));
  add(OpSpec("tile.store")
          .arg("tile", {Vec, Acc})
          .arg("offsets")
          .arg("output_tensor")
          .optional_arg("shapes")
          .kw({"atomic"})
          .returns(ResultKind::tensor)
          .reuses(2)
          .access(E::unknown)
          .typed(tr::type_of_arg(2))
          .note("result is a Tensor sharing the output tensor's MemRef; demand on the tile = Vec"));
  add(OpSpec("tile.move")
          .arg("tile")
          .kw({"target_memory", "blayout", "slayout"})
          .target_kwarg(Vec)
          .not_inplace_safe()
          .access(E::functional)
          .typed(tr::moved())
          .note("only way into Left/Right/Bias; never retargeted"));
  add(OpSpec("tile.create")
          .arg("shape")
          .kw({"dtype", "target_memory", "transpose", "flat_layout"})
          .retargetable({Vec, Mat, Left, Right, Acc, Bias})
          .access(E::no_access)
          .typed(tr::created(0))
          .note("uninitialised buffer; DSL default Vec; LeftScale/RightScale rejected"));
  add(OpSpec("tile.full")
          .arg("shape")
          .arg("value")
          .kw({"dtype"})
          .fixed(Vec)
          .access(E::functional)
          .typed(tr::created(0, Vec)));
  add(OpSpec("tile.ci")
          .arg("start")
          .arg("shape")
          .scratch_arg("tmp", {Vec}, true)
          .kw({"dtype", "descending"})
          .fixed(Vec)
          .forbid_alias({2})
          .access(E::functional)
          .typed(tr::created(1, Vec, DataType::INT32))
          .note("A2/A3: InitMemRef adds the compiler-owned tmp (level-3 scratch)"));
  add(OpSpec("tile.tri")
          .kw({"dtype"})
          .fixed(Vec)
          .access(E::functional)
          .note("(scalars), shape, [valid_shape]"));
  add(OpSpec("tile.random")
          .kw({"dtype"})
          .fixed(Vec)
          .access(E::functional)
          .note("(scalars), shape, [valid_shape]"));
  add(OpSpec("tile.alloc")
          .arg("memory_space")
          .arg("size")
          .kw({"pinned"})
          .returns(ResultKind::ptr)
          .without_memory_spec()
          .access(E::no_access)
          .note("emitted by InitMemRef; an AllocStmt in the IR"));
  add(OpSpec("tensor.alloc")
          .arg("memory_space")
          .arg("size")
          .returns(ResultKind::ptr)
          .without_memory_spec()
          .access(E::no_access)
          .note("alloc statement for a DDR tile base"));
  add(OpSpec("tile.extract")
          .arg("src")
          .arg("index_row")
          .arg("index_col")
          .arg("shape")
          .kw({"target_memory"})
          .target_kwarg(Vec)
          .not_inplace_safe()
          .access(E::functional)
          .typed(tr::moved(3))
          .note("Mat->Left/Right sub-tile copy; fresh buffer"));
  add(OpSpec("tile.mgather")
          .arg("mem")
          .arg("idx")
          .scratch_arg("scratch")
          .optional_arg("valid_shape")
          .kw({"target_memory"})
          .target_kwarg(Vec)
          .not_inplace_safe()
          .access(E::unknown));
  add(OpSpec("tile.mscatter")
          .arg("src", {Vec})
          .arg("idx", {Vec})
          .arg("output_tensor")
          .returns(ResultKind::tensor)
          .reuses(2)
          .access(E::unknown)
          .typed(tr::type_of_arg(2)));
  add(OpSpec("tile.read")
          .arg("tile", {Vec})
          .arg("indices")
          .returns(ResultKind::scalar)
          .access(E::unknown)
          .typed(tr::scalar_of_arg(0))
          .note("scalar read; demand Vec"));
  add(OpSpec("tile.write")
          .arg("tile", {Vec})
          .arg("indices")
          .arg("value")
          .fixed(Vec)
          .access(E::unknown)
          .typed(tr::like_arg(0, Vec))
          .note("often an EvalStmt"));
  for (const char* n : {"tile.tpop_from_aic", "tile.tpop_from_aiv"})
    add(OpSpec(n)
            .kw({"split", "id"})
            .call_type()
            .without_memory_spec()
            .access(E::unknown)
            .note("MemRef-less result: lives in the cross-core slot [CORNER]"));
  for (const char* n : {"tile.tpush_to_aiv", "tile.tpush_to_aic"})
    add(OpSpec(n)
            .arg("tile")
            .kw({"split", "id"})
            .returns(ResultKind::none)
            .without_memory_spec()
            .access(E::unknown));
  add(OpSpec("tile.aiv_shard")
          .arg("tile")
          .kw({"split"})
          .fixed(Vec)
          .access(E::unknown)
          .note("cross-core boundary [DEEP]"));
  add(OpSpec("tile.aic_gather")
          .arg("tile")
          .kw({"split"})
          .fixed(Mat)
          .access(E::unknown)
          .note("cross-core boundary [DEEP]"));

  // ---- 2.2 views and layout transforms ----------------------------------------------
  add(OpSpec("tile.slice")
          .arg("input")
          .arg("shape")
          .arg("offset")
          .optional_arg("valid_shape")
          .optional_arg("drop_dims")
          .kw({"pad_value"})
          .inherit()
          .access(E::no_access)
          .typed(tr::view_with_shape(1))
          .note("view MemRef: (base, parent_off + linear(offset)*elem, span)"));
  add(OpSpec("tensor.slice")
          .arg("input")
          .arg("shape")
          .arg("offset")
          .inherit()
          .returns(ResultKind::tensor)
          .access(E::no_access)
          .note("DDR view; same byte-offset rule as tile.slice"));
  add(OpSpec("tile.reshape")
          .arg("input")
          .arg("shape")
          .inherit()
          .access(E::no_access)
          .typed(tr::view_with_shape(1))
          .note("pure alias unless the parent is itself a sized view"));
  add(OpSpec("tile.reinterpret_view")
          .arg("data")
          .arg("shape")
          .kw({"dtype"})
          .inherit()
          .access(E::no_access)
          .typed(tr::view_with_shape(1))
          .note("exact-byte alias across dtypes"));
  add(OpSpec("tile.transpose_view")
          .arg("input")
          .inherit()
          .access(E::no_access)
          .typed(tr::transposed(false))
          .note("zero-copy transposed view"));
  add(OpSpec("tile.set_validshape")
          .arg("tile")
          .arg("valid_rows")
          .arg("valid_cols")
          .inherit()
          .access(E::no_access)
          .typed(tr::with_valid_shape())
          .note("the only view MaterializeSemanticAliases may retarget (through its input)"));
  add(OpSpec("tile.assemble")
          .arg("target")
          .arg("source")
          .arg("offset")
          .inherit()
          .access(E::unknown)
          .typed(tr::like_arg(0, std::nullopt, true))
          .note("writes source into target's buffer; output aliases target (arg 0)"));
  add(OpSpec("tile.transpose")
          .arg("input")
          .arg("axis1")
          .arg("axis2")
          .scratch_arg("tmp", {}, true)
          .inherit()
          .not_inplace_safe()
          .access(E::unknown)
          .typed(tr::transposed(true))
          .note("permutes into a fresh buffer; may be bound to a declared allocation"));
  add(OpSpec("tile.fillpad")
          .arg("tile", {Vec})
          .kw({"pad_value"})
          .fixed(Vec)
          .access(E::functional)
          .typed(tr::padded())
          .note("fixed Vec at HEAD (docs calling it inherit-input are stale)"));
  add(OpSpec("tile.fillpad_inplace")
          .arg("tile", {Vec})
          .kw({"pad_value"})
          .fixed(Vec)
          .reuses(0)
          .access(E::functional)
          .typed(tr::padded()));
  add(OpSpec("tile.fillpad_expand")
          .arg("tile", {Vec})
          .arg("shape")
          .kw({"pad_value"})
          .fixed(Vec)
          .not_inplace_safe()
          .access(E::functional)
          .typed(tr::view_with_shape(1)));
  add(OpSpec("tile.concat")
          .arg("src0", {Vec})
          .arg("src1", {Vec})
          .fixed(Vec)
          .not_inplace_safe()
          .access(E::functional));
  add(OpSpec("tile.cast")
          .arg("tile", {Vec})
          .scratch_arg("tmp", {Vec}, true)
          .kw({"target_type", "mode"})
          .fixed(Vec)
          .widening_cast()
          .forbid_alias({1})
          .access(E::functional)
          .typed(tr::cast())
          .note("no-alias {0} only when the output dtype is wider; a narrowing cast with saturation_mode=0 "
                "gets "
                "an InitMemRef tmp on A2/A3 (level-3 scratch)"));

  // ---- 2.3 elementwise / unary / scalar: inputs Vec, output fixed Vec ----------------
  auto vec_op = [&](const char* n) -> OpSpec& {
    return add(OpSpec(n).fixed(Vec).typed(tr::like_arg(0, Vec)));
  };
  for (const char* n :
       {"tile.add", "tile.sub", "tile.mul", "tile.div", "tile.maximum", "tile.minimum", "tile.and", "tile.or",
        "tile.shl", "tile.shr", "tile.part_add", "tile.part_mul", "tile.part_max", "tile.part_min"})
    vec_op(n).arg("lhs", {Vec}).arg("rhs", {Vec}).access(E::functional);
  for (const char* n : {"tile.rem", "tile.xor"})
    vec_op(n).arg("lhs", {Vec}).arg("rhs", {Vec}).scratch_arg("tmp", {Vec}).access(E::unknown);
  vec_op("tile.fmod").arg("lhs", {Vec}).arg("rhs", {Vec}).not_inplace_safe().access(E::functional);
  for (const char* n : {"tile.adds", "tile.subs", "tile.muls", "tile.divs", "tile.shls", "tile.shrs",
                        "tile.maximums", "tile.minimums"})
    vec_op(n).arg("lhs", {Vec}).arg("rhs").access(E::functional);
  vec_op("tile.rems").arg("lhs", {Vec}).arg("rhs").scratch_arg("tmp", {Vec}).access(E::unknown);
  for (const char* n : {"tile.fmods", "tile.ands", "tile.ors"})
    vec_op(n).arg("lhs", {Vec}).arg("rhs").not_inplace_safe().access(E::functional);
  vec_op("tile.xors")
      .arg("lhs", {Vec})
      .arg("rhs")
      .scratch_arg("tmp", {Vec})
      .not_inplace_safe()
      .access(E::unknown);
  for (const char* n : {"tile.addc", "tile.subc"})
    vec_op(n).arg("lhs", {Vec}).arg("rhs", {Vec}).arg("rhs2", {Vec}).access(E::functional);
  for (const char* n : {"tile.addsc", "tile.subsc"})
    vec_op(n).arg("lhs", {Vec}).arg("rhs").arg("rhs2", {Vec}).access(E::functional);
  for (const char* n : {"tile.exp", "tile.neg", "tile.sin", "tile.cos", "tile.sqrt", "tile.log", "tile.abs",
                        "tile.relu", "tile.not"})
    vec_op(n).arg("tile", {Vec}).access(E::functional);
  vec_op("tile.recip").arg("tile", {Vec}).not_inplace_safe().access(E::functional);
  vec_op("tile.rsqrt")
      .arg("tile", {Vec})
      .scratch_arg("tmp", {Vec}, true)
      .not_inplace_safe()
      .access(E::unknown);
  vec_op("tile.lrelu").arg("tile", {Vec}).arg("slope").access(E::functional);
  vec_op("tile.prelu")
      .arg("tile", {Vec})
      .arg("slope", {Vec})
      .scratch_arg("tmp", {Vec})
      .not_inplace_safe()
      .soc_forbid("a5", {0, 1})
      .access(E::unknown)
      .note("A5 target: only {0,1} forbidden (tmp is not read)");
  add(OpSpec("tile.sel")
          .arg("mask", {Vec})
          .arg("lhs", {Vec})
          .arg("rhs", {Vec})
          .scratch_arg("tmp", {Vec})
          .fixed(Vec)
          .forbid_alias({0, 3})
          .access(E::unknown)
          .typed(tr::like_arg(1, Vec)));
  add(OpSpec("tile.sels")
          .arg("mask", {Vec})
          .arg("src", {Vec})
          .scratch_arg("tmp", {Vec})
          .arg("scalar")
          .fixed(Vec)
          .forbid_alias({0})
          .access(E::unknown)
          .typed(tr::like_arg(1, Vec)));
  add(OpSpec("tile.cmp")
          .arg("lhs", {Vec})
          .arg("rhs", {Vec})
          .kw({"cmp_type"})
          .fixed(Vec)
          .access(E::functional));
  add(OpSpec("tile.cmps").arg("lhs", {Vec}).arg("rhs").kw({"cmp_type"}).fixed(Vec).access(E::functional));
  vec_op("tile.expands").arg("target", {Vec}).arg("scalar").access(E::functional);

  // ---- 2.4 broadcast / reduction / sort / gather / scatter ---------------------------
  for (const char* n :
       {"tile.row_expand", "tile.row_expand_sub", "tile.row_expand_mul", "tile.row_expand_div",
        "tile.row_expand_max", "tile.row_expand_min", "tile.row_expand_expdif"})
    vec_op(n).arg("tile", {Vec}).arg("row_vec", {Vec}).forbid_alias({1}).access(E::functional);
  vec_op("tile.row_expand_add")
      .arg("tile", {Vec})
      .arg("row_vec", {Vec})
      .scratch_arg("tmp", {Vec}, true)
      .forbid_alias({1})
      .access(E::unknown);
  for (const char* n :
       {"tile.col_expand", "tile.col_expand_add", "tile.col_expand_sub", "tile.col_expand_mul",
        "tile.col_expand_div", "tile.col_expand_max", "tile.col_expand_min", "tile.col_expand_expdif"})
    vec_op(n).arg("target", {Vec}).arg("col_tile", {Vec}).forbid_alias({1}).access(E::functional);
  for (const char* n : {"tile.row_sum", "tile.row_max", "tile.row_min", "tile.row_prod", "tile.row_argmax",
                        "tile.row_argmin", "tile.col_argmax", "tile.col_argmin"})
    add(OpSpec(n)
            .arg("tile", {Vec})
            .scratch_arg("tmp_tile", {Vec})
            .fixed(Vec)
            .not_inplace_safe()
            .access(E::unknown));
  add(OpSpec("tile.col_sum").arg("tile", {Vec}).scratch_arg("tmp_tile", {Vec}).fixed(Vec).access(E::unknown));
  for (const char* n : {"tile.col_max", "tile.col_min", "tile.col_prod"})
    add(OpSpec(n).arg("tile", {Vec}).fixed(Vec).access(E::functional));
  add(OpSpec("tile.sort32")
          .arg("src", {Vec})
          .arg("idx", {Vec})
          .scratch_arg("tmp", {Vec}, true)
          .fixed(Vec)
          .not_inplace_safe()
          .access(E::functional)
          .note("output last dim = 2x; A2/A3/A5: InitMemRef adds the compiler-owned tmp (level-3 scratch)"));
  for (const char* n : {"tile.mrgsort_format1", "tile.mrgsort"})
    add(OpSpec(n)
            .arg("src", {Vec})
            .arg("block_len")
            .fixed(Vec)
            .not_inplace_safe()
            .access(E::functional)
            .note("tile.mrgsort is the DSL name of tile.mrgsort_format1"));
  add(OpSpec("tile.mrgsort_format2")
          .arg("src0", {Vec})
          .arg("src1", {Vec})
          .arg("src2", {Vec})
          .arg("src3", {Vec})
          .scratch_arg("tmp", {Vec})
          .fixed(Vec)
          .not_inplace_safe()
          .access(E::unknown));
  add(OpSpec("tile.gather")
          .arg("src", {Vec})
          .arg("indices", {Vec})
          .scratch_arg("tmp", {Vec})
          .fixed(Vec)
          .not_inplace_safe()
          .access(E::unknown));
  add(OpSpec("tile.gatherb")
          .arg("src", {Vec})
          .arg("offset", {Vec})
          .fixed(Vec)
          .not_inplace_safe()
          .access(E::functional));
  add(OpSpec("tile.gather_mask")
          .arg("src", {Vec})
          .kw({"mask_pattern"})
          .fixed(Vec)
          .not_inplace_safe()
          .access(E::functional));
  add(OpSpec("tile.gather_compare")
          .arg("src", {Vec})
          .arg("kvalue")
          .scratch_arg("tmp", {Vec})
          .fixed(Vec)
          .not_inplace_safe()
          .access(E::unknown));
  add(OpSpec("tile.scatter")
          .arg("dst", {Vec})
          .arg("src", {Vec})
          .arg("indexes", {Vec})
          .fixed(Vec)
          .reuses(0)
          .access(E::unknown)
          .typed(tr::like_arg(0, Vec)));
  add(OpSpec("tile.scatter_mask")
          .arg("dst", {Vec})
          .arg("src", {Vec})
          .fixed(Vec)
          .reuses(0)
          .access(E::unknown)
          .typed(tr::like_arg(0, Vec)));
  add(OpSpec("tile.scatter_update")
          .arg("input", {Vec})
          .arg("index", {Vec})
          .arg("src", {Vec})
          .fixed(Vec)
          .reuses(0)
          .access(E::unknown)
          .typed(tr::like_arg(0, Vec)));
  add(OpSpec("tile.gather_row")
          .arg("dst")
          .arg("src")
          .arg("dst_offset")
          .arg("src_offset")
          .arg("shapes")
          .optional_arg("valid_shape")
          .fixed(Vec)
          .reuses(0)
          .access(E::unknown)
          .typed(tr::like_arg(0, Vec)));

  // ---- 2.5 cube (matmul family) ------------------------------------------------------------
  auto cube = [&](const char* n) -> OpSpec& { return add(OpSpec(n).fixed(Acc).access(E::functional)); };
  for (const char* n : {"tile.matmul", "tile.gemv", "tile.batch_matmul"})
    cube(n).arg("lhs", {Left}).arg("rhs", {Right}).typed(tr::matmul(0, 1));
  cube("tile.matmul_acc")
      .arg("acc", {Acc})
      .arg("lhs", {Left})
      .arg("rhs", {Right})
      .optional_arg("init_cond")
      .reuses(0)
      .typed(tr::like_arg(0, Acc))
      .note("in-place accumulate; output is the acc buffer");
  for (const char* n : {"tile.gemv_acc", "tile.batch_matmul_acc"})
    cube(n).arg("acc", {Acc}).arg("lhs", {Left}).arg("rhs", {Right}).reuses(0).typed(tr::like_arg(0, Acc));
  for (const char* n : {"tile.matmul_bias", "tile.gemv_bias"})
    cube(n).arg("lhs", {Left}).arg("rhs", {Right}).arg("bias", {Bias}).typed(tr::matmul(0, 1));
  cube("tile.matmul_mx")
      .arg("lhs", {Left})
      .arg("lhs_scale", {LeftScale})
      .arg("rhs", {Right})
      .arg("rhs_scale", {RightScale})
      .typed(tr::matmul(0, 2))
      .note("A5 only");
  cube("tile.matmul_mx_acc")
      .arg("acc", {Acc})
      .arg("lhs", {Left})
      .arg("lhs_scale", {LeftScale})
      .arg("rhs", {Right})
      .arg("rhs_scale", {RightScale})
      .reuses(0)
      .typed(tr::like_arg(0, Acc))
      .note("A5 only");
  cube("tile.matmul_mx_bias")
      .arg("lhs", {Left})
      .arg("lhs_scale", {LeftScale})
      .arg("rhs", {Right})
      .arg("rhs_scale", {RightScale})
      .arg("bias", {Bias})
      .typed(tr::matmul(0, 2))
      .note("A5 only");
  add(OpSpec("tile.tget_scale_addr")
          .arg("dst_scale")
          .arg("src")
          .inherit()
          .reuses(0)
          .access(E::unknown)
          .typed(tr::like_arg(0, std::nullopt, true)));

  // ---- 2.6 non-tile ops seen in kernels --------------------------------------------------------
  add(OpSpec("system.reserve_buffer")
          .kw({"name", "size", "base"})
          .returns(ResultKind::scalar)
          .without_memory_spec()
          .access(E::no_access)
          .typed(tr::scalar(DataType::INT32))
          .note("reserves a leading window in Mat (AIC) or Vec (AIV/InCore); base rewritten by "
                "AllocateMemoryAddr"));
  return ops;
}

}  // namespace pto_mem::pypto
