// expect: `capacity(a)` must return std::optional<pto_mem::Addr>
// expect: arena_policy_traits<P>
#include <pto_mem/planner.hpp>
#include <string>
#include <vector>
struct Chip {
  std::string capacity(int) const { return "lots"; }
};
int main() {
  std::vector<pto_mem::BufferSpec> buffers;
  auto p = pto_mem::plan(buffers, Chip{});
  (void)p;
}
