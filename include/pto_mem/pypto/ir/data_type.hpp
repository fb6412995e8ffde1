// Element types of tensors, tiles and scalars, with the widths the sizing
// rules need: 4-bit types are packed two per byte,
// BOOL has bit width 1 but is stored as a byte.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace pto_mem::pypto {

enum class DataType : std::uint8_t {
  FP32,
  FP16,
  BF16,
  INT8,
  INT16,
  INT32,
  INT64,
  UINT8,
  UINT16,
  UINT32,
  UINT64,
  BOOL,
  INDEX,
  FP4,
  INT4,
  UINT4,
  HF4,
  HF8,
  FP8E4M3FN,
  FP8E5M2,
  FP8E8M0,
};

inline constexpr std::size_t data_type_count = 21;

inline constexpr std::array<DataType, data_type_count> all_data_types = {
    DataType::FP32,   DataType::FP16,  DataType::BF16,  DataType::INT8,      DataType::INT16,
    DataType::INT32,  DataType::INT64, DataType::UINT8, DataType::UINT16,    DataType::UINT32,
    DataType::UINT64, DataType::BOOL,  DataType::INDEX, DataType::FP4,       DataType::INT4,
    DataType::UINT4,  DataType::HF4,   DataType::HF8,   DataType::FP8E4M3FN, DataType::FP8E5M2,
    DataType::FP8E8M0};

[[nodiscard]] constexpr std::string_view to_string(DataType t) noexcept {
  constexpr std::array<std::string_view, data_type_count> names = {
      "FP32", "FP16",  "BF16", "INT8", "INT16", "INT32", "INT64", "UINT8",     "UINT16",  "UINT32", "UINT64",
      "BOOL", "INDEX", "FP4",  "INT4", "UINT4", "HF4",   "HF8",   "FP8E4M3FN", "FP8E5M2", "FP8E8M0"};
  const auto i = static_cast<std::size_t>(t);
  return i < names.size() ? names[i] : std::string_view("?");
}

[[nodiscard]] constexpr std::optional<DataType> parse_data_type(std::string_view name) noexcept {
  for (DataType t : all_data_types)
    if (to_string(t) == name) return t;
  return std::nullopt;
}

/// Bits a value occupies in storage: 4 for the packed 4-bit types, 8 for BOOL.
[[nodiscard]] constexpr unsigned storage_bits(DataType t) noexcept {
  switch (t) {
    case DataType::FP32:
    case DataType::INT32:
    case DataType::UINT32: return 32;
    case DataType::FP16:
    case DataType::BF16:
    case DataType::INT16:
    case DataType::UINT16: return 16;
    case DataType::INT64:
    case DataType::UINT64:
    case DataType::INDEX: return 64;
    case DataType::FP4:
    case DataType::INT4:
    case DataType::UINT4:
    case DataType::HF4: return 4;
    default: return 8;  // INT8, UINT8, BOOL, HF8, FP8*
  }
}

/// The logical bit width (BOOL = 1); used where PyPTO compares widths,
/// e.g. a widening tile.cast.
[[nodiscard]] constexpr unsigned bit_width(DataType t) noexcept {
  return t == DataType::BOOL ? 1u : storage_bits(t);
}

[[nodiscard]] constexpr bool is_packed_4bit(DataType t) noexcept { return storage_bits(t) == 4; }

[[nodiscard]] constexpr bool is_integer(DataType t) noexcept {
  switch (t) {
    case DataType::INT4:
    case DataType::INT8:
    case DataType::INT16:
    case DataType::INT32:
    case DataType::INT64:
    case DataType::UINT4:
    case DataType::UINT8:
    case DataType::UINT16:
    case DataType::UINT32:
    case DataType::UINT64:
    case DataType::INDEX: return true;
    default: return false;
  }
}

}  // namespace pto_mem::pypto
