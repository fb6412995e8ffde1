// Quick start (docs/index.md): plan a compiler's own buffer records without
// copying them into pto_mem's types. Build: it is part of the examples;
// run: build/bin/quick_start.
#include <cstdint>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include <pto_mem/planner.hpp>

namespace mycc {

enum class Space { ub, l1, gm };  // gm: off-chip, never planned

// The compiler's tensor record: its own names and integer types.
struct Tensor {
  std::string name;
  std::uint32_t bytes;
  int first_use, last_use;  // inclusive program points
  Space space;
};

// The chip: capacities, alignment and reserved windows per memory space.
struct Chip {
  bool planned(Space s) const { return s != Space::gm; }
  std::optional<pto_mem::Addr> capacity(Space s) const { return s == Space::ub ? 192 * 1024 : 512 * 1024; }
  std::vector<pto_mem::AddrRange> reserved(Space s) const {
    if (s == Space::ub) return {{0, 4096}};  // the first 4 KiB hold the runtime's scratch
    return {};
  }
  pto_mem::Addr alignment(Space) const { return 32; }
  std::string name(Space s) const { return s == Space::ub ? "UB" : s == Space::l1 ? "L1" : "GM"; }
};

}  // namespace mycc

// Tell pto_mem how to read a Tensor: one specialisation, no copies.
template <>
struct pto_mem::buffer_traits<mycc::Tensor> {
  static const std::string& id(const mycc::Tensor& t) { return t.name; }
  static std::uint32_t size(const mycc::Tensor& t) { return t.bytes; }
  static int alignment(const mycc::Tensor&) { return 1; }  // the chip's 32 applies on top
  static mycc::Space arena(const mycc::Tensor& t) { return t.space; }
  static std::pair<int, int> lifetime(const mycc::Tensor& t) { return {t.first_use, t.last_use + 1}; }
};

int main() {
  const std::vector<mycc::Tensor> tensors = {
      {"a", 49152, 0, 2, mycc::Space::ub},    {"b", 49152, 1, 3, mycc::Space::ub},
      {"c", 49152, 3, 5, mycc::Space::ub},    {"w", 262144, 0, 5, mycc::Space::l1},
      {"out", 1 << 20, 5, 6, mycc::Space::gm},
  };
  pto_mem::PlanOptions options;  // options.strategy picks the planner; see pto_mem::strategies()
  const auto plan = pto_mem::plan(tensors, mycc::Chip{}, options);
  if (!plan.result.fits()) {
    for (const auto& d : plan.result.diagnostics) std::cerr << pto_mem::format(d) << '\n';
    return 1;
  }
  for (std::size_t i = 0; i < tensors.size(); ++i) {
    std::cout << tensors[i].name << ": ";
    if (plan.offsets[i]) std::cout << "offset " << *plan.offsets[i] << '\n';
    else std::cout << "not planned (off-chip)\n";
  }
  std::cout << "status: " << pto_mem::to_string(plan.result.status) << '\n';
  return 0;
}
