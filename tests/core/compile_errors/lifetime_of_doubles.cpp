// expect: `lifetime` must model pto_mem::Lifetime
// expect: lifetime_traits
#include <pto_mem/planner.hpp>
#include <utility>
#include <vector>
struct Tile {
  unsigned size;
  std::pair<double, double> lifetime;
};
int main() {
  std::vector<Tile> tiles;
  auto p = pto_mem::plan(tiles, pto_mem::UnboundedArenaPolicy{});
  (void)p;
}
