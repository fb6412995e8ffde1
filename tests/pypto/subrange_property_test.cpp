// Sub-range reuse (MemoryReuse on a capacity overflow): random straight-line
// cube kernels with many Right operands of mixed sizes, some live together,
// some tagged as pipeline stages, planned under the PYPTO planner on a2a3
// (64 KiB of Right). Checked independently of the passes: every two Right
// tiles whose live ranges (definition to last read, by statement) meet have
// disjoint byte ranges at their final addresses; a program is never refused
// for anything but capacity; and sub-ranges are really used.
#include <doctest/doctest.h>

#include <random>
#include <string>
#include <utility>
#include <vector>

#include "pass_support.hpp"

using namespace pto_mem;
using namespace pto_mem::pypto;

namespace {

std::string random_cube_kernel(std::mt19937& rng) {
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  const int cols[] = {32, 64, 96, 128, 192, 256};
  const int n = pick(3, 8);
  std::vector<int> size(static_cast<std::size_t>(n));
  for (auto& s : size) s = cols[pick(0, 5)];
  std::string params = "a: Tensor[[16, 128], BF16], b: Tensor[[128, 256], BF16]";
  std::string body =
      "    am: Tile[[16, 128], BF16, Mat] = tile.load(a, [0, 0], [16, 128], target_memory=Mat)\n"
      "    left: Tile[[16, 128], BF16, Left] = tile.move(am, target_memory=Left)\n";
  std::vector<int> live;
  std::string last;
  auto consume = [&](int j) {
    const std::string c = std::to_string(size[static_cast<std::size_t>(j)]), k = std::to_string(j);
    params += ", o" + k + ": Out[Tensor[[16, " + c + "], FP32]]";
    body += "    c" + k + ": Tile[[16, " + c + "], FP32, Acc] = tile.matmul(left, r" + k + ")\n";
    body += "    w" + k + ": Tensor[[16, " + c + "], FP32] = tile.store(c" + k + ", [0, 0], o" + k + ")\n";
    last = "w" + k;
  };
  for (int i = 0; i < n; ++i) {
    const std::string c = std::to_string(size[static_cast<std::size_t>(i)]), k = std::to_string(i);
    body += "    m" + k + ": Tile[[128, " + c + "], BF16, Mat] = tile.load(b, [0, 0], [128, " + c +
            "], target_memory=Mat)\n";
    const std::string tag =
        pick(0, 9) < 3 ? ", attrs={\"pipeline_membership\": \"0:" + std::to_string(i % 2) + "\"}" : "";
    body += "    r" + k + ": Tile[[128, " + c + "], BF16, Right] = tile.move(m" + k +
            ", target_memory=Right" + tag + ")\n";
    live.push_back(i);
    while (!live.empty() && pick(0, 9) < 6) {
      const auto at = static_cast<std::size_t>(pick(0, static_cast<int>(live.size()) - 1));
      consume(live[at]);
      live.erase(live.begin() + static_cast<std::ptrdiff_t>(at));
    }
  }
  for (int j : live) consume(j);
  return "@function(type=InCore)\ndef kernel(" + params + ") -> Tensor[[16, 32], FP32]:\n" + body +
         "    return " + last + "\n";
}

struct RightTile {
  std::string name;
  std::size_t def = 0, last = 0;
  std::int64_t addr = 0, size = 0;
};

}  // namespace

TEST_CASE("sub-range reuse property: co-live Right tiles never share a byte; only capacity refuses") {
  std::mt19937 rng(20261207);
  int planned = 0, subranged = 0, over_capacity = 0;
  for (int round = 0; round < 1000; ++round) {
    const std::string text = random_cube_kernel(rng);
    INFO(text);
    const CompileResult r = test::compile_text(text, Stage::alloc);
    REQUIRE(r.exit_code() != 2);
    if (!r.ok()) {
      ++over_capacity;
      continue;
    }
    ++planned;
    REQUIRE(r.program.functions.size() == 1);
    const auto stmts = flatten(r.program.functions[0].body);
    std::vector<RightTile> tiles;
    std::vector<std::pair<const Var*, std::int64_t>> offsets;
    bool used_subrange = false;
    for (std::size_t i = 0; i < stmts.size(); ++i) {
      const auto* a = stmts[i]->as<AssignStmt>();
      if (!a) continue;
      if (const auto* t = as_tile(a->var->type); t && t->space == MemorySpace::Right) {
        REQUIRE(t->memref);
        const auto off = t->memref->const_offset();
        REQUIRE(off);
        // No views here: two offsets on one allocation can only be sub-ranges.
        for (const auto& [base, at] : offsets) used_subrange |= base == t->memref->base.get() && at != *off;
        offsets.emplace_back(t->memref->base.get(), *off);
        tiles.push_back({a->var->name, i, i, *off, static_cast<std::int64_t>(t->memref->size)});
      }
      if (const auto* c = a->value->as<Call>())
        for (const auto& arg : c->args)
          if (const auto* v = arg->as<VarExpr>())
            for (auto& rt : tiles)
              if (rt.name == v->var->name) rt.last = i;
    }
    for (std::size_t x = 0; x < tiles.size(); ++x)
      for (std::size_t y = x + 1; y < tiles.size(); ++y) {
        const RightTile &p = tiles[x], &q = tiles[y];
        const bool co_live = p.def < q.last && q.def < p.last;
        const bool overlap = p.addr < q.addr + q.size && q.addr < p.addr + p.size;
        INFO(p.name << " and " << q.name);
        CHECK_FALSE((co_live && overlap));
      }
    subranged += used_subrange ? 1 : 0;
  }
  MESSAGE(planned << " kernels planned, " << subranged << " of them with a Right tile in a sub-range, "
                  << over_capacity << " over capacity");
  CHECK(subranged > 0);
  CHECK(planned > 0);
}
