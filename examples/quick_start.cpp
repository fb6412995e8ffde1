// Quick start (docs/index.md shows the part between the markers, verbatim;
// tests/core/docs_example_test.cpp checks that it does): plan a compiler's
// own tiles with constraints between them and get the offsets written back,
// with no string ids and no index bookkeeping. Built with the examples; run:
// build/bin/quick_start.
#include <deque>
#include <iostream>
#include <string>

// Laid out for reading: docs/index.md shows it verbatim.
// clang-format off
// [quick-start]
#include <pto_mem/planner.hpp>

namespace mycc {
enum class Space { ub, l1, gm };  // gm: off-chip, never planned
struct Tile {                     // the compiler's own record
  std::string name;
  std::int32_t size;              // bytes: read as it is (a member named `size`)
  int first_use, last_use;        // inclusive program points
  Space space;
  std::optional<std::uint32_t> offset;  // written back by the planner
};
struct Chip {                     // only what differs from the defaults
  bool planned(Space s) const { return s != Space::gm; }
  std::optional<pto_mem::Addr> capacity(Space s) const { return s == Space::ub ? 192 * 1024 : 512 * 1024; }
  pto_mem::Addr alignment(Space) const { return 32; }
  std::string name(Space s) const { return s == Space::ub ? "UB" : "L1"; }
};
}  // namespace mycc

// One customisation point per property that differs from the defaults.
template <> struct pto_mem::buffer_arena_traits<mycc::Tile> {
  static mycc::Space get(const mycc::Tile& t) { return t.space; }
};
template <> struct pto_mem::buffer_lifetime_traits<mycc::Tile> {
  static std::pair<int, int> get(const mycc::Tile& t) { return {t.first_use, t.last_use + 1}; }
};

int main() {
  std::deque<mycc::Tile> tiles;  // references to its elements stay valid as it grows
  auto tile = [&](mycc::Tile t) -> mycc::Tile& { return tiles.emplace_back(std::move(t)); };
  auto& a = tile({"a", 49152, 0, 2, mycc::Space::ub, {}});
  auto& b = tile({"b", 49152, 1, 2, mycc::Space::ub, {}});
  auto& c = tile({"c", 49152, 3, 5, mycc::Space::ub, {}});
  tile({"w", 262144, 0, 5, mycc::Space::l1, {}});
  tile({"out", 1 << 20, 5, 6, mycc::Space::gm, {}});

  pto_mem::Constraints<mycc::Tile> constraints;
  constraints.separate(a, c)  // a DMA writes c while a is still read
      .penalise(b, c, 2);     // c reusing b's bytes would stall a pipe
  const auto plan = pto_mem::plan(tiles, mycc::Chip{}, constraints, {}, &mycc::Tile::offset);
  if (!plan.fits()) {
    for (const auto& d : plan.result.diagnostics) std::cerr << pto_mem::format(d) << '\n';
    return 1;
  }
  for (const auto& t : tiles)
    std::cout << t.name << ": " << (t.offset ? "offset " + std::to_string(*t.offset) : "not planned (off-chip)") << '\n';
  std::cout << "status: " << pto_mem::to_string(plan.result.status) << '\n';
}
// [quick-start]
// clang-format on
