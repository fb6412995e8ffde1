// Result-type rules for the common ops, so hand-written text may leave an
// assignment unannotated (`z = tile.add(x, y)`). An op without a rule needs
// an annotation; a rule returns null when the arguments do not tell.
#pragma once

#include <cstddef>
#include <optional>
#include <utility>
#include <vector>

#include "pto_mem/pypto/ir/expr_type.hpp"
#include "pto_mem/pypto/ops/op_spec.hpp"

namespace pto_mem::pypto::type_rules {

namespace detail {

inline const TileType* tile_arg(const Call& c, std::size_t i) {
  // Only a variable's type can be a tile, and the variable owns it (a type
  // expr_type() computed would die with the temporary).
  if (i >= c.args.size()) return nullptr;
  const auto* v = c.args[i] ? c.args[i]->as<VarExpr>() : nullptr;
  return v ? as_tile(v->var->type) : nullptr;
}

inline std::optional<std::vector<ExprPtr>> shape_arg(const Call& c, std::size_t i) {
  if (i >= c.args.size()) return std::nullopt;
  const auto* s = as_sequence(c.args[i]);
  if (!s) return std::nullopt;
  return *s;
}

inline std::optional<MemorySpace> kwarg_space(const Call& c, const char* name = "target_memory") {
  if (const ExprPtr* k = c.kwarg(name)) return as_space(*k);
  return std::nullopt;
}

inline std::optional<DataType> kwarg_dtype(const Call& c, const char* name) {
  if (const ExprPtr* k = c.kwarg(name)) return as_dtype(*k);
  return std::nullopt;
}

/// Keeps only valid_shape of a view: layouts belong to the old space.
inline TileView valid_only(const TileView& v) {
  TileView out;
  if (const ExprPtr* vs = v.field("valid_shape")) out.fields.push_back(Kwarg{"valid_shape", *vs});
  return out;
}

}  // namespace detail

/// Same shape and dtype as tile argument k; the space is the op's fixed or
/// kwarg space, or argument k's (inherit-input).
inline TypeRule like_arg(std::size_t k, std::optional<MemorySpace> space = std::nullopt,
                         bool inherit = false) {
  return [k, space, inherit](const Call& c) -> TypePtr {
    const auto* t = detail::tile_arg(c, k);
    if (!t) return nullptr;
    std::optional<MemorySpace> s = inherit ? t->space : space;
    if (auto kw = detail::kwarg_space(c); kw && !inherit) s = kw;
    return tile_type(t->shape, t->dtype, s, nullptr, detail::valid_only(t->view));
  };
}

/// Shape from list argument `shape_index`, dtype from tile argument 0 (or the
/// `dtype` kwarg), space inherited from argument 0: views.
inline TypeRule view_with_shape(std::size_t shape_index) {
  return [shape_index](const Call& c) -> TypePtr {
    const auto* t = detail::tile_arg(c, 0);
    auto shape = detail::shape_arg(c, shape_index);
    if (!t || !shape) return nullptr;
    // PyPTO: tile.slice's valid_shape argument (after shape and offset) and
    // pad_value kwarg are the result's view.
    TileView view;
    if (c.args.size() > shape_index + 2)
      if (const auto* vs = as_sequence(c.args[shape_index + 2]);
          vs && !vs->empty() && !pto_mem::pypto::detail::same_exprs(*vs, *shape))
        view.fields.push_back(Kwarg{"valid_shape", c.args[shape_index + 2]});
    if (const ExprPtr* pad = c.kwarg("pad_value")) view.fields.push_back(Kwarg{"pad", *pad});
    return tile_type(std::move(*shape), detail::kwarg_dtype(c, "dtype").value_or(t->dtype), t->space, nullptr,
                     std::move(view));
  };
}

/// tile.transpose_view / tile.transpose: the last two dims (or axis1, axis2) swapped.
inline TypeRule transposed(bool axes_from_args) {
  return [axes_from_args](const Call& c) -> TypePtr {
    const auto* t = detail::tile_arg(c, 0);
    if (!t || t->shape.size() < 2) return nullptr;
    auto shape = t->shape;
    std::size_t a = shape.size() - 2, b = shape.size() - 1;
    if (axes_from_args) {
      auto x = c.args.size() > 2 ? as_const_int(c.args[1]) : std::nullopt;
      auto y = c.args.size() > 2 ? as_const_int(c.args[2]) : std::nullopt;
      if (!x || !y || *x < 0 || *y < 0 || static_cast<std::size_t>(*x) >= shape.size() ||
          static_cast<std::size_t>(*y) >= shape.size())
        return nullptr;
      a = static_cast<std::size_t>(*x);
      b = static_cast<std::size_t>(*y);
    }
    std::swap(shape[a], shape[b]);
    return tile_type(std::move(shape), t->dtype, t->space);
  };
}

/// tile.load: shape = argument 2, dtype = the tensor's, space = target_memory.
inline TypeRule load() {
  return [](const Call& c) -> TypePtr {
    auto shape = detail::shape_arg(c, 2);
    auto dtype = c.args.empty() ? std::nullopt : dtype_of(expr_type(c.args[0]));
    if (!shape || !dtype) return nullptr;
    // PyPTO: a narrower valid_shape (argument 3, or the `valid_shape=`
    // keyword the DSL's pl.load takes) is the result's view.
    TileView view;
    const ExprPtr* valid = c.args.size() > 3 ? &c.args[3] : c.kwarg("valid_shape");
    if (valid)
      if (const auto* vs = as_sequence(*valid);
          vs && !vs->empty() && !pto_mem::pypto::detail::same_exprs(*vs, *shape))
        view.fields.push_back(Kwarg{"valid_shape", *valid});
    return tile_type(std::move(*shape), *dtype, detail::kwarg_space(c), nullptr, std::move(view));
  };
}

/// tile.create / tile.full / tile.ci ...: shape from argument `shape_index`,
/// dtype from the `dtype` kwarg, space fixed or from target_memory.
inline TypeRule created(std::size_t shape_index, std::optional<MemorySpace> fixed_space = std::nullopt,
                        DataType default_dtype = DataType::FP32) {
  return [=](const Call& c) -> TypePtr {
    auto shape = detail::shape_arg(c, shape_index);
    if (!shape) return nullptr;
    auto s = fixed_space ? fixed_space : detail::kwarg_space(c);
    return tile_type(std::move(*shape), detail::kwarg_dtype(c, "dtype").value_or(default_dtype), s);
  };
}

/// tile.fillpad / tile.fillpad_inplace: argument 0's shape and dtype in Vec;
/// the padding makes the whole tile valid, so the view drops valid_shape,
/// keeps the input's layout fields and records the pad value (`pad_value=`,
/// PadValue.zero when absent), as PyPTO's rule does.
inline TypeRule padded() {
  return [](const Call& c) -> TypePtr {
    const auto* t = detail::tile_arg(c, 0);
    if (!t) return nullptr;
    TileView view;
    for (const auto& f : t->view.fields)
      if (f.name != "valid_shape" && f.name != "pad") view.fields.push_back(f);
    const ExprPtr* pad = c.kwarg("pad_value");
    view.fields.push_back(Kwarg{"pad", pad ? *pad : enum_imm("PadValue", "zero")});
    return tile_type(t->shape, t->dtype, MemorySpace::Vec, nullptr, std::move(view));
  };
}

/// tile.set_validshape(t, rows, cols): argument 0's type (space inherited)
/// whose view keeps t's layout fields and has valid_shape [rows, cols].
inline TypeRule with_valid_shape() {
  return [](const Call& c) -> TypePtr {
    const auto* t = detail::tile_arg(c, 0);
    if (!t || c.args.size() < 3 || !c.args[1] || !c.args[2]) return nullptr;
    TileView view;
    view.fields.push_back(Kwarg{"valid_shape", list({c.args[1], c.args[2]})});
    for (const auto& f : t->view.fields)
      if (f.name != "valid_shape") view.fields.push_back(f);
    return tile_type(t->shape, t->dtype, t->space, nullptr, std::move(view));
  };
}

/// The type of argument k as written (tile.store's output tensor).
inline TypeRule type_of_arg(std::size_t k) {
  return [k](const Call& c) -> TypePtr { return k < c.args.size() ? expr_type(c.args[k]) : nullptr; };
}

/// tile.move / tile.extract: argument 0's shape (or list argument
/// `shape_index`) and dtype in the target_memory space (default Vec).
inline TypeRule moved(std::optional<std::size_t> shape_index = std::nullopt) {
  return [shape_index](const Call& c) -> TypePtr {
    const auto* t = detail::tile_arg(c, 0);
    if (!t) return nullptr;
    auto shape = t->shape;
    if (shape_index) {
      auto s = detail::shape_arg(c, *shape_index);
      if (!s) return nullptr;
      shape = std::move(*s);
    }
    auto space = detail::kwarg_space(c).value_or(MemorySpace::Vec);
    if (shape_index) return tile_type(std::move(shape), t->dtype, space);
    return tile_type(std::move(shape), t->dtype, space, nullptr,
                     moved_view(t->view, t->space, space, c.kwarg("blayout"), c.kwarg("slayout")));
  };
}

/// Matmul family: `[.., M, K] x [.., K, N] -> [.., M, N]` in Acc, FP32 (INT32
/// for integer inputs). lhs and rhs are arguments `lhs` and `rhs`.
inline TypeRule matmul(std::size_t lhs, std::size_t rhs) {
  return [lhs, rhs](const Call& c) -> TypePtr {
    const auto* l = detail::tile_arg(c, lhs);
    const auto* r = detail::tile_arg(c, rhs);
    if (!l || !r || l->shape.size() < 2 || r->shape.size() < 2) return nullptr;
    auto shape = std::vector<ExprPtr>(l->shape.begin(), l->shape.end() - 1);
    shape.push_back(r->shape.back());
    return tile_type(std::move(shape), is_integer(l->dtype) ? DataType::INT32 : DataType::FP32,
                     MemorySpace::Acc);
  };
}

/// tile.cast: argument 0's shape, dtype from `target_type`, Vec.
inline TypeRule cast() {
  return [](const Call& c) -> TypePtr {
    const auto* t = detail::tile_arg(c, 0);
    auto dt = detail::kwarg_dtype(c, "target_type");
    if (!t || !dt) return nullptr;
    return tile_type(t->shape, *dt, MemorySpace::Vec, nullptr, detail::valid_only(t->view));
  };
}

/// A scalar of a fixed dtype, or of argument k's dtype.
inline TypeRule scalar(DataType dtype) {
  return [dtype](const Call&) -> TypePtr { return scalar_type(dtype); };
}
inline TypeRule scalar_of_arg(std::size_t k) {
  return [k](const Call& c) -> TypePtr {
    auto d = k < c.args.size() ? dtype_of(expr_type(c.args[k])) : std::nullopt;
    return d ? scalar_type(*d) : nullptr;
  };
}

}  // namespace pto_mem::pypto::type_rules
