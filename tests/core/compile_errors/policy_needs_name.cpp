// expect: the arena key type has no default name
// expect: std::string name(A) const
#include <compare>
#include <pto_mem/planner.hpp>
#include <vector>
struct Bank {
  int number;
  friend auto operator<=>(const Bank&, const Bank&) = default;
};
struct Tile {
  unsigned size;
  Bank arena;
  pto_mem::Interval lifetime;
};
struct Chip {};
int main() {
  std::vector<Tile> tiles;
  auto p = pto_mem::plan(tiles, Chip{});
  (void)p;
}
