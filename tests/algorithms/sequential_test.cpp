#include <doctest/doctest.h>

#include "pto_mem/algorithms/sequential.hpp"
#include "pto_mem/algorithms/validator.hpp"
#include "test_support.hpp"

using namespace pto_mem;
using pto_mem::test::dump;
using pto_mem::test::mentions;

using Offsets = std::vector<std::optional<Addr>>;

TEST_CASE("sequential: id order per arena, above the reserved windows, each buffer aligned") {
  Problem p;
  p.arenas = {{0, "Vec", 1024, {{0, 40}, {8, 64}}}, {1, "Mat", 1024, {}}};
  p.buffers = {
      {"10", 30, 32, 0, {0, 2}}, {"2", 16, 32, 0, {0, 2}}, {"7", 5, 1, 1, {0, 2}}, {"3", 7, 8, 1, {0, 2}}};
  const auto r = place_sequential(p);
  INFO(dump(r.diagnostics));
  REQUIRE(r.placement);
  // Integer ids sort numerically: 2 before 10. Cursor starts at the highest reserved end, 64.
  CHECK(r.placement->offsets == Offsets{96, 64, 7, 0});  // Mat: "3" at 0 (7 bytes), "7" right after
  CHECK(r.usage[0].reserved_end == 64);
  CHECK(r.usage[0].high_water == 126);
  CHECK(r.usage[1].high_water == 12);
  CHECK(validate(p, *r.placement).empty());
}

TEST_CASE("sequential: names sort lexicographically, as PyPTO sorts MemRef names") {
  Problem p;
  p.arenas = {{0, "Vec", 4096, {}}};
  p.buffers = {
      {"mem_vec_2", 32, 32, 0, {0, 2}}, {"mem_vec_10", 32, 32, 0, {0, 2}}, {"aaa", 64, 32, 0, {0, 2}}};
  const auto r = place_sequential(p);
  REQUIRE(r.placement);
  CHECK(r.placement->offsets == Offsets{96, 64, 0});
}

TEST_CASE("sequential: cursor alignment after each buffer (PyPTO Align(base + slot))") {
  Problem p;
  p.arenas = {{0, "Vec", 4096, {}}};
  p.buffers = {{"a", 40, 1, 0, {0, 2}}, {"b", 8, 1, 0, {0, 2}}};
  SequentialOptions o;
  o.cursor_alignment = 32;
  const auto r = place_sequential(p, o);
  REQUIRE(r.placement);
  CHECK(r.placement->offsets == Offsets{0, 64});
  CHECK(r.usage[0].high_water == 96);
  const auto plain = place_sequential(p);
  CHECK(plain.placement->offsets == Offsets{0, 40});
}

TEST_CASE("sequential: the order is a hook") {
  Problem p;
  p.arenas = {{0, "Vec", 4096, {}}};
  p.buffers = {{"a", 32, 32, 0, {0, 2}}, {"b", 64, 32, 0, {0, 2}}, {"c", 32, 32, 0, {0, 2}}};
  SequentialOptions o;
  o.before = [&](std::size_t x, std::size_t y) {
    return p.buffers[x].size > p.buffers[y].size;
  };  // largest first
  const auto r = place_sequential(p, o);
  REQUIRE(r.placement);
  CHECK(r.placement->offsets == Offsets{64, 0, 96});  // ties keep problem order
}

TEST_CASE("sequential: overflow names the arena, the bytes needed, the capacity and the reserved bytes") {
  Problem p;
  p.arenas = {{0, "Vec", 256, {{0, 64}}}, {1, "Mat", 1024, {}}};
  p.buffers = {{"a", 128, 32, 0, {0, 2}}, {"b", 96, 32, 0, {4, 6}}, {"c", 8, 1, 1, {0, 1}}};
  const auto r = place_sequential(p);
  INFO(dump(r.diagnostics));
  CHECK_FALSE(r.placement);
  REQUIRE(r.diagnostics.size() == 1);
  CHECK(mentions(r.diagnostics, "arena 0 (Vec)", "needs 288 bytes", "capacity is 256 bytes",
                 "first 64 bytes are reserved"));
  CHECK_FALSE(r.usage[0].fits);
  CHECK(r.usage[1].fits);

  SUBCASE("a cursor past 2^64 is reported, not wrapped") {
    p.buffers = {{"a", max_addr - 8, 1, 0, {0, 2}}, {"b", 96, 32, 0, {4, 6}}};
    p.arenas[0].capacity = max_addr;
    const auto s = place_sequential(p);
    CHECK_FALSE(s.placement);
    CHECK(mentions(s.diagnostics, "more than 2^64 bytes"));
  }
}
