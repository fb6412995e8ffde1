// The memory map of a planned program (pypto/memory_map.hpp) against a
// literal reading of its lifetime rule -- statement points in program order,
// an allocation live from its first to its last point, extended to the end
// of every loop that starts after its first point and at or before its last
// (loops taken inner first, in program order, one after another) -- on
// random kernels with nested loops; and a large map drawn whole.
#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "pass_support.hpp"
#include "pto_mem/pypto/memory_map.hpp"
#include "storage_kernel_gen.hpp"

using namespace pto_mem;
using namespace pto_mem::pypto;

namespace memory_map_scale_test {

/// The rule as written: every loop against every allocation, in the order
/// the loops close.
struct Reference : IRVisitor {
  std::unordered_map<const Var*, std::pair<Tick, Tick>> ranges;
  std::vector<std::pair<Tick, Tick>> loops;
  Tick point = 0;

  void visit_assign(const AssignStmt& s) override { ++point, IRVisitor::visit_assign(s); }
  void visit_eval(const EvalStmt& s) override { ++point, IRVisitor::visit_eval(s); }
  void visit_yield(const YieldStmt& s) override { ++point, IRVisitor::visit_yield(s); }
  void visit_return(const ReturnStmt& s) override { ++point, IRVisitor::visit_return(s); }
  void visit_for(const ForStmt& s) override {
    const Tick start = point + 1;
    IRVisitor::visit_for(s);
    loops.emplace_back(start, point);
  }
  void visit_while(const WhileStmt& s) override {
    const Tick start = point + 1;
    IRVisitor::visit_while(s);
    loops.emplace_back(start, point);
  }
  void visit_var_def(const VarPtr& v) override { note(v); }
  void visit_var_use(const VarPtr& v) override { note(v); }
  void note(const VarPtr& v) {
    const MemRefPtr m = v ? memref_of(v->type) : nullptr;
    if (!m || !m->base || !is_tile(v->type)) return;
    auto [it, fresh] = ranges.try_emplace(m->base.get(), point, point);
    it->second.first = std::min(it->second.first, point);
    it->second.second = std::max(it->second.second, point);
  }
  void finish() {
    for (const auto& [start, end] : loops)
      for (auto& [base, r] : ranges)
        if (r.first < start && r.second >= start) r.second = std::max(r.second, end);
  }
};

/// Expected lifetime of every buffer of the map, in its order.
std::vector<Interval> expected_lifetimes(const Program& program, const SocPolicy& soc) {
  std::vector<Interval> out;
  for (const auto& f : program.functions) {
    if (!is_kernel(f.kind) || !f.body) continue;
    Reference ref;
    ref.visit_function(f);
    ref.finish();
    for_each_stmt(f.body, [&](const Stmt& s) {
      const auto* a = s.as<AllocStmt>();
      if (!a || !soc.planned(a->space)) return;
      const auto r = ref.ranges.find(a->var.get());
      out.push_back(r == ref.ranges.end() ? Interval{0, ref.point + 1}
                                          : Interval{r->second.first, r->second.second + 1});
    });
  }
  return out;
}

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

}  // namespace memory_map_scale_test

TEST_CASE("memory map: lifetimes follow the loop rule as written, on random kernels with nested loops") {
  using namespace memory_map_scale_test;
  std::size_t compared = 0, extended = 0;
  for (std::uint64_t seed = 1; seed <= 120; ++seed) {
    CAPTURE(seed);
    const std::string text = test::StorageKernelGen(seed).make();
    for (Planner planner : {Planner::pypto, Planner::dsa_rp}) {
      const CompileResult r = test::compile_text(text, Stage::alloc, planner);
      if (!r.ok()) continue;
      const SocPolicy soc = soc_a2a3();
      const MemoryMap m = memory_map(r.program, soc, r.allocation_addresses);
      const std::vector<Interval> want = expected_lifetimes(r.program, soc);
      REQUIRE(m.problem.buffers.size() == want.size());
      for (std::size_t i = 0; i < want.size(); ++i) {
        CHECK(m.problem.buffers[i].lifetime == want[i]);
        ++compared;
      }
    }
  }
  // How many lifetimes a loop extended, by the reference itself: the
  // generator must reach the rule.
  for (std::uint64_t seed = 1; seed <= 120; ++seed) {
    const CompileResult r = test::compile_text(test::StorageKernelGen(seed).make(), Stage::alloc);
    if (!r.ok()) continue;
    for (const auto& f : r.program.functions) {
      if (!is_kernel(f.kind) || !f.body) continue;
      Reference plain, ref;
      plain.visit_function(f);
      ref.visit_function(f);
      ref.finish();
      for (const auto& [base, range] : ref.ranges) extended += range.second != plain.ranges.at(base).second;
    }
  }
  MESSAGE(compared << " lifetimes compared, " << extended << " extended through a loop");
  CHECK(compared > 2000);
  CHECK(extended > 200);
}

TEST_CASE("memory map: a 2,000-block kernel is drawn whole, one rectangle per allocation") {
  using namespace memory_map_scale_test;
  std::string text =
      "@function(type=InCore)\n"
      "def big(x: Tensor[[64, 64], FP32],\n"
      "        out: Out[Tensor[[64, 64], FP32]]) -> Tensor[[64, 64], FP32]:\n";
  const std::string tile = ": Tile[[64, 64], FP32]";
  const int blocks = 2000;
  for (int k = 0; k < blocks; ++k) {
    const std::string b = std::to_string(k);
    text += "    a" + b + tile + " = tile.create([64, 64], dtype=FP32, target_memory=Vec)\n";
    text += "    for i" + b + ", (acc" + b + ",) in range(4, init_values=(a" + b + ",)):\n";
    text += "        l" + b + tile + " = tile.load(x, [0, 0], [64, 64], target_memory=Vec)\n";
    text += "        e" + b + tile + " = tile.add(acc" + b + ", l" + b + ")\n";
    text += "        r" + b + " = yield_(e" + b + ")\n";
    text += "    x" + b + tile + " = tile.exp(r" + b + ")\n";
    text += "    o" + b + ": Tensor[[64, 64], FP32] = tile.store(x" + b + ", [0, 0], out)\n";
  }
  text += "    return out\n";
  for (Planner planner : {Planner::pypto, Planner::dsa_rp}) {
    const CompileResult r = test::compile_ok(text, Stage::alloc, planner);
    const SocPolicy soc = soc_a2a3();
    const MemoryMap m = memory_map(r.program, soc, r.allocation_addresses);
    std::size_t allocs = 0;
    for (const auto& f : r.program.functions)
      for_each_stmt(f.body, [&](const Stmt& s) { allocs += s.is<AllocStmt>() ? 1 : 0; });
    CHECK(m.problem.buffers.size() == allocs);
    if (planner == Planner::dsa_rp)  // no reuse pass: at least the loaded tile and the exp of every block
      CHECK(allocs >= static_cast<std::size_t>(2 * blocks));
    CHECK(m.problem.buffers.size() == expected_lifetimes(r.program, soc).size());
    CHECK(std::ranges::all_of(m.placement.offsets, [](const auto& o) { return o.has_value(); }));
    const std::string svg = memory_map_svg(r.program, soc, r.allocation_addresses);
    CHECK(svg.rfind("<svg", 0) == 0);
    CHECK(svg.find("</svg>") != std::string::npos);
    CHECK(count(svg, "<rect class=\"b c") == allocs);
    CHECK(count(svg, "<g class=\"arena\"") == m.problem.arenas.size());
    if (allocs > SvgOptions{}.detail_limit)
      CHECK(svg.find(std::to_string(allocs) + " buffers: outlines, labels and tooltips left out") !=
            std::string::npos);
  }
}
