// Describing a new chip: a policy type of your own modelling the generic
// ArenaPolicy concept (keyed by the tile IR's MemorySpace), used directly by
// the generic planner, then read into a SocPolicy for the tile-IR tools.
//
// "Tiny NPU": 96 KiB vector buffer, 256 KiB L1, 32 KiB L0A/L0B, 64 KiB L0C,
// 64-byte address alignment, L0C rows padded to 8, no Bias/scale buffers.
#include <cstdlib>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "pto_mem/planner.hpp"
#include "pto_mem/pypto.hpp"

using namespace pto_mem;
using namespace pto_mem::pypto;

namespace tiny {

struct TinyNpuPolicy {
  bool planned(MemorySpace s) const {
    return s == MemorySpace::Vec || s == MemorySpace::Mat || s == MemorySpace::Left ||
           s == MemorySpace::Right || s == MemorySpace::Acc;
  }
  std::optional<Addr> capacity(MemorySpace s) const {
    switch (s) {
      case MemorySpace::Vec: return 96 * 1024;
      case MemorySpace::Mat: return 256 * 1024;
      case MemorySpace::Left:
      case MemorySpace::Right: return 32 * 1024;
      case MemorySpace::Acc: return 64 * 1024;
      default: return std::nullopt;
    }
  }
  std::vector<AddrRange> reserved(MemorySpace s) const {
    // The first 1 KiB of the vector buffer holds the runtime's mailbox.
    if (s == MemorySpace::Vec) return {AddrRange{0, 1024}};
    return {};
  }
  Addr alignment(MemorySpace) const { return 64; }
  std::string name(MemorySpace s) const { return "tiny." + std::string(to_string(s)); }
};

static_assert(ArenaPolicy<TinyNpuPolicy, MemorySpace>);

/// A compiler's own buffer type, read through the Buffer concept.
struct TileBuffer {
  std::string id;
  Addr size;
  Addr alignment;
  MemorySpace arena;
  Interval lifetime;
};

}  // namespace tiny

int main() {
  const tiny::TinyNpuPolicy policy;

  // 1. The generic planner takes the policy as it is.
  const std::vector<tiny::TileBuffer> buffers = {
      {"a", 16384, 1, MemorySpace::Vec, {0, 4}},
      {"b", 16384, 1, MemorySpace::Vec, {2, 6}},
      {"c", 16384, 1, MemorySpace::Vec, {5, 8}},
      {"acc", 4096, 1, MemorySpace::Acc, {0, 8}},
  };
  auto planned = plan(buffers, policy);
  if (!planned.result.fits()) {
    std::cerr << "custom_soc: planning failed\n";
    for (const auto& d : planned.result.diagnostics) std::cerr << format(d) << "\n";
    return EXIT_FAILURE;
  }
  for (std::size_t i = 0; i < buffers.size(); ++i) {
    const auto off = planned.offsets[i];
    std::cout << buffers[i].id << " in " << policy.name(buffers[i].arena) << " at " << (off ? *off : 0)
              << "\n";
    if (!off || *off % 64 != 0 || (buffers[i].arena == MemorySpace::Vec && *off < 1024)) {
      std::cerr << "custom_soc: the placement ignores the policy\n";
      return EXIT_FAILURE;
    }
  }

  // 2. The tile-IR side: capacities and reserved windows from the policy,
  //    plus what only a tile IR needs (L0C row padding, transfer routes).
  SocPolicy soc = from_arena_policy(policy, "tiny", AccRowAlignment{8, 8},
                                    {{MemorySpace::DDR, MemorySpace::Vec},
                                     {MemorySpace::DDR, MemorySpace::Mat},
                                     {MemorySpace::Mat, MemorySpace::Left},
                                     {MemorySpace::Mat, MemorySpace::Right},
                                     {MemorySpace::Acc, MemorySpace::Vec}});
  static_assert(ArenaPolicy<SocPolicy, MemorySpace>);
  std::cout << "tiny: Vec capacity " << *soc.capacity(MemorySpace::Vec) << ", alignment "
            << soc.alignment(MemorySpace::Vec) << ", Acc->Vec pipe "
            << (transfer_pipe(soc, MemorySpace::Acc, MemorySpace::Vec) ? "FIX" : "none") << "\n";

  // Sizes follow the chip: a [4, 64] FP32 accumulator pads 4 rows to 8 here
  // (16 on the Ascend parts).
  const auto tiny_acc = tile_bytes(make_shape({4, 64}), DataType::FP32, MemorySpace::Acc, soc);
  const auto a2a3_acc = tile_bytes(make_shape({4, 64}), DataType::FP32, MemorySpace::Acc, soc_a2a3());
  std::cout << "[4, 64] FP32 in Acc: tiny " << *tiny_acc << " bytes, a2a3 " << *a2a3_acc << " bytes\n";
  if (*tiny_acc != 8 * 64 * 4 || *a2a3_acc != 16 * 64 * 4) return EXIT_FAILURE;

  // 3. Sizing every tile of a parsed kernel under the new chip.
  const char* text = R"(@function(type=InCore)
def kernel(x: Tensor[[32, 64], FP16],
           out: Out[Tensor[[32, 64], FP16]]) -> Tensor[[32, 64], FP16]:
    t: Tile[[32, 64], FP16, Vec] = tile.load(x, [0, 0], [32, 64], target_memory=Vec)
    u: Tile[[32, 64], FP16, Vec] = tile.exp(t)
    r: Tensor[[32, 64], FP16] = tile.store(u, [0, 0], out)
    return r
)";
  ParseResult parsed = parse_program(text, "custom_soc.pto");
  if (!parsed.ok()) {
    std::cerr << format(parsed.diagnostics.front()) << "\n";
    return EXIT_FAILURE;
  }
  Addr total = 0;
  for_each_stmt(parsed.program.functions[0].body, [&](const Stmt& s) {
    if (const auto* a = s.as<AssignStmt>())
      if (const auto* t = as_tile(a->var->type)) {
        const auto bytes = tile_bytes(*t, soc);
        std::cout << a->var->name << ": " << (bytes ? std::to_string(*bytes) : bytes.error->message)
                  << " bytes\n";
        if (bytes) total += *bytes;
      }
  });
  std::cout << "Vec demand " << total << " of " << *soc.capacity(MemorySpace::Vec) << " bytes\n";
  return total == 2 * 32 * 64 * 2 ? EXIT_SUCCESS : EXIT_FAILURE;
}
