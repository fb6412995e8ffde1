// A policy's capacity is a whole, non-negative number of bytes: a negative
// value of a signed type is an error naming the arena (it used to wrap
// around to 2^64 - 1, "optimal" in a memory that does not exist); a
// floating-point type does not compile (tests/core/compile_errors).
#include <doctest/doctest.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "pto_mem/core/make_problem.hpp"
#include "pto_mem/planner.hpp"
#include "test_support.hpp"

namespace pc {
enum class Space { vec, mat };
struct Tile {
  std::uint64_t size = 0;
  Space arena = Space::vec;
  std::pair<int, int> lifetime;
};
/// A C-style chip table: signed capacities, -1 for a misconfigured space.
struct SignedChip {
  int vec = 256, mat = -1;
  int capacity(Space s) const { return s == Space::vec ? vec : mat; }
  std::string name(Space s) const { return s == Space::vec ? "Vec" : "Mat"; }
};
struct OptionalSignedChip {
  std::optional<std::int64_t> capacity(Space s) const {
    if (s == Space::vec) return -4096;
    return std::nullopt;
  }
  std::string name(Space s) const { return s == Space::vec ? "Vec" : "Mat"; }
};
}  // namespace pc

static_assert(pto_mem::check_policy<pc::SignedChip, pc::Space>());  // signed types are allowed; the sign is
                                                                    // checked when planning

TEST_CASE("policy capacity: a negative value is an error that names the arena") {
  std::vector<pc::Tile> tiles = {{64, pc::Space::vec, {0, 2}}, {64, pc::Space::mat, {0, 2}}};
  const auto built = pto_mem::make_problem(tiles, pc::SignedChip{});
  INFO(pto_mem::test::dump(built.diagnostics));
  CHECK(pto_mem::test::mentions(built.diagnostics, "arena 'Mat'", "capacity -1", "negative"));
  CHECK_FALSE(pto_mem::test::mentions(built.diagnostics, "arena 'Vec'"));
  CHECK(built.problem.arenas[0].capacity == 256);

  const auto r = pto_mem::plan(tiles, pc::SignedChip{});
  CHECK(r.result.status == pto_mem::Status::invalid_input);
  CHECK(pto_mem::test::mentions(r.result.diagnostics, "arena 'Mat'", "capacity -1"));
  CHECK_FALSE(r.fits());

  const auto o = pto_mem::plan(tiles, pc::OptionalSignedChip{});
  CHECK(o.result.status == pto_mem::Status::invalid_input);
  CHECK(pto_mem::test::mentions(o.result.diagnostics, "arena 'Vec'", "capacity -4096"));
}

TEST_CASE("policy capacity: non-negative signed values and unsigned types plan as before") {
  std::vector<pc::Tile> tiles = {{64, pc::Space::vec, {0, 2}}, {64, pc::Space::mat, {0, 2}}};
  pc::SignedChip chip;
  chip.mat = 128;
  const auto r = pto_mem::plan(tiles, chip);
  INFO(pto_mem::test::dump(r.result.diagnostics));
  CHECK(r.fits());
  REQUIRE(r.model.problem.arenas.size() == 2);
  CHECK(r.model.problem.arenas[0].capacity == 256);
  CHECK(r.model.problem.arenas[1].capacity == 128);
  chip.mat = 0;  // zero is not negative: the problem checks refuse it as before
  CHECK(pto_mem::plan(tiles, chip).result.status == pto_mem::Status::invalid_input);
}
