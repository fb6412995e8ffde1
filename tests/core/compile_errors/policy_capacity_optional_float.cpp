// expect: returns a floating-point number, but a capacity is a whole number of bytes
// expect: arena_policy_traits<P>
#include <cstdint>
#include <optional>
#include <pto_mem/core/make_problem.hpp>
#include <vector>
// Through make_problem (no check_policy): the trait itself refuses it.
struct Chip {
  std::optional<float> capacity(std::int64_t) const { return 4096.0f; }
};
int main() {
  std::vector<pto_mem::BufferSpec> buffers;
  auto p = pto_mem::make_problem(buffers, Chip{});
  (void)p;
}
