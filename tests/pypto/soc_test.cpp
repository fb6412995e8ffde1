// SoC policies: the ArenaPolicy model, capacities, Acc rows, routes, pipes.
#include <doctest/doctest.h>

#include "pto_mem/core/make_problem.hpp"
#include "pypto_support.hpp"

using namespace pto_mem;
using namespace pto_mem::pypto;
using enum MemorySpace;

static_assert(ArenaPolicy<SocPolicy, MemorySpace>);

TEST_CASE("a2a3 and a5 capacities are OPS.md §3's") {
  const SocPolicy a = soc_a2a3(), b = soc_a5();
  CHECK(a.capacity(Vec) == 188416u);
  CHECK(b.capacity(Vec) == 245760u);
  for (const auto& p : {a, b}) {
    CHECK(p.capacity(Mat) == 524288u);
    CHECK(p.capacity(Left) == 65536u);
    CHECK(p.capacity(Right) == 65536u);
    CHECK_FALSE(p.capacity(DDR));
    CHECK_FALSE(p.planned(DDR));
    CHECK_FALSE(p.planned(ScalarLocal));
    CHECK(p.planned(Vec));
    CHECK(p.configured);
    for (MemorySpace s : all_memory_spaces) {
      CHECK(p.alignment(s) == 32u);
      CHECK(p.reserved(s).empty());
      CHECK(p.name(s) == std::string(to_string(s)));
    }
  }
  CHECK(a.capacity(Acc) == 131072u);
  CHECK(b.capacity(Acc) == 262144u);
  CHECK(a.capacity(Bias) == 1024u);
  CHECK(b.capacity(Bias) == 4096u);
  CHECK_FALSE(a.capacity(LeftScale));  // absent on 910B: unknown, not checked
  CHECK_FALSE(a.capacity(RightScale));
  CHECK(b.capacity(LeftScale) == 4096u);
  CHECK(b.capacity(RightScale) == 4096u);
}

TEST_CASE("no backend: no capacity, worst-case Acc rows, no routes") {
  const SocPolicy n = soc_none();
  CHECK_FALSE(n.configured);
  for (MemorySpace s : all_memory_spaces) CHECK_FALSE(n.capacity(s));
  CHECK(n.acc_m_alignment(DataType::INT32) == 32u);
  CHECK(n.acc_m_alignment(DataType::FP32) == 16u);
  CHECK_FALSE(n.has_route(DDR, Vec));
  CHECK(n.alignment(Vec) == 32u);
}

TEST_CASE("L0C row alignment per SoC") {
  CHECK(soc_a2a3().acc_m_alignment(DataType::INT32) == 32u);
  CHECK(soc_a2a3().acc_m_alignment(DataType::FP32) == 16u);
  CHECK(soc_a5().acc_m_alignment(DataType::INT32) == 16u);
  CHECK(soc_a5().acc_m_alignment(DataType::FP16) == 16u);
}

TEST_CASE("direct transfer routes and their pipes") {
  const SocPolicy a = soc_a2a3(), b = soc_a5();
  CHECK(transfer_pipe(a, DDR, Vec) == Pipe::MTE2);
  CHECK(transfer_pipe(a, DDR, Mat) == Pipe::MTE2);
  CHECK(transfer_pipe(a, Vec, DDR) == Pipe::MTE3);
  CHECK(transfer_pipe(a, Mat, Left) == Pipe::MTE1);
  CHECK(transfer_pipe(a, Mat, Bias) == Pipe::MTE1);
  CHECK(transfer_pipe(a, Acc, Mat) == Pipe::FIX);
  CHECK_FALSE(transfer_pipe(a, Acc, Vec));  // no route on 910B
  CHECK(transfer_pipe(b, Acc, Vec) == Pipe::FIX);
  CHECK_FALSE(transfer_pipe(a, Vec, Mat));
  CHECK(transfer_pipe(b, Vec, Mat) == Pipe::MTE3);
  CHECK_FALSE(transfer_pipe(a, Mat, LeftScale));
  CHECK(transfer_pipe(b, Mat, LeftScale) == Pipe::MTE1);
  CHECK_FALSE(transfer_pipe(b, Mat, DDR));  // no route on either
  CHECK_FALSE(transfer_pipe(soc_none(), DDR, Vec));
}

TEST_CASE("infer_pipe follows DSA-RP SPEC §6.4") {
  const OpRegistry reg = OpRegistry::with_builtins();
  const SocPolicy a = soc_a2a3(), b = soc_a5();
  auto pipe = [&](const char* op, std::optional<MemorySpace> r, std::vector<MemorySpace> args, const SocPolicy& s) {
    return infer_pipe(reg.find(op), op, r, args, s);
  };
  CHECK(pipe("tile.load", Vec, {DDR}, a) == Pipe::MTE2);
  CHECK(pipe("tile.load", Mat, {DDR}, a) == Pipe::MTE2);
  CHECK(pipe("tile.store", DDR, {Vec, DDR}, a) == Pipe::MTE3);
  CHECK(pipe("tile.store", DDR, {Acc, DDR}, a) == Pipe::FIX);
  CHECK(pipe("tile.add", Vec, {Vec, Vec}, a) == Pipe::V);
  CHECK(pipe("tile.full", Vec, {}, a) == Pipe::V);
  CHECK(pipe("tile.adds", Vec, {Vec, ScalarLocal}, a) == Pipe::V);
  CHECK(pipe("tile.matmul", Acc, {Left, Right}, a) == Pipe::M);
  CHECK(pipe("tile.matmul_acc", Acc, {Acc, Left, Right}, a) == Pipe::M);
  CHECK(pipe("tile.move", Left, {Mat}, a) == Pipe::MTE1);
  CHECK(pipe("tile.move", Vec, {Vec}, a) == Pipe::V);    // same-space TMOV
  CHECK(pipe("tile.move", Left, {Left}, a) == Pipe::V);  // same-L0 moves too
  CHECK_FALSE(pipe("tile.move", Vec, {Acc}, a));          // no Acc->Vec route on 910B
  CHECK(pipe("tile.move", Vec, {Acc}, b) == Pipe::FIX);
  CHECK_FALSE(pipe("tile.move", Vec, {Mat, Vec}, a));     // a move has one source
  CHECK_FALSE(pipe("tile.slice", Vec, {Vec}, a));         // metadata: no pipe
  CHECK_FALSE(pipe("tile.create", Vec, {}, a));
  CHECK(pipe("tile.read", ScalarLocal, {Vec}, a) == Pipe::S);
  CHECK_FALSE(pipe("tile.add", std::nullopt, {Vec}, a));  // no single result space
  CHECK_FALSE(pipe("tile.cast", Vec, {Mat}, a));          // Mat->Vec: no route, not all-Vec
  CHECK(infer_pipe(nullptr, "user.op", Vec, std::vector<MemorySpace>{Vec}, a) == Pipe::V);  // unregistered: common rule
  OpSpec hooked = OpSpec("my.op").fixed(Vec).access(AccessEvidence::functional).on_pipe(Pipe::MTE3);
  CHECK(infer_pipe(&hooked, "my.op", Vec, std::vector<MemorySpace>{Vec}, a) == Pipe::MTE3);
}

TEST_CASE("a SocPolicy drives the generic problem builder") {
  struct B {
    std::string id;
    Addr size;
    Addr alignment;
    MemorySpace arena;
    Interval lifetime;
  };
  const std::vector<B> bufs = {{"a", 100, 1, Vec, {0, 2}}, {"t", 4096, 1, DDR, {0, 4}}, {"c", 64, 1, Acc, {1, 3}}};
  SocPolicy soc = soc_a2a3();
  soc.reserve(Vec, AddrRange{0, 4096});
  const auto model = make_problem(bufs, soc);
  REQUIRE(model.problem.arenas.size() == 2);  // DDR is not planned
  CHECK(model.arena_keys == std::vector<MemorySpace>{Vec, Acc});
  CHECK(model.problem.arenas[0].capacity == 188416u);
  CHECK(model.problem.arenas[0].name == "Vec");
  CHECK(model.problem.arenas[0].reserved == std::vector<AddrRange>{{0, 4096}});
  CHECK(model.problem.arenas[1].capacity == 131072u);
  CHECK_FALSE(model.buffer_index[1]);
  CHECK(model.problem.buffers[0].alignment == 32u);
}

TEST_CASE("from_arena_policy reads any ArenaPolicy model") {
  const UnboundedArenaPolicy unbounded{64};
  const SocPolicy u = from_arena_policy(unbounded, "sim", AccRowAlignment{8, 8}, {{DDR, Vec}});
  CHECK(u.soc_name == "sim");
  CHECK_FALSE(u.configured);  // no capacity anywhere: nothing to check
  CHECK(u.alignment(Vec) == 64u);
  CHECK(u.acc_m_alignment(DataType::INT32) == 8u);
  CHECK(u.has_route(DDR, Vec));
  CHECK_FALSE(u.has_route(Vec, DDR));
  const SocPolicy c = from_arena_policy(soc_a5(), "copy", AccRowAlignment{16, 16});
  CHECK(c.configured);
  CHECK(c.capacity(Vec) == 245760u);
  CHECK_FALSE(c.capacity(DDR));
}

TEST_CASE("policies by name") {
  CHECK(soc_by_name("a2a3")->soc_name == "a2a3");
  CHECK(soc_by_name("a5")->description == "Ascend 950");
  CHECK_FALSE(soc_by_name("none")->configured);
  CHECK_FALSE(soc_by_name("910c"));
  CHECK(soc_names() == std::vector<std::string>{"a2a3", "a5", "none"});
}
