// Types: Tensor (DDR data), Tile (on-chip data), Scalar, Ptr (an allocation
// base) and tuples (multiple results). Immutable and shared; the with_*
// helpers return a modified copy.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "pto_mem/pypto/ir/data_type.hpp"
#include "pto_mem/pypto/ir/expr.hpp"
#include "pto_mem/pypto/ir/memory_space.hpp"
#include "pto_mem/pypto/ir/memref.hpp"

namespace pto_mem::pypto {

enum class TypeKind : std::uint8_t { Tensor, Tile, Scalar, Ptr, Tuple, Unknown };

struct Type {
  const TypeKind kind;

  template <class T>
  [[nodiscard]] const T* as() const noexcept {
    return kind == T::static_kind ? static_cast<const T*>(this) : nullptr;
  }
  template <class T>
  [[nodiscard]] bool is() const noexcept {
    return kind == T::static_kind;
  }

 protected:
  explicit Type(TypeKind k) noexcept : kind(k) {}
  Type(const Type&) = default;
  ~Type() = default;
};

/// `TileView(valid_shape=[48, 64], blayout=TileLayout.col_major, ...)`: the
/// fields the author wrote, in order. Planning reads only `valid_shape` and,
/// as opaque metadata, the layout triple; everything else round-trips.
struct TileView {
  std::vector<Kwarg> fields;

  [[nodiscard]] bool empty() const noexcept { return fields.empty(); }
  [[nodiscard]] const ExprPtr* field(std::string_view name) const noexcept {
    for (const auto& f : fields)
      if (f.name == name) return &f.value;
    return nullptr;
  }
  /// The `valid_shape` dims, or null when the view does not restrict them.
  [[nodiscard]] const std::vector<ExprPtr>* valid_shape() const noexcept {
    const ExprPtr* v = field("valid_shape");
    return v ? as_sequence(*v) : nullptr;
  }
  /// `blayout` / `slayout` value name (`row_major`), or empty.
  [[nodiscard]] std::string_view layout(std::string_view name) const noexcept {
    if (const ExprPtr* v = field(name))
      if (const auto* e = (*v)->as<EnumImm>()) return e->value;
    return {};
  }
};

/// The layout a tile has in a space when its view does not say otherwise
/// The printer omits view fields equal to these.
struct ImplicitLayout {
  std::string_view blayout;  ///< empty: either layout is implicit (Right)
  std::string_view slayout;
  std::int64_t fractal = 512;
};

[[nodiscard]] constexpr std::optional<ImplicitLayout> implicit_layout(MemorySpace s) noexcept {
  switch (s) {
    case MemorySpace::Vec: return ImplicitLayout{"row_major", "none_box", 512};
    case MemorySpace::Mat:
    case MemorySpace::Left: return ImplicitLayout{"col_major", "row_major", 512};
    case MemorySpace::Right: return ImplicitLayout{"", "col_major", 512};
    case MemorySpace::Acc: return ImplicitLayout{"col_major", "row_major", 1024};
    default: return std::nullopt;
  }
}

/// True when view field `f` says nothing beyond the implicit layout of `space`.
[[nodiscard]] inline bool is_implicit_view_field(const Kwarg& f, std::optional<MemorySpace> space) noexcept {
  if (!space || !f.value) return false;
  const auto imp = implicit_layout(*space);
  if (!imp) return false;
  if (f.name == "fractal") return as_const_int(f.value) == imp->fractal;
  const auto* e = f.value->as<EnumImm>();
  if (!e || e->enum_name != "TileLayout") return false;
  if (f.name == "blayout")
    return imp->blayout.empty() ? (e->value == "row_major" || e->value == "col_major")
                                : e->value == imp->blayout;
  if (f.name == "slayout") return e->value == imp->slayout;
  return false;
}

/// The view of `tile.move(src, target_memory=target[, blayout=, slayout=])`'s
/// result, by PyPTO's move type rule: where the target has a boxed layout of
/// its own (Mat, Left, Acc) the result takes it; into a flat space (Vec) it
/// keeps the source's effective blayout/slayout (a Mat source stays
/// col_major/row_major); Right takes blayout=row_major; explicit `blayout` /
/// `slayout` kwargs win. valid_shape and pad carry over, fractal never does.
/// Only fields that differ from the target's implicit layout are stored.
[[nodiscard]] inline TileView moved_view(const TileView& src_view, std::optional<MemorySpace> src_space,
                                         MemorySpace target, const ExprPtr* blayout_kw = nullptr,
                                         const ExprPtr* slayout_kw = nullptr) {
  auto layout_enum = [](std::string_view v) { return enum_imm("TileLayout", std::string(v)); };
  const auto dst = implicit_layout(target);
  const bool flat = !dst || (dst->blayout == "row_major" && dst->slayout == "none_box");
  std::string blayout, slayout;
  if (flat) {
    const auto src_imp = src_space ? implicit_layout(*src_space) : std::nullopt;
    blayout = src_view.layout("blayout");
    slayout = src_view.layout("slayout");
    if (blayout.empty() && src_imp) blayout = src_imp->blayout;
    if (slayout.empty() && src_imp) slayout = src_imp->slayout;
  } else {
    blayout = dst->blayout;
    slayout = dst->slayout;
  }
  if (target == MemorySpace::Right) blayout = "row_major";
  TileView out;
  if (const ExprPtr* vs = src_view.field("valid_shape")) out.fields.push_back(Kwarg{"valid_shape", *vs});
  auto put = [&](const char* name, const ExprPtr* kw, const std::string& derived) {
    ExprPtr v = kw ? *kw : (derived.empty() ? nullptr : layout_enum(derived));
    if (!v) return;
    Kwarg f{name, v};
    if (!is_implicit_view_field(f, target)) out.fields.push_back(std::move(f));
  };
  put("blayout", blayout_kw, blayout);
  put("slayout", slayout_kw, slayout);
  if (const ExprPtr* pad = src_view.field("pad")) out.fields.push_back(Kwarg{"pad", *pad});
  return out;
}

/// DDR data: kernel parameters, store results.
struct TensorType final : Type {
  static constexpr TypeKind static_kind = TypeKind::Tensor;
  std::vector<ExprPtr> shape;
  DataType dtype;
  MemRefPtr memref;
  TensorType(std::vector<ExprPtr> s, DataType d, MemRefPtr m)
      : Type(static_kind), shape(std::move(s)), dtype(d), memref(std::move(m)) {}
};

/// On-chip data. Printed `Tile[shape, dtype, MemRef?, space?, TileView?]`.
struct TileType final : Type {
  static constexpr TypeKind static_kind = TypeKind::Tile;
  std::vector<ExprPtr> shape;  ///< dims may be symbolic (a VarExpr); passes reject what must be static
  DataType dtype;
  MemRefPtr memref;
  std::optional<MemorySpace> space;  ///< nullopt until InferTileMemorySpace
  TileView view;
  TileType(std::vector<ExprPtr> s, DataType d, MemRefPtr m, std::optional<MemorySpace> sp, TileView v)
      : Type(static_kind),
        shape(std::move(s)),
        dtype(d),
        memref(std::move(m)),
        space(sp),
        view(std::move(v)) {}
};

struct ScalarType final : Type {
  static constexpr TypeKind static_kind = TypeKind::Scalar;
  DataType dtype;
  explicit ScalarType(DataType d) noexcept : Type(static_kind), dtype(d) {}
};

/// The type of an allocation base.
struct PtrType final : Type {
  static constexpr TypeKind static_kind = TypeKind::Ptr;
  PtrType() noexcept : Type(static_kind) {}
};

/// Several results (`-> tuple[Tensor[...], Tensor[...]]`).
struct TupleType final : Type {
  static constexpr TypeKind static_kind = TypeKind::Tuple;
  std::vector<TypePtr> elems;
  explicit TupleType(std::vector<TypePtr> e) : Type(static_kind), elems(std::move(e)) {}
};

/// The result of an op that yields no usable value (PyPTO's UnknownType:
/// `fence = pl.system.fence()`). Printed `UnknownType`.
struct UnknownType final : Type {
  static constexpr TypeKind static_kind = TypeKind::Unknown;
  UnknownType() noexcept : Type(static_kind) {}
};

// ---- factories --------------------------------------------------------------------

[[nodiscard]] inline std::vector<ExprPtr> make_shape(const std::vector<std::int64_t>& dims) {
  std::vector<ExprPtr> s;
  s.reserve(dims.size());
  for (auto d : dims) s.push_back(int_imm(d));
  return s;
}

[[nodiscard]] inline TypePtr tensor_type(std::vector<ExprPtr> shape, DataType dtype,
                                         MemRefPtr memref = nullptr) {
  return make_node<TensorType>(std::move(shape), dtype, std::move(memref));
}
[[nodiscard]] inline TypePtr tensor_type(const std::vector<std::int64_t>& shape, DataType dtype,
                                         MemRefPtr memref = nullptr) {
  return tensor_type(make_shape(shape), dtype, std::move(memref));
}
/// `tensor_type({64, 64}, DataType::FP32)`.
[[nodiscard]] inline TypePtr tensor_type(std::initializer_list<std::int64_t> shape, DataType dtype,
                                         MemRefPtr memref = nullptr) {
  return tensor_type(make_shape(shape), dtype, std::move(memref));
}
[[nodiscard]] inline TypePtr tile_type(std::vector<ExprPtr> shape, DataType dtype,
                                       std::optional<MemorySpace> space = std::nullopt,
                                       MemRefPtr memref = nullptr, TileView view = {}) {
  return make_node<TileType>(std::move(shape), dtype, std::move(memref), space, std::move(view));
}
[[nodiscard]] inline TypePtr tile_type(const std::vector<std::int64_t>& shape, DataType dtype,
                                       std::optional<MemorySpace> space = std::nullopt,
                                       MemRefPtr memref = nullptr, TileView view = {}) {
  return tile_type(make_shape(shape), dtype, space, std::move(memref), std::move(view));
}
/// `tile_type({64, 64}, DataType::FP32, MemorySpace::Vec)`.
[[nodiscard]] inline TypePtr tile_type(std::initializer_list<std::int64_t> shape, DataType dtype,
                                       std::optional<MemorySpace> space = std::nullopt,
                                       MemRefPtr memref = nullptr, TileView view = {}) {
  return tile_type(make_shape(shape), dtype, space, std::move(memref), std::move(view));
}
[[nodiscard]] inline TypePtr scalar_type(DataType dtype) { return make_node<ScalarType>(dtype); }
[[nodiscard]] inline TypePtr ptr_type() {
  static const TypePtr p = make_node<PtrType>();
  return p;
}
[[nodiscard]] inline TypePtr unknown_type() {
  static const TypePtr u = make_node<UnknownType>();
  return u;
}
[[nodiscard]] inline TypePtr tuple_type(std::vector<TypePtr> elems) {
  return make_node<TupleType>(std::move(elems));
}

// ---- queries ------------------------------------------------------------------------

[[nodiscard]] inline const TileType* as_tile(const TypePtr& t) noexcept {
  return t ? t->as<TileType>() : nullptr;
}
[[nodiscard]] inline const TensorType* as_tensor(const TypePtr& t) noexcept {
  return t ? t->as<TensorType>() : nullptr;
}
[[nodiscard]] inline bool is_tile(const TypePtr& t) noexcept { return as_tile(t) != nullptr; }
[[nodiscard]] inline bool is_tensor(const TypePtr& t) noexcept { return as_tensor(t) != nullptr; }

/// The MemRef of a Tile or Tensor type, else null.
[[nodiscard]] inline MemRefPtr memref_of(const TypePtr& t) noexcept {
  if (const auto* tile = as_tile(t)) return tile->memref;
  if (const auto* tensor = as_tensor(t)) return tensor->memref;
  return nullptr;
}

/// The same MemRef without a reference count (for hot loops that only read it).
[[nodiscard]] inline const MemRef* memref_ptr(const TypePtr& t) noexcept {
  if (const auto* tile = as_tile(t)) return tile->memref.get();
  if (const auto* tensor = as_tensor(t)) return tensor->memref.get();
  return nullptr;
}

/// A tile's space (nullopt while not inferred); DDR for tensors.
[[nodiscard]] inline std::optional<MemorySpace> memory_space_of(const TypePtr& t) noexcept {
  if (const auto* tile = as_tile(t)) return tile->space;
  if (as_tensor(t)) return MemorySpace::DDR;
  return std::nullopt;
}

[[nodiscard]] inline const std::vector<ExprPtr>* shape_of(const TypePtr& t) noexcept {
  if (const auto* tile = as_tile(t)) return &tile->shape;
  if (const auto* tensor = as_tensor(t)) return &tensor->shape;
  return nullptr;
}

[[nodiscard]] inline std::optional<DataType> dtype_of(const TypePtr& t) noexcept {
  if (!t) return std::nullopt;
  if (const auto* tile = t->as<TileType>()) return tile->dtype;
  if (const auto* tensor = t->as<TensorType>()) return tensor->dtype;
  if (const auto* s = t->as<ScalarType>()) return s->dtype;
  return std::nullopt;
}

/// Every dim as a constant, or nullopt if any is symbolic.
[[nodiscard]] inline std::optional<std::vector<std::int64_t>> static_shape(
    const std::vector<ExprPtr>& shape) {
  std::vector<std::int64_t> out;
  out.reserve(shape.size());
  for (const auto& d : shape) {
    auto v = as_const_int(d);
    if (!v) return std::nullopt;
    out.push_back(*v);
  }
  return out;
}

// ---- modified copies -------------------------------------------------------------------

/// The tile type with memory space `s` (other types are returned unchanged).
[[nodiscard]] inline TypePtr with_memory_space(const TypePtr& t, std::optional<MemorySpace> s) {
  const auto* tile = as_tile(t);
  if (!tile || tile->space == s) return t;
  return tile_type(tile->shape, tile->dtype, s, tile->memref, tile->view);
}

/// The tile or tensor type with MemRef `m` (other types are returned unchanged).
[[nodiscard]] inline TypePtr with_memref(const TypePtr& t, MemRefPtr m) {
  if (const auto* tile = as_tile(t)) {
    if (tile->memref == m) return t;
    return tile_type(tile->shape, tile->dtype, tile->space, std::move(m), tile->view);
  }
  if (const auto* tensor = as_tensor(t)) {
    if (tensor->memref == m) return t;
    return tensor_type(tensor->shape, tensor->dtype, std::move(m));
  }
  return t;
}

/// `t` with MemRef `m` and, for a tile, space `s` (nullopt: none): one new
/// type, not two.
[[nodiscard]] inline TypePtr with_memref_and_space(const TypePtr& t, MemRefPtr m,
                                                   std::optional<MemorySpace> s) {
  const auto* tile = as_tile(t);
  if (!tile) return with_memref(t, std::move(m));
  if (tile->memref == m && tile->space == s) return t;
  return tile_type(tile->shape, tile->dtype, s, std::move(m), tile->view);
}

[[nodiscard]] inline TypePtr with_view(const TypePtr& t, TileView v) {
  const auto* tile = as_tile(t);
  if (!tile) return t;
  return tile_type(tile->shape, tile->dtype, tile->space, tile->memref, std::move(v));
}

// ---- structural equality --------------------------------------------------------------------

[[nodiscard]] inline bool same_type(const TypePtr& a, const TypePtr& b) noexcept {
  if (a == b) return true;
  if (!a || !b || a->kind != b->kind) return false;
  switch (a->kind) {
    case TypeKind::Tensor: {
      const auto *x = a->as<TensorType>(), *y = b->as<TensorType>();
      return x->dtype == y->dtype && detail::same_exprs(x->shape, y->shape) &&
             same_memref(x->memref, y->memref);
    }
    case TypeKind::Tile: {
      const auto *x = a->as<TileType>(), *y = b->as<TileType>();
      if (x->dtype != y->dtype || x->space != y->space || !detail::same_exprs(x->shape, y->shape) ||
          !same_memref(x->memref, y->memref) || x->view.fields.size() != y->view.fields.size())
        return false;
      for (std::size_t i = 0; i < x->view.fields.size(); ++i)
        if (x->view.fields[i].name != y->view.fields[i].name ||
            !same_expr(x->view.fields[i].value, y->view.fields[i].value))
          return false;
      return true;
    }
    case TypeKind::Scalar: return a->as<ScalarType>()->dtype == b->as<ScalarType>()->dtype;
    case TypeKind::Ptr:
    case TypeKind::Unknown: return true;
    case TypeKind::Tuple: {
      const auto &x = a->as<TupleType>()->elems, &y = b->as<TupleType>()->elems;
      if (x.size() != y.size()) return false;
      for (std::size_t i = 0; i < x.size(); ++i)
        if (!same_type(x[i], y[i])) return false;
      return true;
    }
  }
  return false;
}

}  // namespace pto_mem::pypto
