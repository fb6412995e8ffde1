// Byte sizes and slice windows.
#include <doctest/doctest.h>

#include "pypto_support.hpp"

using namespace pto_mem;
using namespace pto_mem::pypto;
using enum MemorySpace;
using enum DataType;

namespace {

Addr bytes(std::vector<std::int64_t> shape, DataType dt, std::optional<MemorySpace> s, const SocPolicy& soc) {
  auto r = tile_bytes(make_shape(shape), dt, s, soc);
  INFO((r.error ? r.error->message : std::string()));
  REQUIRE(r);
  return *r;
}

}  // namespace

TEST_CASE("dtype widths: 4-bit packed, BOOL a byte, INDEX a machine word") {
  CHECK(storage_bits(FP32) == 32);
  CHECK(storage_bits(BF16) == 16);
  CHECK(storage_bits(INT64) == 64);
  CHECK(storage_bits(INDEX) == 64);
  CHECK(storage_bits(BOOL) == 8);
  CHECK(bit_width(BOOL) == 1);
  for (auto t : {FP4, INT4, UINT4, HF4}) CHECK(storage_bits(t) == 4);
  for (auto t : {INT8, UINT8, FP8E4M3FN, FP8E5M2, FP8E8M0, HF8}) CHECK(storage_bits(t) == 8);
  CHECK(storage_bytes(9, INT4) == 5u);  // 36 bits round up to 5 bytes
  CHECK(storage_bytes(16, FP4) == 8u);
  CHECK(element_bytes(FP16) == 2u);
}

TEST_CASE("byte sizes: dtype widths, 4-bit packing, Acc row padding") {
  const SocPolicy a2a3 = soc_a2a3(), a5 = soc_a5(), none = soc_none();
  CHECK(bytes({64, 64}, FP32, Vec, a2a3) == 16384);
  CHECK(bytes({32, 32}, FP16, Vec, a2a3) == 2048);
  for (const auto* s : {&a2a3, &a5, &none}) CHECK(bytes({4, 64}, FP32, Acc, *s) == 16 * 64 * 4);
  CHECK(bytes({16, 128}, INT32, Acc, a2a3) == 16384);
  CHECK(bytes({16, 128}, INT32, Acc, none) == 16384);
  CHECK(bytes({16, 128}, INT32, Acc, a5) == 8192);
  CHECK(bytes({8, 16}, FP4, Vec, a2a3) == 64);
  // Figures the conformance cases rely on.
  CHECK(bytes({32, 128}, INT32, Acc, a2a3) == 16384);  // case 47: already 32 rows
  CHECK(bytes({64, 384}, FP32, Vec, a2a3) == 98304);   // case 43
  CHECK(bytes({64, 752}, FP32, Vec, a2a3) == 192512);  // case 49
  CHECK(bytes({4, 128}, BF16, Mat, a2a3) == 1024);     // case 45
  // Only Acc pads rows; batch dims multiply.
  CHECK(bytes({4, 64}, FP32, Vec, a2a3) == 1024);
  CHECK(bytes({4, 64}, FP32, std::nullopt, a2a3) == 1024);
  CHECK(bytes({2, 4, 64}, FP32, Acc, a2a3) == 2 * 16 * 64 * 4);
  CHECK(bytes({3, 3}, BOOL, Vec, a2a3) == 9);
  const auto t = tile_type({16, 128}, INT32, Acc);
  CHECK(*tile_bytes(*as_tile(t), a5) == 8192);
}

TEST_CASE("sizes that cannot be computed are errors, not guesses") {
  const SocPolicy soc = soc_a2a3();
  auto n = var_ref(make_var("n", scalar_type(INDEX)));
  auto dyn = tile_bytes({int_imm(16), n}, FP32, Vec, soc);
  REQUIRE_FALSE(dyn);
  CHECK(dyn.error->kind == SizeError::Kind::dynamic_dim);
  CHECK(dyn.error->dim == 1);
  auto zero = tile_bytes(make_shape({0, 4}), FP32, Vec, soc);
  REQUIRE_FALSE(zero);
  CHECK(zero.error->kind == SizeError::Kind::non_positive_dim);
  CHECK(zero.error->dim == 0);
  CHECK(tile_bytes(make_shape({4, -2}), FP32, Vec, soc).error->kind == SizeError::Kind::non_positive_dim);
  auto big = tile_bytes(make_shape({std::int64_t{1} << 40, std::int64_t{1} << 30}), FP32, Vec, soc);
  REQUIRE_FALSE(big);
  CHECK(big.error->kind == SizeError::Kind::overflow);
  auto rank1 = tile_bytes(make_shape({64}), FP32, Acc, soc);
  REQUIRE_FALSE(rank1);
  CHECK(rank1.error->kind == SizeError::Kind::acc_rank);
  CHECK(rank1.error->message.find("rank >= 2") != std::string::npos);
}

TEST_CASE("slice windows: offset and envelope span") {
  // Case 15: rows of an [8, 16] FP32 tile.
  auto w0 = slice_window(make_shape({8, 16}), FP32, make_shape({0, 0}), make_shape({1, 16}));
  auto w1 = slice_window(make_shape({8, 16}), FP32, make_shape({1, 0}), make_shape({1, 16}));
  REQUIRE(w0);
  REQUIRE(w1);
  CHECK(as_const_int(w0->byte_offset) == 0);
  CHECK(w0->span == 64u);
  CHECK(as_const_int(w1->byte_offset) == 64);
  CHECK(w1->span == 64u);
  // Case 47: the lower half of a padded [32, 128] INT32 Acc root, not re-padded.
  auto acc = slice_window(make_shape({32, 128}), INT32, make_shape({16, 0}), make_shape({16, 128}));
  CHECK(as_const_int(acc->byte_offset) == 8192);
  CHECK(acc->span == 8192u);
  // The span is the envelope first..last touched element, not prod(shape).
  auto env = slice_window(make_shape({4, 16}), FP32, make_shape({1, 2}), make_shape({2, 4}));
  CHECK(as_const_int(env->byte_offset) == (16 + 2) * 4);
  CHECK(env->span == (1 + 16 + 3) * 4u);
}

TEST_CASE("symbolic slice offsets stay expressions; unknown dims give no span") {
  auto i = var_ref(make_var("i", scalar_type(INDEX)));
  auto w = slice_window(make_shape({8, 16}), FP32, {i, int_imm(0)}, make_shape({1, 16}));
  REQUIRE(w);
  CHECK(print(w->byte_offset) == "i * 64");
  CHECK(w->span == 64u);
  auto n = var_ref(make_var("n", scalar_type(INDEX)));
  auto s = slice_window({int_imm(8), n}, FP32, make_shape({1, 0}), make_shape({1, 16}));
  REQUIRE(s);
  CHECK(print(s->byte_offset) == "n * 4");
  CHECK_FALSE(s->span);
  auto r = slice_window(make_shape({8, 16}), FP32, make_shape({0, 0}), {int_imm(1), n});
  CHECK_FALSE(r->span);
}

TEST_CASE("packed 4-bit slices must start on a whole byte") {
  auto ok = slice_window(make_shape({8, 16}), FP4, make_shape({0, 4}), make_shape({8, 4}));
  REQUIRE(ok);
  CHECK(as_const_int(ok->byte_offset) == 2);
  CHECK(ok->span == 58u);  // (1 + 7*16 + 3) = 116 nibbles
  auto odd = slice_window(make_shape({8, 16}), INT4, make_shape({0, 3}), make_shape({8, 4}));
  REQUIRE_FALSE(odd);
  CHECK(odd.error->kind == SizeError::Kind::packed_origin_unaligned);
  CHECK(odd.error->message.find("Packed 4-bit slice origins must be byte-aligned") != std::string::npos);
  auto i = var_ref(make_var("i", scalar_type(INDEX)));
  auto dyn = slice_window(make_shape({8, 16}), FP4, {i, int_imm(0)}, make_shape({1, 16}));
  REQUIRE_FALSE(dyn);
  CHECK(dyn.error->kind == SizeError::Kind::packed_origin_dynamic);
  CHECK(dyn.error->message.find("compile-time constants") != std::string::npos);
  auto rank = slice_window(make_shape({8, 16}), FP32, make_shape({0}), make_shape({1, 16}));
  REQUIRE_FALSE(rank);
  CHECK(rank.error->kind == SizeError::Kind::rank_mismatch);
}
