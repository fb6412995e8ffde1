// DSA_RP recognizer and placement cases, through
// the adapter: post-InitMemRef IR, AllocateMemoryAddr in DSA_RP mode (as
// upstream: no MaterializeSemanticAliases, no MemoryReuse). Each case checks
// the exact recognizer edge set the case derives (edges are named by the
// earliest-defined tile of each allocation) and the derived placement.
#include <doctest/doctest.h>

#include <map>
#include <set>
#include <utility>

#include "pass_facts.hpp"

using namespace pto_mem;
using namespace pto_mem::test;
using pypto::passes::DsaProblem;

namespace {

using Edge = std::pair<std::string, std::string>;

Edge edge(std::string a, std::string b) { return a < b ? Edge{a, b} : Edge{b, a}; }

/// The recognizer's edges of the first function of `text`, by allocation name.
std::set<Edge> dsa_edges(const std::string& text, const std::string& soc) {
  pypto::Program p = parse_ok(text);
  pypto::SocPolicy policy = *pypto::soc_by_name(soc);
  pypto::PassContext ctx;
  ctx.soc = &policy;
  ctx.ops = &pypto::default_registry();
  ctx.planner = pypto::Planner::dsa_rp;
  const pypto::Function& f = p.functions.front();
  const auto reserve = pypto::passes::resolve_reserve_buffers(f, p, ctx);
  DsaProblem model;
  REQUIRE(pypto::passes::build_dsa_problem(f, p, ctx, reserve, model));
  // Name each allocation by its earliest-defined tile.
  std::map<const pypto::Var*, std::string> name;
  const auto lt = pypto::passes::compute_lifetimes(f, {true});
  for (const auto& v : lt.vars) name.try_emplace(pypto::passes::var_base(v), v->name);
  std::set<Edge> out;
  for (const auto& pen : model.problem.penalties) {
    const auto& a = model.bases[pen.a].base;
    const auto& b = model.bases[pen.b].base;
    CHECK(pen.weight == 1);
    out.insert(edge(name[a.get()], name[b.get()]));
  }
  return out;
}

PassRun dsa_alloc(const std::string& text, const std::string& soc) {
  PassRun r = run_text(text, "alloc", pypto::Planner::dsa_rp, soc);
  INFO(dump(r.ctx.diagnostics));
  REQUIRE(r.ok());
  return r;
}

// ---- programs ------------------------------------------------------------------------

constexpr const char* r1 = R"(
@function(type=InCore)
def main(a: Tensor[[64, 64], FP32, MemRef("mem_ddr_0", 0, 16384)],
         b: Tensor[[64, 64], FP32, MemRef("mem_ddr_1", 0, 16384)],
         out: Out[Tensor[[64, 64], FP32, MemRef("mem_ddr_2", 0, 16384)]]) -> Tensor[[64, 64], FP32]:
    mem_vec_3: Ptr = tile.alloc(Vec, 16384)
    mem_vec_4: Ptr = tile.alloc(Vec, 16384)
    mem_vec_5: Ptr = tile.alloc(Vec, 16384)
    prior: Tile[[64, 64], FP32, MemRef(mem_vec_3, 0, 16384), Vec] = tile.load(a, [0, 0], [64, 64], target_memory=Vec)
    _consumed: Tile[[64, 64], FP32, MemRef(mem_vec_4, 0, 16384), Vec] = tile.add(prior, prior)
    next_value: Tile[[64, 64], FP32, MemRef(mem_vec_5, 0, 16384), Vec] = tile.load(b, [0, 0], [64, 64], target_memory=Vec)
    r: Tensor[[64, 64], FP32, MemRef("mem_ddr_2", 0, 16384)] = tile.store(next_value, [0, 0], out)
    return r
)";

// R2 / R3: a full, then a load (cross-pipe) or a second full (same pipe).
std::string two_writers(const char* second) {
  return std::string(R"(
@function(type=InCore)
def main(a: Tensor[[64, 64], FP32, MemRef("mem_ddr_0", 0, 16384)],
         out: Out[Tensor[[64, 64], FP32, MemRef("mem_ddr_1", 0, 16384)]]) -> Tensor[[64, 64], FP32]:
    mem_vec_2: Ptr = tile.alloc(Vec, 16384)
    mem_vec_3: Ptr = tile.alloc(Vec, 16384)
    _prior: Tile[[64, 64], FP32, MemRef(mem_vec_2, 0, 16384), Vec] = tile.full([64, 64], 0.0, dtype=FP32)
    next_value: Tile[[64, 64], FP32, MemRef(mem_vec_3, 0, 16384), Vec] = )") +
         second + R"(
    r: Tensor[[64, 64], FP32, MemRef("mem_ddr_1", 0, 16384)] = tile.store(next_value, [0, 0], out)
    return r
)";
}

// R4 / R5: a not-in-place-safe consumer of a load (recip, move).
std::string no_alias_consumer(const char* op) {
  return std::string(R"(
@function(type=InCore)
def main(a: Tensor[[32, 32], FP32, MemRef("mem_ddr_0", 0, 4096)],
         out: Out[Tensor[[32, 32], FP32, MemRef("mem_ddr_1", 0, 4096)]]) -> Tensor[[32, 32], FP32]:
    mem_vec_2: Ptr = tile.alloc(Vec, 4096)
    mem_vec_3: Ptr = tile.alloc(Vec, 4096)
    source: Tile[[32, 32], FP32, MemRef(mem_vec_2, 0, 4096), Vec] = tile.load(a, [0, 0], [32, 32], target_memory=Vec)
    result: Tile[[32, 32], FP32, MemRef(mem_vec_3, 0, 4096), Vec] = )") +
         op + R"(
    r: Tensor[[32, 32], FP32, MemRef("mem_ddr_1", 0, 4096)] = tile.store(result, [0, 0], out)
    return r
)";
}

constexpr const char* r6 = R"(
@function(type=InCore)
def main(a: Tensor[[16, 64], INT32, MemRef("mem_ddr_0", 0, 4096)],
         k: Scalar[INT32],
         out: Out[Tensor[[16, 8], INT32, MemRef("mem_ddr_1", 0, 512)]]) -> Tensor[[16, 8], INT32]:
    mem_vec_2: Ptr = tile.alloc(Vec, 4096)
    mem_vec_3: Ptr = tile.alloc(Vec, 1024)
    mem_vec_4: Ptr = tile.alloc(Vec, 512)
    mem_vec_5: Ptr = tile.alloc(Vec, 64)
    mem_vec_6: Ptr = tile.alloc(Vec, 64)
    source: Tile[[16, 64], INT32, MemRef(mem_vec_2, 0, 4096), Vec] = tile.load(a, [0, 0], [16, 64], target_memory=Vec)
    temporary: Tile[[16, 64], UINT8, MemRef(mem_vec_3, 0, 1024), Vec] = tile.create([16, 64], dtype=UINT8, target_memory=Vec)
    pair: tuple[Tile[[16, 8], INT32, Vec], Tile[[1, 16], INT32, Vec]] = tile.gather_compare(source, k, temporary)
    destination: Tile[[16, 8], INT32, MemRef(mem_vec_4, 0, 512), Vec] = pair[0]
    count: Tile[[1, 16], INT32, MemRef(mem_vec_5, 0, 64), Vec] = pair[1]
    _count_copy: Tile[[1, 16], INT32, MemRef(mem_vec_6, 0, 64), Vec] = tile.add(count, count)
    r: Tensor[[16, 8], INT32, MemRef("mem_ddr_1", 0, 512)] = tile.store(destination, [0, 0], out)
    return r
)";

constexpr const char* r7 = R"(
@function(type=InCore)
def main(a: Tensor[[64, 64], FP32, MemRef("mem_ddr_0", 0, 16384)],
         out: Out[Tensor[[64, 64], FP32, MemRef("mem_ddr_1", 0, 16384)]]) -> Tensor[[64, 64], FP32]:
    mem_vec_2: Ptr = tile.alloc(Vec, 16384)
    mem_vec_3: Ptr = tile.alloc(Vec, 8192)
    mem_vec_4: Ptr = tile.alloc(Vec, 16384)
    prior: Tile[[64, 64], FP32, MemRef(mem_vec_2, 0, 16384), Vec] = tile.load(a, [0, 0], [64, 64], target_memory=Vec)
    upper: Tile[[32, 64], FP32, MemRef(mem_vec_2, 0, 8192), Vec] = tile.slice(prior, [32, 64], [0, 0])
    _consumed: Tile[[32, 64], FP32, MemRef(mem_vec_3, 0, 8192), Vec] = tile.add(upper, upper)
    next_value: Tile[[64, 64], FP32, MemRef(mem_vec_4, 0, 16384), Vec] = tile.load(a, [0, 0], [64, 64], target_memory=Vec)
    r: Tensor[[64, 64], FP32, MemRef("mem_ddr_1", 0, 16384)] = tile.store(next_value, [0, 0], out)
    return r
)";

constexpr const char* r8 = R"(
@function(type=InCore)
def main(a: Tensor[[32, 32], FP32, MemRef("mem_ddr_0", 0, 4096)],
         out: Out[Tensor[[32, 32], FP32, MemRef("mem_ddr_1", 0, 4096)]]) -> Tensor[[32, 32], FP32]:
    mem_vec_2: Ptr = tile.alloc(Vec, 4096)
    mem_vec_3: Ptr = tile.alloc(Vec, 4096)
    mem_vec_4: Ptr = tile.alloc(Vec, 4096)
    prior: Tile[[32, 32], FP32, MemRef(mem_vec_2, 0, 4096), Vec] = tile.load(a, [0, 0], [32, 32], target_memory=Vec)
    _moved: Tile[[32, 32], FP32, MemRef(mem_vec_3, 0, 4096), Vec] = tile.move(prior, target_memory=Vec)
    next_value: Tile[[32, 32], FP32, MemRef(mem_vec_4, 0, 4096), Vec] = tile.load(a, [0, 0], [32, 32], target_memory=Vec)
    r: Tensor[[32, 32], FP32, MemRef("mem_ddr_1", 0, 4096)] = tile.store(next_value, [0, 0], out)
    return r
)";

constexpr const char* r9 = R"(
@function(type=AIC)
def main(a: Tensor[[16, 64], BF16, MemRef("mem_ddr_0", 0, 2048)],
         b: Tensor[[64, 64], BF16, MemRef("mem_ddr_1", 0, 8192)],
         out: Out[Tensor[[16, 64], FP32, MemRef("mem_ddr_2", 0, 4096)]]) -> Tensor[[16, 64], FP32]:
    mem_mat_3: Ptr = tile.alloc(Mat, 2048)
    mem_mat_4: Ptr = tile.alloc(Mat, 8192)
    mem_left_5: Ptr = tile.alloc(Left, 2048)
    mem_right_6: Ptr = tile.alloc(Right, 8192)
    mem_acc_7: Ptr = tile.alloc(Acc, 4096)
    mem_acc_8: Ptr = tile.alloc(Acc, 4096)
    mem_acc_9: Ptr = tile.alloc(Acc, 4096)
    lhs_l1: Tile[[16, 64], BF16, MemRef(mem_mat_3, 0, 2048), Mat] = tile.load(a, [0, 0], [16, 64], target_memory=Mat)
    rhs_l1: Tile[[64, 64], BF16, MemRef(mem_mat_4, 0, 8192), Mat] = tile.load(b, [0, 0], [64, 64], target_memory=Mat)
    lhs_l0: Tile[[16, 64], BF16, MemRef(mem_left_5, 0, 2048), Left] = tile.move(lhs_l1, target_memory=Left)
    rhs_l0: Tile[[64, 64], BF16, MemRef(mem_right_6, 0, 8192), Right] = tile.move(rhs_l1, target_memory=Right)
    prior: Tile[[16, 64], FP32, MemRef(mem_acc_7, 0, 4096), Acc] = tile.matmul(lhs_l0, rhs_l0)
    _moved: Tile[[16, 64], FP32, MemRef(mem_acc_8, 0, 4096), Acc] = tile.move(prior, target_memory=Acc)
    next_value: Tile[[16, 64], FP32, MemRef(mem_acc_9, 0, 4096), Acc] = tile.matmul(lhs_l0, rhs_l0)
    r: Tensor[[16, 64], FP32, MemRef("mem_ddr_2", 0, 4096)] = tile.store(next_value, [0, 0], out)
    return r
)";

// R10 / R11: a move inside one allocation (same base), then an unrelated write.
std::string same_base_move(int moved_offset, const char* next_op) {
  return std::string(R"(
@function(type=InCore)
def main(a: Tensor[[32, 32], FP32, MemRef("mem_ddr_0", 0, 4096)],
         b: Tensor[[32, 32], FP32, MemRef("mem_ddr_1", 0, 4096)]) -> Tensor[[32, 32], FP32]:
    shared: Ptr = tile.alloc(Vec, 4096)
    next: Ptr = tile.alloc(Vec, 4096)
    source: Tile[[32, 32], FP32, MemRef(shared, 0, 4096), Vec] = tile.load(a, [0, 0], [32, 32], target_memory=Vec)
    moved: Tile[[32, 32], FP32, MemRef(shared, )") +
         std::to_string(moved_offset) + R"(, 4096), Vec] = tile.move(source, target_memory=Vec)
    next_value: Tile[[32, 32], FP32, MemRef(next, 0, 4096), Vec] = )" +
         next_op + R"(
    return b
)";
}

constexpr const char* r12 = R"(
@function(type=InCore)
def main(a: Tensor[[64, 64], FP32, MemRef("mem_ddr_0", 0, 16384)],
         out: Out[Tensor[[64, 64], FP32, MemRef("mem_ddr_1", 0, 16384)]]) -> Tensor[[64, 64], FP32]:
    mem_vec_2: Ptr = tile.alloc(Vec, 16384)
    mem_vec_3: Ptr = tile.alloc(Vec, 16384)
    _declaration: Tile[[64, 64], FP32, MemRef(mem_vec_2, 0, 16384), Vec] = tile.create([64, 64], dtype=FP32, target_memory=Vec)
    actual: Tile[[64, 64], FP32, MemRef(mem_vec_3, 0, 16384), Vec] = tile.load(a, [0, 0], [64, 64], target_memory=Vec)
    r: Tensor[[64, 64], FP32, MemRef("mem_ddr_1", 0, 16384)] = tile.store(actual, [0, 0], out)
    return r
)";

constexpr const char* r13 = R"(
@function(type=InCore)
def main(a: Tensor[[64, 64], FP32, MemRef("mem_ddr_0", 0, 16384)],
         out: Out[Tensor[[64, 64], FP32, MemRef("mem_ddr_1", 0, 16384)]]) -> Tensor[[64, 64], FP32]:
    mem_vec_2: Ptr = tile.alloc(Vec, 16384)
    mem_vec_3: Ptr = tile.alloc(Vec, 16384)
    mem_vec_4: Ptr = tile.alloc(Vec, 16384)
    target: Tile[[64, 64], FP32, MemRef(mem_vec_2, 0, 16384), Vec] = tile.create([64, 64], dtype=FP32, target_memory=Vec)
    source: Tile[[64, 64], FP32, MemRef(mem_vec_3, 0, 16384), Vec] = tile.load(a, [0, 0], [64, 64], target_memory=Vec)
    _assembled: Tile[[64, 64], FP32, MemRef(mem_vec_2, 0, 16384), Vec] = tile.assemble(target, source, [0, 0])
    next_value: Tile[[64, 64], FP32, MemRef(mem_vec_4, 0, 16384), Vec] = tile.load(a, [0, 0], [64, 64], target_memory=Vec)
    r: Tensor[[64, 64], FP32, MemRef("mem_ddr_1", 0, 16384)] = tile.store(next_value, [0, 0], out)
    return r
)";

constexpr const char* r14 = R"(
@function(type=InCore)
def main(a: Tensor[[64, 64], FP32, MemRef("mem_ddr_0", 0, 16384)],
         out: Out[Tensor[[64, 64], FP32, MemRef("mem_ddr_1", 0, 16384)]]) -> Tensor[[64, 64], FP32]:
    mem_vec_2: Ptr = tile.alloc(Vec, 16384)
    mem_vec_3: Ptr = tile.alloc(Vec, 8192)
    mem_vec_4: Ptr = tile.alloc(Vec, 16384)
    target: Tile[[64, 64], FP32, MemRef(mem_vec_2, 0, 16384), Vec] = tile.load(a, [0, 0], [64, 64], target_memory=Vec)
    source: Tile[[32, 64], FP32, MemRef(mem_vec_3, 0, 8192), Vec] = tile.load(a, [0, 0], [32, 64], target_memory=Vec)
    _assembled: Tile[[64, 64], FP32, MemRef(mem_vec_2, 0, 16384), Vec] = tile.assemble(target, source, [0, 0])
    next_value: Tile[[64, 64], FP32, MemRef(mem_vec_4, 0, 16384), Vec] = tile.load(a, [0, 0], [64, 64], target_memory=Vec)
    r: Tensor[[64, 64], FP32, MemRef("mem_ddr_1", 0, 16384)] = tile.store(next_value, [0, 0], out)
    return r
)";

constexpr const char* r15 = R"(
@function(type=InCore)
def main(a: Tensor[[16, 64], INT32, MemRef("mem_ddr_0", 0, 4096)],
         c: Tensor[[1, 16], INT32, MemRef("mem_ddr_1", 0, 64)],
         d: Tensor[[16, 8], INT32, MemRef("mem_ddr_2", 0, 512)],
         k: Scalar[INT32],
         out: Out[Tensor[[16, 8], INT32, MemRef("mem_ddr_3", 0, 512)]]) -> Tensor[[16, 8], INT32]:
    mem_vec_4: Ptr = tile.alloc(Vec, 4096)
    mem_vec_5: Ptr = tile.alloc(Vec, 1024)
    mem_vec_6: Ptr = tile.alloc(Vec, 512)
    mem_vec_7: Ptr = tile.alloc(Vec, 64)
    mem_vec_8: Ptr = tile.alloc(Vec, 64)
    mem_vec_9: Ptr = tile.alloc(Vec, 512)
    source: Tile[[16, 64], INT32, MemRef(mem_vec_4, 0, 4096), Vec] = tile.load(a, [0, 0], [16, 64], target_memory=Vec)
    temporary: Tile[[16, 64], UINT8, MemRef(mem_vec_5, 0, 1024), Vec] = tile.create([16, 64], dtype=UINT8, target_memory=Vec)
    pair: tuple[Tile[[16, 8], INT32, Vec], Tile[[1, 16], INT32, Vec]] = tile.gather_compare(source, k, temporary)
    destination: Tile[[16, 8], INT32, MemRef(mem_vec_6, 0, 512), Vec] = pair[0]
    _count: Tile[[1, 16], INT32, MemRef(mem_vec_7, 0, 64), Vec] = pair[1]
    _next_count: Tile[[1, 16], INT32, MemRef(mem_vec_8, 0, 64), Vec] = tile.load(c, [0, 0], [1, 16], target_memory=Vec)
    next_destination: Tile[[16, 8], INT32, MemRef(mem_vec_9, 0, 512), Vec] = tile.load(d, [0, 0], [16, 8], target_memory=Vec)
    r: Tensor[[16, 8], INT32, MemRef("mem_ddr_3", 0, 512)] = tile.store(next_destination, [0, 0], out)
    return r
)";

// R16 / R17: an Unknown-evidence op touching `prior`, then an unrelated load.
std::string unknown_touch(const char* stmt) {
  return std::string(R"(
@function(type=InCore)
def main(a: Tensor[[64, 64], FP32, MemRef("mem_ddr_0", 0, 16384)],
         v: Scalar[FP32],
         out: Out[Tensor[[64, 64], FP32, MemRef("mem_ddr_1", 0, 16384)]]) -> Tensor[[64, 64], FP32]:
    mem_vec_2: Ptr = tile.alloc(Vec, 16384)
    mem_vec_3: Ptr = tile.alloc(Vec, 16384)
    mem_vec_4: Ptr = tile.alloc(Vec, 16384)
    prior: Tile[[64, 64], FP32, MemRef(mem_vec_2, 0, 16384), Vec] = tile.load(a, [0, 0], [64, 64], target_memory=Vec)
    )") + stmt +
         R"(
    next_value: Tile[[64, 64], FP32, MemRef(mem_vec_4, 0, 16384), Vec] = tile.load(a, [0, 0], [64, 64], target_memory=Vec)
    r: Tensor[[64, 64], FP32, MemRef("mem_ddr_1", 0, 16384)] = tile.store(next_value, [0, 0], out)
    return r
)";
}

constexpr const char* r18 = R"(
@function(type=InCore)
def main(a: Tensor[[64, 64], FP32, MemRef("mem_ddr_0", 0, 16384)],
         out: Out[Tensor[[64, 64], FP32, MemRef("mem_ddr_1", 0, 16384)]]) -> Tensor[[64, 64], FP32]:
    mem_vec_2: Ptr = tile.alloc(Vec, 16384)
    mem_vec_3: Ptr = tile.alloc(Vec, 16384)
    mem_vec_4: Ptr = tile.alloc(Vec, 16384)
    mem_vec_5: Ptr = tile.alloc(Vec, 16384)
    for i in range(4):
        prior: Tile[[64, 64], FP32, MemRef(mem_vec_2, 0, 16384), Vec] = tile.load(a, [0, 0], [64, 64], target_memory=Vec)
        _consumed: Tile[[64, 64], FP32, MemRef(mem_vec_3, 0, 16384), Vec] = tile.add(prior, prior)
        _next_value: Tile[[64, 64], FP32, MemRef(mem_vec_4, 0, 16384), Vec] = tile.load(a, [0, 0], [64, 64], target_memory=Vec)
    result: Tile[[64, 64], FP32, MemRef(mem_vec_5, 0, 16384), Vec] = tile.full([64, 64], 0.0, dtype=FP32)
    r: Tensor[[64, 64], FP32, MemRef("mem_ddr_1", 0, 16384)] = tile.store(result, [0, 0], out)
    return r
)";

constexpr const char* r19 = R"(
@function(type=InCore)
def main(scratch: Tensor[[64, 64], FP32, MemRef("mem_ddr_0", 0, 16384)],
         out: Out[Tensor[[64, 64], FP32, MemRef("mem_ddr_1", 0, 16384)]]) -> Tensor[[64, 64], FP32]:
    mem_vec_2: Ptr = tile.alloc(Vec, 16384)
    mem_vec_3: Ptr = tile.alloc(Vec, 16384)
    mem_vec_4: Ptr = tile.alloc(Vec, 16384)
    for i in range(4):
        _first: Tile[[64, 64], FP32, MemRef(mem_vec_2, 0, 16384), Vec] = tile.full([64, 64], 0.0, dtype=FP32)
        second: Tile[[64, 64], FP32, MemRef(mem_vec_3, 0, 16384), Vec] = tile.full([64, 64], 1.0, dtype=FP32)
        s: Tensor[[64, 64], FP32, MemRef("mem_ddr_0", 0, 16384)] = tile.store(second, [0, 0], scratch)
    result: Tile[[64, 64], FP32, MemRef(mem_vec_4, 0, 16384), Vec] = tile.full([64, 64], 2.0, dtype=FP32)
    r: Tensor[[64, 64], FP32, MemRef("mem_ddr_1", 0, 16384)] = tile.store(result, [0, 0], out)
    return r
)";

constexpr const char* r20 = R"(
@function(type=InCore)
def main(a: Tensor[[64, 64], FP32, MemRef("mem_ddr_0", 0, 16384)],
         cond: Scalar[INDEX],
         out: Out[Tensor[[64, 64], FP32, MemRef("mem_ddr_1", 0, 16384)]]) -> Tensor[[64, 64], FP32]:
    mem_vec_2: Ptr = tile.alloc(Vec, 16384)
    mem_vec_3: Ptr = tile.alloc(Vec, 16384)
    mem_vec_4: Ptr = tile.alloc(Vec, 16384)
    mem_vec_5: Ptr = tile.alloc(Vec, 16384)
    if cond < 1:
        branch_prior: Tile[[64, 64], FP32, MemRef(mem_vec_2, 0, 16384), Vec] = tile.load(a, [0, 0], [64, 64], target_memory=Vec)
        _branch_consumed: Tile[[64, 64], FP32, MemRef(mem_vec_3, 0, 16384), Vec] = tile.add(branch_prior, branch_prior)
    else:
        _branch_next: Tile[[64, 64], FP32, MemRef(mem_vec_4, 0, 16384), Vec] = tile.load(a, [0, 0], [64, 64], target_memory=Vec)
    result: Tile[[64, 64], FP32, MemRef(mem_vec_5, 0, 16384), Vec] = tile.full([64, 64], 0.0, dtype=FP32)
    r: Tensor[[64, 64], FP32, MemRef("mem_ddr_1", 0, 16384)] = tile.store(result, [0, 0], out)
    return r
)";

constexpr const char* r21 = R"(
@function(type=InCore)
def main(scratch: Tensor[[64, 64], FP32, MemRef("mem_ddr_0", 0, 16384)],
         a: Tensor[[64, 64], FP32, MemRef("mem_ddr_1", 0, 16384)],
         out: Out[Tensor[[64, 64], FP32, MemRef("mem_ddr_2", 0, 16384)]]) -> Tensor[[64, 64], FP32]:
    mem_vec_3: Ptr = tile.alloc(Vec, 16384)
    mem_vec_4: Ptr = tile.alloc(Vec, 16384)
    prior: Tile[[64, 64], FP32, MemRef(mem_vec_3, 0, 16384), Vec] = tile.load(a, [0, 0], [64, 64], target_memory=Vec)
    updated: Tensor[[64, 64], FP32, MemRef("mem_ddr_0", 0, 16384)] = tile.store(prior, [0, 0], scratch)
    next_value: Tile[[64, 64], FP32, MemRef(mem_vec_4, 0, 16384), Vec] = tile.load(updated, [0, 0], [64, 64], target_memory=Vec)
    r: Tensor[[64, 64], FP32, MemRef("mem_ddr_2", 0, 16384)] = tile.store(next_value, [0, 0], out)
    return r
)";

constexpr const char* r24 = R"(
@function(type=AIC)
def main(t: Tensor[[16, 16], FP32, MemRef("mem_ddr_0", 0, 1024)],
         a: Tensor[[16, 16], BF16, MemRef("mem_ddr_1", 0, 512)],
         b: Tensor[[16, 16], BF16, MemRef("mem_ddr_2", 0, 512)],
         out: Out[Tensor[[16, 16], FP32, MemRef("mem_ddr_3", 0, 1024)]]) -> Tensor[[16, 16], FP32]:
    mem_mat_4: Ptr = tile.alloc(Mat, 1024)
    mem_mat_5: Ptr = tile.alloc(Mat, 512)
    mem_mat_6: Ptr = tile.alloc(Mat, 512)
    mem_left_7: Ptr = tile.alloc(Left, 512)
    mem_right_8: Ptr = tile.alloc(Right, 512)
    mem_acc_9: Ptr = tile.alloc(Acc, 1024)
    mem_acc_10: Ptr = tile.alloc(Acc, 1024)
    target: Tile[[16, 16], FP32, MemRef(mem_mat_4, 0, 1024), Mat] = tile.load(t, [0, 0], [16, 16], target_memory=Mat)
    lhs_l1: Tile[[16, 16], BF16, MemRef(mem_mat_5, 0, 512), Mat] = tile.load(a, [0, 0], [16, 16], target_memory=Mat)
    rhs_l1: Tile[[16, 16], BF16, MemRef(mem_mat_6, 0, 512), Mat] = tile.load(b, [0, 0], [16, 16], target_memory=Mat)
    lhs_l0: Tile[[16, 16], BF16, MemRef(mem_left_7, 0, 512), Left] = tile.move(lhs_l1, target_memory=Left)
    rhs_l0: Tile[[16, 16], BF16, MemRef(mem_right_8, 0, 512), Right] = tile.move(rhs_l1, target_memory=Right)
    acc: Tile[[16, 16], FP32, MemRef(mem_acc_9, 0, 1024), Acc] = tile.matmul(lhs_l0, rhs_l0)
    acc_updated: Tile[[16, 16], FP32, MemRef(mem_acc_9, 0, 1024), Acc] = tile.matmul_acc(acc, lhs_l0, rhs_l0)
    _assembled: Tile[[16, 16], FP32, MemRef(mem_mat_4, 0, 1024), Mat] = tile.assemble(target, acc_updated, [0, 0])
    later_acc: Tile[[16, 16], FP32, MemRef(mem_acc_10, 0, 1024), Acc] = tile.matmul(lhs_l0, rhs_l0)
    r: Tensor[[16, 16], FP32, MemRef("mem_ddr_3", 0, 1024)] = tile.store(later_acc, [0, 0], out)
    return r
)";

constexpr const char* r25 = R"(
@function(type=InCore)
def main(tile_param: Tile[[16, 16], FP32, MemRef("mem_vec_0", 0, 1024), Vec]) -> Tile[[16, 16], FP32, Vec]:
    mem_vec_0: Ptr = tile.alloc(Vec, 1024)
    mem_vec_1: Ptr = tile.alloc(Vec, 1024)
    result: Tile[[16, 16], FP32, MemRef(mem_vec_1, 0, 1024), Vec] = tile.add(tile_param, tile_param)
    return result
)";

constexpr const char* r26 = R"(
@function(type=AIC)
def main(a: Tensor[[16, 16], BF16, MemRef("mem_ddr_0", 0, 512)],
         out: Out[Tensor[[16, 16], FP32, MemRef("mem_ddr_1", 0, 1024)]]) -> Tensor[[16, 16], FP32]:
    mem_mat_2: Ptr = tile.alloc(Mat, 512)
    mem_left_3: Ptr = tile.alloc(Left, 512)
    mem_mat_4: Ptr = tile.alloc(Mat, 512)
    mem_mat_5: Ptr = tile.alloc(Mat, 512)
    mem_right_6: Ptr = tile.alloc(Right, 512)
    mem_acc_7: Ptr = tile.alloc(Acc, 1024)
    prior: Tile[[16, 16], BF16, MemRef(mem_mat_2, 0, 512), Mat] = tile.load(a, [0, 0], [16, 16], target_memory=Mat)
    prior_l0: Tile[[16, 16], BF16, MemRef(mem_left_3, 0, 512), Left] = tile.move(prior, target_memory=Left)
    _later: Tile[[16, 16], BF16, MemRef(mem_mat_4, 0, 512), Mat] = tile.load(a, [0, 0], [16, 16], target_memory=Mat)
    rhs_l1: Tile[[16, 16], BF16, MemRef(mem_mat_5, 0, 512), Mat] = tile.load(a, [0, 0], [16, 16], target_memory=Mat)
    rhs_l0: Tile[[16, 16], BF16, MemRef(mem_right_6, 0, 512), Right] = tile.move(rhs_l1, target_memory=Right)
    result: Tile[[16, 16], FP32, MemRef(mem_acc_7, 0, 1024), Acc] = tile.matmul(prior_l0, rhs_l0)
    r: Tensor[[16, 16], FP32, MemRef("mem_ddr_1", 0, 1024)] = tile.store(result, [0, 0], out)
    return r
)";

constexpr const char* r27 = R"(
@function(type=AIC)
def main(t: Tensor[[16, 16], FP32, MemRef("mem_ddr_0", 0, 1024)],
         a: Tensor[[16, 16], BF16, MemRef("mem_ddr_1", 0, 512)],
         out: Out[Tensor[[16, 16], FP32, MemRef("mem_ddr_2", 0, 1024)]]) -> Tensor[[16, 16], FP32]:
    mem_mat_3: Ptr = tile.alloc(Mat, 1024)
    mem_mat_4: Ptr = tile.alloc(Mat, 512)
    mem_mat_5: Ptr = tile.alloc(Mat, 512)
    mem_left_6: Ptr = tile.alloc(Left, 512)
    mem_right_7: Ptr = tile.alloc(Right, 512)
    mem_acc_8: Ptr = tile.alloc(Acc, 1024)
    mem_mat_9: Ptr = tile.alloc(Mat, 1024)
    target: Tile[[16, 16], FP32, MemRef(mem_mat_3, 0, 1024), Mat] = tile.load(t, [0, 0], [16, 16], target_memory=Mat)
    lhs_l1: Tile[[16, 16], BF16, MemRef(mem_mat_4, 0, 512), Mat] = tile.load(a, [0, 0], [16, 16], target_memory=Mat)
    rhs_l1: Tile[[16, 16], BF16, MemRef(mem_mat_5, 0, 512), Mat] = tile.load(a, [0, 0], [16, 16], target_memory=Mat)
    lhs_l0: Tile[[16, 16], BF16, MemRef(mem_left_6, 0, 512), Left] = tile.move(lhs_l1, target_memory=Left)
    rhs_l0: Tile[[16, 16], BF16, MemRef(mem_right_7, 0, 512), Right] = tile.move(rhs_l1, target_memory=Right)
    source: Tile[[16, 16], FP32, MemRef(mem_acc_8, 0, 1024), Acc] = tile.matmul(lhs_l0, rhs_l0)
    _assembled: Tile[[16, 16], FP32, MemRef(mem_mat_3, 0, 1024), Mat] = tile.assemble(target, source, [0, 0])
    _later: Tile[[16, 16], FP32, MemRef(mem_mat_9, 0, 1024), Mat] = tile.load(t, [0, 0], [16, 16], target_memory=Mat)
    r: Tensor[[16, 16], FP32, MemRef("mem_ddr_2", 0, 1024)] = tile.store(source, [0, 0], out)
    return r
)";

constexpr const char* r28 = R"(
@function(type=InCore)
def main(a: Tensor[[16, 16], BF16, MemRef("mem_ddr_0", 0, 512)],
         v: Tensor[[16, 16], FP32, MemRef("mem_ddr_1", 0, 1024)],
         out: Out[Tensor[[16, 16], FP32, MemRef("mem_ddr_2", 0, 1024)]]) -> Tensor[[16, 16], FP32]:
    mem_mat_3: Ptr = tile.alloc(Mat, 512)
    mem_mat_4: Ptr = tile.alloc(Mat, 512)
    mem_left_5: Ptr = tile.alloc(Left, 512)
    mem_right_6: Ptr = tile.alloc(Right, 512)
    mem_acc_7: Ptr = tile.alloc(Acc, 1024)
    mem_vec_8: Ptr = tile.alloc(Vec, 1024)
    mem_vec_9: Ptr = tile.alloc(Vec, 1024)
    mem_vec_10: Ptr = tile.alloc(Vec, 1024)
    lhs_l1: Tile[[16, 16], BF16, MemRef(mem_mat_3, 0, 512), Mat] = tile.load(a, [0, 0], [16, 16], target_memory=Mat)
    rhs_l1: Tile[[16, 16], BF16, MemRef(mem_mat_4, 0, 512), Mat] = tile.load(a, [0, 0], [16, 16], target_memory=Mat)
    lhs_l0: Tile[[16, 16], BF16, MemRef(mem_left_5, 0, 512), Left] = tile.move(lhs_l1, target_memory=Left)
    rhs_l0: Tile[[16, 16], BF16, MemRef(mem_right_6, 0, 512), Right] = tile.move(rhs_l1, target_memory=Right)
    product: Tile[[16, 16], FP32, MemRef(mem_acc_7, 0, 1024), Acc] = tile.matmul(lhs_l0, rhs_l0)
    _moved: Tile[[16, 16], FP32, MemRef(mem_vec_8, 0, 1024), Vec] = tile.move(product, target_memory=Vec)
    _consumed: Tile[[16, 16], FP32, MemRef(mem_vec_9, 0, 1024), Vec] = tile.add(_moved, _moved)
    later: Tile[[16, 16], FP32, MemRef(mem_vec_10, 0, 1024), Vec] = tile.load(v, [0, 0], [16, 16], target_memory=Vec)
    r: Tensor[[16, 16], FP32, MemRef("mem_ddr_2", 0, 1024)] = tile.store(later, [0, 0], out)
    return r
)";

std::string reinterpret(bool consume) {
  return std::string(R"(
@function(type=InCore)
def main(a: Tensor[[64, 64], FP32, MemRef("mem_ddr_0", 0, 16384)],
         out: Out[Tensor[[64, 64], FP32, MemRef("mem_ddr_1", 0, 16384)]]) -> Tensor[[64, 64], FP32]:
    mem_vec_2: Ptr = tile.alloc(Vec, 16384)
    mem_vec_3: Ptr = tile.alloc(Vec, 16384)
    mem_vec_4: Ptr = tile.alloc(Vec, 16384)
    prior: Tile[[64, 64], FP32, MemRef(mem_vec_2, 0, 16384), Vec] = tile.load(a, [0, 0], [64, 64], target_memory=Vec)
    viewed: Tile[[64, 64], INT32, MemRef(mem_vec_2, 0, 16384), Vec] = tile.reinterpret_view(prior, [64, 64], dtype=INT32)
)") +
         (consume ? "    _consumed: Tile[[64, 64], INT32, MemRef(mem_vec_3, 0, 16384), Vec] = "
                    "tile.add(viewed, viewed)\n"
                  : "") +
         R"(    next_value: Tile[[64, 64], FP32, MemRef(mem_vec_4, 0, 16384), Vec] = tile.load(a, [0, 0], [64, 64], target_memory=Vec)
    r: Tensor[[64, 64], FP32, MemRef("mem_ddr_1", 0, 16384)] = tile.store(next_value, [0, 0], out)
    return r
)";
}

constexpr const char* r30 = R"(
@function(type=InCore)
def main(a: Tensor[[64, 64], FP32, MemRef("mem_ddr_0", 0, 16384)],
         out: Out[Tensor[[64, 64], FP32, MemRef("mem_ddr_1", 0, 16384)]]) -> Tensor[[64, 64], FP32]:
    mem_vec_2: Ptr = tile.alloc(Vec, 16384)
    mem_vec_3: Ptr = tile.alloc(Vec, 16384)
    mem_vec_4: Ptr = tile.alloc(Vec, 16384)
    mem_vec_5: Ptr = tile.alloc(Vec, 16384)
    mem_vec_6: Ptr = tile.alloc(Vec, 16384)
    mem_vec_7: Ptr = tile.alloc(Vec, 16384)
    prior_a: Tile[[64, 64], FP32, MemRef(mem_vec_2, 0, 16384), Vec] = tile.load(a, [0, 0], [64, 64], target_memory=Vec)
    _used_a: Tile[[64, 64], FP32, MemRef(mem_vec_3, 0, 16384), Vec] = tile.add(prior_a, prior_a)
    prior_b: Tile[[64, 64], FP32, MemRef(mem_vec_4, 0, 16384), Vec] = tile.load(a, [0, 0], [64, 64], target_memory=Vec)
    _used_b: Tile[[64, 64], FP32, MemRef(mem_vec_5, 0, 16384), Vec] = tile.add(prior_b, prior_b)
    _later_a: Tile[[64, 64], FP32, MemRef(mem_vec_6, 0, 16384), Vec] = tile.load(a, [0, 0], [64, 64], target_memory=Vec)
    later_b: Tile[[64, 64], FP32, MemRef(mem_vec_7, 0, 16384), Vec] = tile.load(a, [0, 0], [64, 64], target_memory=Vec)
    r: Tensor[[64, 64], FP32, MemRef("mem_ddr_1", 0, 16384)] = tile.store(later_b, [0, 0], out)
    return r
)";

}  // namespace

TEST_CASE("DSA-RP R1: cross-pipe write-after-read (910B)") {
  CHECK(dsa_edges(r1, "a2a3") == std::set<Edge>{edge("prior", "_consumed"), edge("prior", "next_value"),
                                                edge("_consumed", "next_value")});
  check_facts(dsa_alloc(r1, "a2a3"), facts("addr prior = 0\naddr _consumed = 16384\naddr next_value = 32768"),
              "R1");
}

TEST_CASE("DSA-RP R2 and R3: cross-pipe write-after-write is priced, the same pipe is not") {
  const std::string waw = two_writers("tile.load(a, [0, 0], [64, 64], target_memory=Vec)");
  CHECK(dsa_edges(waw, "a2a3") == std::set<Edge>{edge("_prior", "next_value")});
  check_facts(dsa_alloc(waw, "a2a3"), facts("addr _prior = 0\naddr next_value = 16384"), "R2");
  const std::string same = two_writers("tile.full([64, 64], 1.0, dtype=FP32)");
  CHECK(dsa_edges(same, "a2a3").empty());
  check_facts(dsa_alloc(same, "a2a3"), facts("addr _prior = 0\naddr next_value = 0"), "R3");
}

TEST_CASE("DSA-RP R4 and R5: not-in-place-safe ops keep their input apart (950)") {
  for (const char* op : {"tile.recip(source)", "tile.move(source, target_memory=Vec)"}) {
    const std::string text = no_alias_consumer(op);
    CHECK(dsa_edges(text, "a5").empty());
    check_facts(dsa_alloc(text, "a5"), facts("addr source = 0\naddr result = 4096\ndistinct source result"),
                op);
  }
}

TEST_CASE("DSA-RP R6: a tuple result hands its forbidden inputs to every element (950)") {
  CHECK(dsa_edges(r6, "a5").empty());
  check_facts(dsa_alloc(r6, "a5"),
              facts("addr source = 0\naddr temporary = 4096\naddr destination = 5120\naddr count = 5632\n"
                    "addr _count_copy = 0"),
              "R6");
}

TEST_CASE("DSA-RP R7: a partial view does not make a hand-off endpoint (910B)") {
  CHECK(dsa_edges(r7, "a2a3") == std::set<Edge>{edge("_consumed", "next_value")});
  check_facts(dsa_alloc(r7, "a2a3"), facts("addr prior = 0\naddr _consumed = 16384\naddr next_value = 0"),
              "R7");
}

TEST_CASE("DSA-RP R8 and R9: same-space moves run on the vector pipe (910B)") {
  CHECK(dsa_edges(r8, "a2a3") == std::set<Edge>{edge("prior", "next_value"), edge("_moved", "next_value")});
  check_facts(dsa_alloc(r8, "a2a3"), facts("addr prior = 0\naddr _moved = 4096\naddr next_value = 8192"),
              "R8");
  CHECK(dsa_edges(r9, "a2a3") == std::set<Edge>{edge("prior", "next_value"), edge("_moved", "next_value")});
  check_facts(dsa_alloc(r9, "a2a3"), facts("addr prior = 0\naddr _moved = 4096\naddr next_value = 8192"),
              "R9");
}

TEST_CASE("DSA-RP R10 and R11: a move inside one allocation is still an access") {
  const std::string same_address = same_base_move(0, "tile.load(b, [0, 0], [32, 32], target_memory=Vec)");
  CHECK(dsa_edges(same_address, "a2a3") == std::set<Edge>{edge("source", "next_value")});
  const std::string offset = same_base_move(32, "tile.full([32, 32], 0.0, dtype=FP32)");
  CHECK(dsa_edges(offset, "a5").empty());
  check_facts(dsa_alloc(offset, "a5"), facts("addr source = 0\naddr moved = 32\naddr next_value = 0"), "R11");
}

TEST_CASE("DSA-RP R12 and R13: tile.create is no write, a whole tile.assemble is one") {
  CHECK(dsa_edges(r12, "a5").empty());
  check_facts(dsa_alloc(r12, "a5"), facts("addr _declaration = 0\naddr actual = 0"), "R12");
  CHECK(dsa_edges(r13, "a5") == std::set<Edge>{edge("target", "next_value"), edge("source", "next_value")});
  check_facts(dsa_alloc(r13, "a5"),
              facts("addr target = 0\naddr _assembled = 0\naddr source = 16384\naddr next_value = 32768\n"
                    "distinct _assembled next_value"),
              "R13");
}

TEST_CASE("DSA-RP R14 to R17: unknown accesses poison their allocations") {
  CHECK(dsa_edges(r14, "a5").empty());
  check_facts(dsa_alloc(r14, "a5"), facts("addr target = 0\naddr source = 16384\naddr next_value = 0"),
              "R14");
  CHECK(dsa_edges(r15, "a5").empty());
  const std::string write = unknown_touch(
      "_written: Tile[[64, 64], FP32, MemRef(mem_vec_3, 0, 16384), Vec] = tile.write(prior, [0, 0], v)");
  CHECK(dsa_edges(write, "a5").empty());
  check_facts(dsa_alloc(write, "a5"), facts("addr prior = 0\naddr _written = 0\naddr next_value = 0"), "R16");
  const std::string read = unknown_touch("_scalar: Scalar[FP32] = tile.read(prior, [0, 0])");
  CHECK(dsa_edges(read, "a5").empty());
  check_facts(dsa_alloc(read, "a5"), facts("addr prior = 0\naddr next_value = 0"), "R17");
}

TEST_CASE("DSA-RP R18 and R19: hand-offs inside a loop, at distance 0 and 1") {
  CHECK(dsa_edges(r18, "a2a3") == std::set<Edge>{edge("prior", "_consumed"), edge("prior", "_next_value"),
                                                 edge("_consumed", "_next_value")});
  check_facts(dsa_alloc(r18, "a2a3"),
              facts("addr prior = 0\naddr _consumed = 16384\naddr _next_value = 32768\naddr result = 0"),
              "R18");
  CHECK(dsa_edges(r19, "a5") == std::set<Edge>{edge("_first", "second")});
  check_facts(dsa_alloc(r19, "a5"), facts("addr _first = 0\naddr second = 16384\naddr result = 0"), "R19");
}

TEST_CASE("DSA-RP R20 and R21: exclusive branches are free, a DDR round trip is not") {
  CHECK(dsa_edges(r20, "a5") == std::set<Edge>{edge("branch_prior", "_branch_consumed")});
  check_facts(
      dsa_alloc(r20, "a5"),
      facts("addr branch_prior = 0\naddr _branch_consumed = 16384\naddr _branch_next = 0\naddr result = 0"),
      "R20");
  CHECK(dsa_edges(r21, "a5") == std::set<Edge>{edge("prior", "next_value")});
  check_facts(dsa_alloc(r21, "a5"), facts("addr prior = 0\naddr next_value = 16384"), "R21");
}

TEST_CASE("DSA-RP R22 and R23: op evidence and pipes in the registry") {
  const auto& ops = pypto::default_registry();
  const pypto::OpSpec* create = ops.find("tile.create");
  REQUIRE(create);
  CHECK(create->evidence == AccessEvidence::no_access);
  const pypto::SocPolicy soc = pypto::soc_a2a3();
  const std::vector<pypto::MemorySpace> none;
  CHECK_FALSE(pypto::infer_pipe(create, "tile.create", pypto::MemorySpace::Vec, none, soc).has_value());
  // Through the adapter's route too: no pipe, no events.
  pypto::passes::TileOpRoute route{&soc};
  pypto::passes::TileOpSite site;
  const pypto::ExprPtr c = pypto::call("tile.create", {pypto::int_list({16, 16})});
  site.call = c->as<pypto::Call>();
  site.spec = create;
  site.result = pypto::MemorySpace::Vec;
  CHECK(route.evidence(site) == AccessEvidence::no_access);
  CHECK_FALSE(route.pipe(site).has_value());
  for (const char* op : {"tile.matmul_acc", "tile.gemv_acc", "tile.batch_matmul_acc"}) {
    INFO(op);
    REQUIRE(ops.find(op));
    CHECK(ops.find(op)->evidence == AccessEvidence::functional);
  }
}

TEST_CASE("DSA-RP R24: an in-place accumulation does not poison its allocation (910B)") {
  const auto edges = dsa_edges(r24, "a2a3");
  CHECK(edges.contains(edge("acc", "later_acc")));
}

TEST_CASE("DSA-RP R25: an on-chip tile parameter is an allocation and gets an address") {
  CHECK(dsa_edges(r25, "a5").empty());
  PassRun r = dsa_alloc(r25, "a5");
  check_facts(r, facts("addr tile_param = 0\naddr result = 1024\ndistinct tile_param result"), "R25");
}

TEST_CASE("DSA-RP R26 and R27: L1 to L0 and L0 to L1 routes (910B)") {
  CHECK(dsa_edges(r26, "a2a3") == std::set<Edge>{edge("prior", "_later"), edge("prior", "rhs_l1")});
  check_facts(dsa_alloc(r26, "a2a3"), facts("addr prior = 0\naddr _later = 512\naddr rhs_l1 = 512"), "R26");
  CHECK(dsa_edges(r27, "a2a3") ==
        std::set<Edge>{edge("target", "_later"), edge("lhs_l1", "_later"), edge("rhs_l1", "_later")});
  check_facts(
      dsa_alloc(r27, "a2a3"),
      facts(
          "addr target = 0\naddr _assembled = 0\naddr lhs_l1 = 2048\naddr rhs_l1 = 2560\naddr _later = 1024\n"
          "distinct _assembled _later"),
      "R27");
}

TEST_CASE("DSA-RP R28: the SoC's memory graph decides the Acc to Vec route") {
  CHECK(dsa_edges(r28, "a5") ==
        std::set<Edge>{edge("_moved", "_consumed"), edge("_moved", "later"), edge("_consumed", "later")});
  CHECK(dsa_edges(r28, "a2a3") == std::set<Edge>{edge("_consumed", "later")});
}

TEST_CASE("DSA-RP R29: reinterpret_view is metadata; an access through it counts") {
  const std::string consumed = reinterpret(true);
  CHECK(dsa_edges(consumed, "a5") == std::set<Edge>{edge("prior", "_consumed"), edge("prior", "next_value"),
                                                    edge("_consumed", "next_value")});
  check_facts(dsa_alloc(consumed, "a5"),
              facts("addr prior = 0\naddr viewed = 0\naddr _consumed = 16384\naddr next_value = 32768"),
              "R29 true");
  const std::string ignored = reinterpret(false);
  CHECK(dsa_edges(ignored, "a5").empty());
  check_facts(dsa_alloc(ignored, "a5"), facts("addr prior = 0\naddr next_value = 0"), "R29 false");
}

TEST_CASE("DSA-RP R30: unit edges and placement, deterministic") {
  const std::set<Edge> want{
      edge("prior_a", "_used_a"),  edge("prior_a", "prior_b"), edge("prior_a", "_used_b"),
      edge("prior_a", "_later_a"), edge("prior_a", "later_b"), edge("_used_a", "prior_b"),
      edge("_used_a", "_later_a"), edge("_used_a", "later_b"), edge("prior_b", "_used_b"),
      edge("prior_b", "_later_a"), edge("prior_b", "later_b"), edge("_used_b", "_later_a"),
      edge("_used_b", "later_b")};
  CHECK(dsa_edges(r30, "a5") == want);
  PassRun first = dsa_alloc(r30, "a5");
  check_facts(first,
              facts("addr prior_a = 0\naddr _used_a = 16384\naddr prior_b = 32768\naddr _used_b = 16384\n"
                    "addr _later_a = 49152\naddr later_b = 49152"),
              "R30");
  PassRun second = dsa_alloc(r30, "a5");
  CHECK(pypto::print(first.program) == pypto::print(second.program));
}

TEST_CASE("DSA-RP X1: a kernel whose body is a bare return is left as it is") {
  const std::string text = R"(
@function(type=InCore)
def main(output: Tensor[[64, 64], FP32, MemRef("mem_ddr_0", 0, 16384)]) -> Tensor[[64, 64], FP32]:
    return output
)";
  pypto::Program before = parse_ok(text);
  PassRun r = dsa_alloc(text, "a2a3");
  CHECK(pypto::print(r.program) == pypto::print(before));
  CHECK(r.ctx.diagnostics.empty());
}
