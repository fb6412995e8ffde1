// expect: no `size` accessor
// expect: pto_mem::buffer_size_traits<B>
#include <pto_mem/planner.hpp>
#include <vector>
struct Tile {
  unsigned bytes;
  pto_mem::Interval lifetime;
};
int main() {
  std::vector<Tile> tiles;
  auto p = pto_mem::plan(tiles, pto_mem::UnboundedArenaPolicy{});
  (void)p;
}
