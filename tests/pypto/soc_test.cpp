// SoC policies: the ArenaPolicy model, capacities, Acc rows, routes, pipes;
// the allocator decisions a policy carries; chips described in JSON files.
#include <sys/wait.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include <doctest/doctest.h>

#include "pass_support.hpp"
#include "pto_mem/core/make_problem.hpp"
#include "pto_mem/pypto/soc/soc_file.hpp"
#include "pypto_support.hpp"

using namespace pto_mem;
using namespace pto_mem::pypto;
using enum MemorySpace;

static_assert(ArenaPolicy<SocPolicy, MemorySpace>);

TEST_CASE("a2a3 and a5 capacities are the documented ones") {
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

TEST_CASE("infer_pipe: the pipe each op runs on") {
  const OpRegistry reg = OpRegistry::with_builtins();
  const SocPolicy a = soc_a2a3(), b = soc_a5();
  auto pipe = [&](const char* op, std::optional<MemorySpace> r, std::vector<MemorySpace> args,
                  const SocPolicy& s) { return infer_pipe(reg.find(op), op, r, args, s); };
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
  CHECK_FALSE(pipe("tile.move", Vec, {Acc}, a));         // no Acc->Vec route on 910B
  CHECK(pipe("tile.move", Vec, {Acc}, b) == Pipe::FIX);
  CHECK_FALSE(pipe("tile.move", Vec, {Mat, Vec}, a));  // a move has one source
  CHECK_FALSE(pipe("tile.slice", Vec, {Vec}, a));      // metadata: no pipe
  CHECK_FALSE(pipe("tile.create", Vec, {}, a));
  CHECK(pipe("tile.read", ScalarLocal, {Vec}, a) == Pipe::S);
  CHECK_FALSE(pipe("tile.add", std::nullopt, {Vec}, a));  // no single result space
  CHECK_FALSE(pipe("tile.cast", Vec, {Mat}, a));          // Mat->Vec: no route, not all-Vec
  CHECK(infer_pipe(nullptr, "user.op", Vec, std::vector<MemorySpace>{Vec}, a) ==
        Pipe::V);  // unregistered: common rule
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
  const std::vector<B> bufs = {
      {"a", 100, 1, Vec, {0, 2}}, {"t", 4096, 1, DDR, {0, 4}}, {"c", 64, 1, Acc, {1, 3}}};
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

// ---- the allocator decisions a policy carries ------------------------------------------

namespace {

/// A generic policy of a compiler's own: no Bias, 128-byte Mat addresses, and
/// a placement order of its own (the optional `placement_order()` member).
struct OwnPolicy {
  bool planned(MemorySpace s) const { return s == Vec || s == Mat; }
  std::optional<Addr> capacity(MemorySpace s) const {
    return s == Vec ? std::optional<Addr>(4096) : std::nullopt;
  }
  std::vector<AddrRange> reserved(MemorySpace s) const {
    return s == Vec ? std::vector<AddrRange>{{0, 256}} : std::vector<AddrRange>{};
  }
  Addr alignment(MemorySpace s) const { return s == Mat ? 128 : 64; }
  std::string name(MemorySpace s) const { return std::string(to_string(s)); }
  PlacementOrder placement_order() const { return PlacementOrder::first_seen; }
};
static_assert(ArenaPolicy<OwnPolicy, MemorySpace>);

}  // namespace

TEST_CASE("a policy carries which spaces are allocated, each space's alignment and the placement order") {
  const SocPolicy p = from_arena_policy(OwnPolicy{}, "own", AccRowAlignment{16, 16});
  CHECK(p.planned(Vec));
  CHECK(p.planned(Mat));
  CHECK_FALSE(p.planned(Bias));
  CHECK_FALSE(p.planned(DDR));
  CHECK(p.alignment(Vec) == 64u);
  CHECK(p.alignment(Mat) == 128u);
  CHECK(p.placement_order == PlacementOrder::first_seen);
  CHECK(p.reserved(Vec) == std::vector<AddrRange>{{0, 256}});
  // The orders, as strict weak orders on (name, bytes, first seen).
  SocPolicy q = soc_a2a3();
  const PlacementKey a{"mem_vec_10", 64, 0}, b{"mem_vec_2", 4096, 1};
  CHECK(q.places_before(a, b));  // name: string order
  q.placement_order = PlacementOrder::size_descending;
  CHECK(q.places_before(b, a));
  q.placement_order = PlacementOrder::first_seen;
  CHECK(q.places_before(a, b));
  CHECK_FALSE(q.places_before(a, a));
  // Arena reserved ranges: the SoC's windows merged with a reserve_buffer floor.
  SocPolicy r = soc_a2a3();
  r.reserve(Vec, {512, 1024}).reserve(Vec, {4096, 8192});
  CHECK(arena_reserved_ranges(&r, Vec, 768) == std::vector<AddrRange>{{0, 1024}, {4096, 8192}});
  CHECK(arena_reserved_ranges(&r, Mat, 0).empty());
  CHECK(arena_reserved_ranges(nullptr, Vec, 64) == std::vector<AddrRange>{{0, 64}});
}

TEST_CASE("the sequential planner follows the policy's placement order and alignment") {
  const std::string text =
      "@function(type=InCore)\n"
      "def main(x: Tensor[[1, 24], FP32], y: Tensor[[16, 64], FP32]):\n"
      "    small = tile.load(x, [0, 0], [1, 24], target_memory=Vec)\n"
      "    big = tile.load(y, [0, 0], [16, 64], target_memory=Vec)\n"
      "    s = tile.add(small, small)\n"
      "    b = tile.add(big, big)\n"
      "    return\n";
  SocPolicy soc = soc_a2a3();
  auto addr = [&](const std::string& v) {
    auto r = test::compile_ok(text, Stage::alloc, Planner::pypto, soc);
    return *as_const_int(test::memref(r.program, v)->byte_offset);
  };
  CHECK(addr("small") == 0);  // name order: mem_vec_2 first
  CHECK(addr("big") == 96);
  soc.placement_order = PlacementOrder::size_descending;
  CHECK(addr("big") == 0);
  CHECK(addr("small") == 4096);
  soc.placement_order = PlacementOrder::name;
  soc.align(Vec, 256);
  CHECK(addr("big") == 256);
  soc.reserve(Vec, {0, 1024});
  CHECK(addr("small") == 1024);
}

TEST_CASE("a SoC file: every field read; the example chip of examples/data is valid") {
  auto r = read_soc_json(R"({"name": "chip", "description": "a chip", "alignment": 64,
    "acc_rows": {"int32": 8, "other": 4}, "placement_order": "first_seen",
    "spaces": {"Vec": {"capacity": 4096, "reserved": [[0, 512], [1024, 2048]]},
               "Mat": {"capacity": 8192, "alignment": 256}, "Bias": {"planned": false}},
    "routes": {"DDR": ["Vec", "Mat"], "Mat": ["Left"]}})");
  INFO(test::dump(r.diagnostics));
  REQUIRE(r.soc);
  const SocPolicy& s = *r.soc;
  CHECK(s.soc_name == "chip");
  CHECK(s.description == "a chip");
  CHECK(s.configured);
  CHECK(s.capacity(Vec) == 4096u);
  CHECK(s.capacity(Mat) == 8192u);
  CHECK_FALSE(s.capacity(Left));  // not listed: planned, unchecked
  CHECK(s.planned(Left));
  CHECK_FALSE(s.planned(Bias));
  CHECK(s.alignment(Vec) == 64u);
  CHECK(s.alignment(Mat) == 256u);
  CHECK(s.acc_m_alignment(DataType::INT32) == 8u);
  CHECK(s.acc_m_alignment(DataType::FP32) == 4u);
  CHECK(s.placement_order == PlacementOrder::first_seen);
  CHECK(s.reserved(Vec) == std::vector<AddrRange>{{0, 512}, {1024, 2048}});
  CHECK(s.has_route(DDR, Mat));
  CHECK(s.has_route(Mat, Left));
  CHECK_FALSE(s.has_route(Vec, DDR));

  auto tiny = load_soc_file(std::string(PTO_MEM_SOURCE_DIR) + "/examples/data/tiny_npu.soc.json");
  INFO(test::dump(tiny.diagnostics));
  REQUIRE(tiny.soc);
  CHECK(tiny.soc->soc_name == "tiny");
  CHECK(tiny.soc->capacity(Vec) == 98304u);
}

TEST_CASE("a bad SoC file: every mistake at its file:line:column, and no policy") {
  auto errors = [](const std::string& text) {
    auto r = read_soc_json(text, "chip.json");
    CHECK_FALSE(r.soc);
    std::vector<std::string> out;
    for (const auto& d : r.diagnostics) out.push_back(format(d));
    return out;
  };
  CHECK(
      errors("{\"name\": \"c\",\n \"spaces\": {\"Vec\": {\"capacity\": 10,}}}") ==
      std::vector<std::string>{"chip.json:2:36: error: invalid JSON: syntax error while parsing object key - "
                               "unexpected '}'; expected string literal"});
  const auto e = errors(
      "{\"name\": \"c\",\n"
      " \"spaces\": {\"Vec\": {\"capacity\": -1},\n"
      "            \"Vector\": {},\n"
      "            \"DDR\": {\"capacity\": 1},\n"
      "            \"Mat\": {\"capacity\": 64, \"reserved\": [[32, 16], [0, 128]], \"size\": 1}},\n"
      " \"placement_order\": \"random\",\n"
      " \"routes\": {\"Mat\": [\"L0A\"]}}");
  REQUIRE(e.size() == 8);
  CHECK(e[0] ==
        "chip.json:6:21: error: /placement_order: placement_order must be \"name\", \"first_seen\" or "
        "\"size_descending\", found the string \"random\"");
  CHECK(e[1] ==
        "chip.json:4:20: error: /spaces/DDR: DDR is never planned (off-chip memory); remove it from spaces");
  CHECK(e[2].find("chip.json:5:79: error: /spaces/Mat/size: unknown key \"size\" in a space description") ==
        0);
  CHECK(e[3] ==
        "chip.json:5:50: error: /spaces/Mat/reserved/0: a reserved window must have begin < end, found "
        "[32, 16]");
  CHECK(e[4] ==
        "chip.json:5:60: error: /spaces/Mat/reserved/1: the reserved window [0, 128) ends beyond the Mat "
        "capacity (64 bytes)");
  CHECK(e[5] ==
        "chip.json:2:33: error: /spaces/Vec/capacity: capacity must be a positive integer of at most 2^40, "
        "found -1");
  CHECK(e[6].find("chip.json:3:23: error: /spaces/Vector: unknown memory space \"Vector\"") == 0);
  CHECK(e[7].find("chip.json:7:21: error: /routes/Mat/0: unknown memory space \"L0A\"") == 0);
  CHECK(errors("{\"spaces\": {}}") ==
        std::vector<std::string>{
            "chip.json:1:1: error: /: a SoC description needs a \"name\" (a non-empty string, "
            "e.g. \"tiny\")"});
  auto missing = load_soc_file("/nonexistent/chip.json");
  CHECK_FALSE(missing.soc);
  REQUIRE(missing.diagnostics.size() == 1);
  CHECK(format(missing.diagnostics[0]).find("/nonexistent/chip.json: error: cannot read") == 0);
}

#ifdef PTO_MEM_TOOL
namespace {

/// Runs `pto-mem ARGS`, standard output and error together, and its exit code.
std::pair<int, std::string> run_tool(const std::string& args) {
  const std::string cmd = std::string(PTO_MEM_TOOL) + " " + args + " 2>&1";
  std::string out;
  FILE* pipe = ::popen(cmd.c_str(), "r");
  REQUIRE(pipe);
  char buf[4096];
  std::size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, pipe)) > 0) out.append(buf, n);
  const int st = ::pclose(pipe);
  return {WIFEXITED(st) ? WEXITSTATUS(st) : -1, out};
}

}  // namespace

TEST_CASE("pto-mem compile --soc-file: the chip is used; a bad file is rejected with its position") {
  const std::string src = PTO_MEM_SOURCE_DIR;
  const std::string kernel = src + "/tests/pypto/cases/seed_20_soc_file_tiny_npu.pto";
  auto [ok, report] =
      run_tool("compile " + kernel + " --soc-file " + src + "/examples/data/tiny_npu.soc.json --emit json");
  CHECK(ok == 0);
  CHECK(report.find("\"soc\": \"tiny\"") != std::string::npos);
  const auto dir = std::filesystem::temp_directory_path() / "pto_mem_soc_test";
  std::filesystem::create_directories(dir);
  const auto bad = (dir / "bad.json").string();
  {
    std::ofstream f(bad);
    f << "{\"name\": \"x\",\n \"spaces\": {\"Vec\": {\"capacity\": \"big\"}}}\n";
  }
  auto [rc, err] = run_tool("compile " + kernel + " --soc-file " + bad);
  CHECK(rc == 2);
  CHECK(err.find(bad + ":2:33: error: /spaces/Vec/capacity: capacity must be a positive integer") !=
        std::string::npos);
  auto [both, msg] = run_tool("compile " + kernel + " --soc a5 --soc-file " + bad);
  CHECK(both != 0);
  CHECK(msg.find("excludes") != std::string::npos);
  std::filesystem::remove_all(dir);
}
#endif
