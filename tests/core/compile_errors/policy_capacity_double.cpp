// expect: `capacity(a)` returns a floating-point number
// expect: arena_policy_traits<P>
#include <pto_mem/planner.hpp>
#include <vector>
struct Chip {
  double capacity(int) const { return 1.5e6; }
};
int main() {
  std::vector<pto_mem::BufferSpec> buffers;
  auto p = pto_mem::plan(buffers, Chip{});
  (void)p;
}
