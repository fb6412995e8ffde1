#include <doctest/doctest.h>
#include <optional>
#include <string>
#include <vector>
#include "pto_mem/planner.hpp"
#include "test_support.hpp"

namespace structured_front_door {
struct Tile {
  std::string id;
  int size;
  int arena;
  std::pair<int, int> lifetime;
  std::vector<std::pair<int, int>> live;
  std::optional<int> pin;
  std::vector<int> candidate_arenas;
  std::optional<unsigned> offset;
};
struct TwoBanks {};
}  // namespace structured_front_door

template <>
struct pto_mem::arena_policy_traits<structured_front_door::TwoBanks> {
  static bool planned(const structured_front_door::TwoBanks&, int) { return true; }
  static std::string name(const structured_front_door::TwoBanks&, int k) { return k == 0 ? "fast" : "slow"; }
  static std::optional<pto_mem::Addr> capacity(const structured_front_door::TwoBanks&, int k) {
    return k == 0 ? 80 : 256;
  }
  static std::vector<pto_mem::AddrRange> reserved(const structured_front_door::TwoBanks&, int) { return {}; }
  static pto_mem::Addr alignment(const structured_front_door::TwoBanks&, int) { return 1; }
};

using structured_front_door::Tile;

TEST_CASE("front door: live intervals, pins, candidate arenas and exclusions on the user's own types") {
  std::vector<Tile> tiles = {
      {"loop_in", 48, 0, {0, 10}, {{0, 2}, {8, 10}}, std::nullopt, {}, std::nullopt},  // dead inside the loop
      {"body", 48, 0, {3, 7}, {}, std::nullopt, {}, std::nullopt},                     // fits in the gap
      {"then", 16, 0, {3, 5}, {}, std::nullopt, {}, std::nullopt},
      {"else", 16, 0, {3, 5}, {}, std::nullopt, {}, std::nullopt},
      {"table", 8, 0, {0, 10}, {}, 72, {}, std::nullopt},                // fixed at 72
      {"big", 100, 0, {0, 10}, {}, std::nullopt, {0, 1}, std::nullopt},  // spills to slow
  };
  pto_mem::Constraints<Tile> c;
  c.exclude(tiles[2], tiles[3]);
  pto_mem::PlanOptions opt;
  opt.strategy = "exact";
  const auto r = pto_mem::plan(tiles, structured_front_door::TwoBanks{}, c, opt, &Tile::offset);
  INFO(std::string(pto_mem::to_string(r.result.status)) << "\n" << pto_mem::test::dump(r.result.diagnostics));
  REQUIRE(r.fits());
  CHECK(tiles[4].offset == 72u);
  CHECK(r.arena(5) == 1);
  CHECK(r.arena(0) == 0);
  CHECK(r.result.objective.spill == 1);
  // 72 bytes are free below the pin: body, then and else (80 bytes) fit only
  // because then and else never live at once, and loop_in only because it is
  // dead while body lives.
  auto without_gap = tiles;
  without_gap[0].live.clear();
  CHECK_FALSE(pto_mem::plan(without_gap, structured_front_door::TwoBanks{}, c, opt).fits());
  CHECK_FALSE(
      pto_mem::plan(tiles, structured_front_door::TwoBanks{}, pto_mem::Constraints<Tile>{}, opt).fits());
}
