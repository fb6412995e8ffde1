// Byte sizes and slice windows of the tile IR.
//
//   [64,64] FP32 Vec = 16384; [32,32] FP16 = 2048; [8,16] FP4 = 64 (packed);
//   [4,64] FP32 Acc = 16*64*4 = 4096 (M padded to the L0C row alignment);
//   [16,128] INT32 Acc = 16384 on a2a3 / no backend, 8192 on a5.
//
// Errors are values (SizeError), never exceptions: a dynamic or non-positive
// dim, a size that overflows 64 bits, an Acc tile of rank < 2, a packed 4-bit
// slice origin that is not a whole byte.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "pto_mem/core/numeric.hpp"
#include "pto_mem/pypto/ir/types.hpp"
#include "pto_mem/pypto/soc/soc_policy.hpp"

namespace pto_mem::pypto {

struct SizeError {
  enum class Kind : std::uint8_t {
    dynamic_dim,              ///< dim `dim` is not a constant
    non_positive_dim,         ///< dim `dim` is <= 0
    overflow,                 ///< the byte count does not fit in 64 bits
    acc_rank,                 ///< an Acc tile needs rank >= 2
    rank_mismatch,            ///< slice offsets / shape do not match the parent's rank
    packed_origin_dynamic,    ///< a 4-bit slice origin is not a compile-time constant
    packed_origin_unaligned,  ///< a 4-bit slice origin is not a whole byte
  };
  Kind kind = Kind::overflow;
  std::size_t dim = 0;
  std::string message;
};

/// A value or the reason there is none.
template <class T>
struct Sized {
  std::optional<T> value;
  std::optional<SizeError> error;

  [[nodiscard]] explicit operator bool() const noexcept { return value.has_value(); }
  [[nodiscard]] const T& operator*() const { return *value; }
  [[nodiscard]] const T* operator->() const { return &*value; }
  static Sized fail(SizeError::Kind k, std::string message, std::size_t dim = 0) {
    return Sized{std::nullopt, SizeError{k, dim, std::move(message)}};
  }
};

/// Whole bytes of `elements` values of `dtype` (4-bit types packed, rounded up).
[[nodiscard]] constexpr std::optional<Addr> storage_bytes(std::uint64_t elements, DataType dtype) noexcept {
  auto bits = checked_mul(elements, storage_bits(dtype));
  if (!bits) return std::nullopt;
  return *bits / 8 + (*bits % 8 != 0 ? 1 : 0);
}

/// Bytes of one element, for the byte-width dtypes (0 for packed 4-bit ones).
[[nodiscard]] constexpr Addr element_bytes(DataType dtype) noexcept { return storage_bits(dtype) / 8; }

/// The dims as positive constants, or which dim is not.
namespace detail::sizes {
/// Why dim `i` of `shape` is not a positive constant (nullopt when it is).
template <class T>
[[nodiscard]] inline std::optional<Sized<T>> non_positive_dim(const std::vector<ExprPtr>& shape,
                                                              std::size_t i) {
  auto v = as_const_int(shape[i]);
  if (!v)
    return Sized<T>::fail(SizeError::Kind::dynamic_dim, "shape element " + std::to_string(i) + " is dynamic",
                          i);
  if (*v <= 0)
    return Sized<T>::fail(
        SizeError::Kind::non_positive_dim,
        "shape element " + std::to_string(i) + " is " + std::to_string(*v) + ", not positive", i);
  return std::nullopt;
}
}  // namespace detail::sizes

[[nodiscard]] inline Sized<std::vector<std::uint64_t>> static_positive_dims(
    const std::vector<ExprPtr>& shape) {
  std::vector<std::uint64_t> dims;
  dims.reserve(shape.size());
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (auto why = detail::sizes::non_positive_dim<std::vector<std::uint64_t>>(shape, i))
      return std::move(*why);
    dims.push_back(static_cast<std::uint64_t>(*as_const_int(shape[i])));
  }
  return {std::move(dims), std::nullopt};
}

/// The bytes a tile of `shape` and `dtype` takes in `space`: `ceil(prod(shape)·bits/8)`,
/// and in Acc `roundup(M, A)·N·elem·prod(batch)` with A the SoC's L0C M-row
/// alignment for `dtype`. (Reads the dims in place: InitMemRef sizes every
/// tile through here, and a vector of dims per tile was two allocations.)
[[nodiscard]] inline Sized<Addr> tile_bytes(const std::vector<ExprPtr>& shape, DataType dtype,
                                            std::optional<MemorySpace> space, const SocPolicy& soc) {
  for (std::size_t i = 0; i < shape.size(); ++i)
    if (auto why = detail::sizes::non_positive_dim<Addr>(shape, i)) return std::move(*why);
  auto overflow = [] {
    return Sized<Addr>::fail(SizeError::Kind::overflow, "the byte size overflows 64 bits");
  };
  const bool acc = space == MemorySpace::Acc;
  if (acc && shape.size() < 2)
    return Sized<Addr>::fail(
        SizeError::Kind::acc_rank,
        "an Acc tile needs rank >= 2 (rows and columns), this one has rank " + std::to_string(shape.size()));
  std::uint64_t elements = 1;
  for (std::size_t i = 0; i < shape.size(); ++i) {
    std::uint64_t d = static_cast<std::uint64_t>(*as_const_int(shape[i]));
    if (acc && i + 2 == shape.size()) {
      auto padded = align_up(d, soc.acc_m_alignment(dtype));
      if (!padded) return overflow();
      d = *padded;
    }
    auto e = checked_mul(elements, d);
    if (!e) return overflow();
    elements = *e;
  }
  auto bytes = storage_bytes(elements, dtype);
  if (!bytes) return overflow();
  return {*bytes, std::nullopt};
}

/// AllocBytes of a tile type in its own space.
[[nodiscard]] inline Sized<Addr> tile_bytes(const TileType& t, const SocPolicy& soc) {
  return tile_bytes(t.shape, t.dtype, t.space, soc);
}

/// The window a slice takes in its parent's buffer.
struct SliceWindow {
  ExprPtr byte_offset;       ///< relative to the parent window; folded when constant
  std::optional<Addr> span;  ///< byte envelope; nullopt when a dim is not a positive constant
};

/// `tile.slice(parent, shape=requested, offset=offsets)` over a row-major
/// parent of `parent_shape` and `dtype`:
///   linear = Σ o_i · Π_{j>i} P_j,  byte_offset = linear · elem_bytes
///   span   = StorageBytes(1 + Σ (s_i − 1) · Π_{j>i} P_j)
/// The span is the envelope from the first to the last touched element (not
/// prod(s)) and is not re-padded for Acc. For 4-bit dtypes the linear origin
/// must be a non-negative even constant.
[[nodiscard]] inline Sized<SliceWindow> slice_window(const std::vector<ExprPtr>& parent_shape, DataType dtype,
                                                     const std::vector<ExprPtr>& offsets,
                                                     const std::vector<ExprPtr>& requested_shape) {
  using K = SizeError::Kind;
  const std::size_t rank = parent_shape.size();
  if (offsets.size() != rank || requested_shape.size() != rank)
    return Sized<SliceWindow>::fail(K::rank_mismatch, "a slice of a rank-" + std::to_string(rank) +
                                                          " tile needs " + std::to_string(rank) +
                                                          " offsets and shape dims, got " +
                                                          std::to_string(offsets.size()) + " and " +
                                                          std::to_string(requested_shape.size()));
  // Row-major strides as expressions (constants fold).
  std::vector<ExprPtr> strides(rank);
  ExprPtr stride = int_imm(1);
  for (std::size_t i = rank; i-- > 0;) {
    strides[i] = stride;
    stride = mul(stride, parent_shape[i]);
  }
  ExprPtr linear = int_imm(0);
  for (std::size_t i = 0; i < rank; ++i) linear = add(linear, mul(offsets[i], strides[i]));

  SliceWindow w;
  if (is_packed_4bit(dtype)) {
    auto l = as_const_int(linear);
    if (!l)
      return Sized<SliceWindow>::fail(K::packed_origin_dynamic,
                                      "Packed 4-bit slice origins must be compile-time constants");
    if (*l < 0 || *l % 2 != 0)
      return Sized<SliceWindow>::fail(
          K::packed_origin_unaligned,
          "Packed 4-bit slice origins must be byte-aligned (element offset " + std::to_string(*l) + ")");
    w.byte_offset = int_imm(*l / 2);
  } else {
    w.byte_offset = mul(linear, int_imm(static_cast<std::int64_t>(element_bytes(dtype))));
  }

  auto parent = static_positive_dims(parent_shape);
  auto req = static_positive_dims(requested_shape);
  if (parent && req) {
    std::uint64_t elements = 1, pstride = 1;
    bool ok = true;
    for (std::size_t i = rank; i-- > 0 && ok;) {
      auto term = checked_mul((*req)[i] - 1, pstride);
      auto sum = term ? checked_add(elements, *term) : std::nullopt;
      auto next = checked_mul(pstride, (*parent)[i]);
      ok = sum && (next || i == 0);
      if (ok) {
        elements = *sum;
        pstride = next.value_or(0);
      }
    }
    auto bytes = ok ? storage_bytes(elements, dtype) : std::nullopt;
    if (!bytes) return Sized<SliceWindow>::fail(K::overflow, "the slice span overflows 64 bits");
    w.span = *bytes;
  }
  return {w, std::nullopt};
}

/// The accumulator NZ window of a slice, or
/// nullopt when the predicate rejects it and the row-major arithmetic of
/// slice_window applies unchanged.
///
/// An Acc tile in the NZ layout (blayout col_major, slayout row_major,
/// fractal 1024: the implicit Acc layout unless its view says otherwise)
/// with 4-byte elements stores 16 x 16 boxes column panel by column panel:
/// the 16 columns starting at c occupy the contiguous bytes
/// [c·R·4, (c+16)·R·4) of an R-row tile. So a window that keeps every row
/// (row offset 0, R rows) and starts at a panel edge (c a multiple of 16, or
/// a runtime value, taken on trust as PyPTO's design does) is
///   byte_offset = c · R · elem_bytes,  span = cols · R · elem_bytes.
/// Accepted only when the parent is 2-D, static, box-aligned (R a multiple
/// of 16 and of the SoC's Acc row alignment, so no padding rows; C a multiple
/// of 16), and the window's column count is a whole number of panels that
/// ends inside the parent (a constant start is checked). A partial panel is
/// rejected: its touched bytes are not `cols · R` contiguous ones.
[[nodiscard]] inline std::optional<SliceWindow> acc_nz_slice_window(
    const TileType& parent, const std::vector<ExprPtr>& offsets, const std::vector<ExprPtr>& requested_shape,
    const SocPolicy& soc) {
  constexpr std::int64_t box = 16;
  if (parent.space != MemorySpace::Acc || element_bytes(parent.dtype) != 4) return std::nullopt;
  if (parent.shape.size() != 2 || offsets.size() != 2 || requested_shape.size() != 2) return std::nullopt;
  const auto imp = implicit_layout(MemorySpace::Acc);
  auto layout = [&](std::string_view name, std::string_view implicit) {
    const std::string_view v = parent.view.layout(name);
    return v.empty() ? implicit : v;
  };
  std::int64_t fractal = imp->fractal;
  if (const ExprPtr* f = parent.view.field("fractal")) {
    auto v = as_const_int(*f);
    if (!v) return std::nullopt;
    fractal = *v;
  }
  if (layout("blayout", imp->blayout) != "col_major" || layout("slayout", imp->slayout) != "row_major" ||
      fractal != 1024)
    return std::nullopt;
  const auto rows = as_const_int(parent.shape[0]), cols = as_const_int(parent.shape[1]);
  if (!rows || !cols || *rows <= 0 || *cols <= 0 || *rows % box != 0 || *cols % box != 0) return std::nullopt;
  const auto acc_align = static_cast<std::int64_t>(soc.acc_m_alignment(parent.dtype));
  if (acc_align <= 0 || *rows % acc_align != 0) return std::nullopt;
  const auto r0 = as_const_int(offsets[0]), nrows = as_const_int(requested_shape[0]);
  const auto ncols = as_const_int(requested_shape[1]);
  if (r0 != 0 || nrows != *rows || !ncols || *ncols <= 0 || *ncols % box != 0 || *ncols > *cols)
    return std::nullopt;
  if (auto c = as_const_int(offsets[1]); c && (*c < 0 || *c % box != 0 || *c + *ncols > *cols))
    return std::nullopt;
  const auto panel_bytes = checked_mul(static_cast<std::uint64_t>(*rows), std::uint64_t{4});  // one column
  const auto span =
      panel_bytes ? checked_mul(*panel_bytes, static_cast<std::uint64_t>(*ncols)) : std::nullopt;
  if (!span || *panel_bytes > static_cast<std::uint64_t>(INT64_MAX)) return std::nullopt;
  SliceWindow w;
  w.byte_offset = mul(offsets[1], int_imm(static_cast<std::int64_t>(*panel_bytes)));
  w.span = *span;
  return w;
}

}  // namespace pto_mem::pypto
