// Round trips: a planned program compiled again is the same planned program.
// compile(print(compile(x))) prints what compile(x) printed, for every case
// file, every bundled kernel and random kernels, under every planner and both
// storage modes: declared allocations, pinning, slots, names and addresses
// survive the text.
#include <doctest/doctest.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "pto_mem/pypto/passes/planned_input.hpp"
#include "pto_mem/pypto/text/case_header.hpp"
#include "pypto_support.hpp"
#include "storage_kernel_gen.hpp"

using namespace pto_mem;
using namespace pto_mem::pypto;

namespace {

struct RoundTripInput {
  std::string name, text;
};

std::vector<RoundTripInput> round_trip_files() {
  std::vector<RoundTripInput> out;
  const std::string root = PTO_MEM_SOURCE_DIR;
  for (const char* dir : {"/tests/pypto/cases", "/tests/pypto/storage_cases", "/tests/pypto/data", "/examples/kernels"})
    for (const auto& f : test::pto_files(root + dir)) out.push_back({f, test::read_text(f)});
  return out;
}

/// The case header's SoC (`# soc: a5`), a2a3 otherwise.
SocPolicy round_trip_soc(const std::string& text) {
  const CaseHeader h = parse_case_header(text);
  if (!h.soc.empty())
    if (auto s = soc_by_name(h.soc)) return *s;
  return soc_a2a3();
}

struct RoundTripStats {
  std::size_t checked = 0, refused = 0;
};

/// Compiles `text`, prints it, compiles the print and compares; a program
/// the pipeline refuses is counted, not checked.
void round_trip(const std::string& name, const std::string& text, Planner planner, bool buffer_ir,
                RoundTripStats& stats) {
  CompileOptions o;
  o.planner = planner;
  o.buffer_ir = buffer_ir;
  o.soc = round_trip_soc(text);
  ParseOptions po;
  po.allow_rebinding = true;  // as the tool reads programs
  const CompileResult first = compile_source(text, name, o, po);
  if (!first.ok()) {
    ++stats.refused;
    return;
  }
  const std::string printed = print(first.program);
  const CompileResult again = compile_source(printed, name + " (printed)", o, po);
  INFO(name << " under " << to_string(planner) << (buffer_ir ? ", buffer-ir" : ", legacy"));
  INFO("first compile:\n" << printed);
  REQUIRE_MESSAGE(again.ok(), test::dump(again.diagnostics));
  const std::string reprinted = print(again.program);
  CHECK_MESSAGE(reprinted == printed, "compiled again:\n" << reprinted);
  ++stats.checked;
}

}  // namespace

TEST_CASE("round trip: the planned pingpong kernel keeps its declared allocations, pinning and slots") {
  const std::string text = test::read_text(std::string(PTO_MEM_SOURCE_DIR) + "/examples/kernels/pingpong.pto");
  for (Planner planner : {Planner::pypto, Planner::dsa_rp}) {
    CompileOptions o;
    o.planner = planner;
    const CompileResult first = compile_source(text, "pingpong.pto", o);
    REQUIRE(first.ok());
    const std::string printed = print(first.program);
    REQUIRE(printed.find("ping: Ptr = tile.alloc(Vec, 32768, pinned=True)") != std::string::npos);
    const CompileResult again = compile_source(printed, "a.pto", o);
    REQUIRE(again.ok());
    const std::string reprinted = print(again.program);
    CHECK(reprinted.find("ping: Ptr = tile.alloc(Vec, 32768, pinned=True)") != std::string::npos);
    CHECK(reprinted.find("pong: Ptr = tile.alloc(Vec, 32768, pinned=True)") != std::string::npos);
    CHECK(reprinted.find("slots=2)[k % 2]") != std::string::npos);
    CHECK(reprinted == printed);
    CHECK(again.allocation_addresses == first.allocation_addresses);
  }
}

TEST_CASE("round trip: a tile on a pinned allocation is bound to its declaration again, its views are not") {
  const std::string text =
      "@function(type=InCore)\n"
      "def main(x: Tensor[[64, 64], FP32], o: Out[Tensor[[64, 64], FP32]]) -> Tensor[[64, 64], FP32]:\n"
      "    buf: Ptr = tile.alloc(Vec, 8192, pinned=True)\n"
      "    t: Tile[[32, 64], FP32, MemRef(buf, 0, 8192), Vec] = tile.load(x, [0, 0], [32, 64], target_memory=Vec)\n"
      "    v: Tile[[16, 64], FP32, MemRef(buf, 0, 4096), Vec] = tile.slice(t, [16, 64], [0, 0])\n"
      "    r: Tensor[[64, 64], FP32] = tile.store(v, [0, 0], o)\n"
      "    return r\n";
  Program p = test::parse_ok(text);
  CHECK(passes::restore_declarations(p.functions[0].body, default_registry()) == 1);
  const CompileResult r = compile(p);
  INFO(test::dump(r.diagnostics));
  REQUIRE(r.ok());
  const std::string printed = print(r.program);
  CHECK(printed.find("buf: Ptr = tile.alloc(Vec, 8192, pinned=True)") != std::string::npos);
}

TEST_CASE("round trip: compile(print(compile(x))) == compile(x) on every case file and bundled kernel") {
  RoundTripStats stats;
  const auto files = round_trip_files();
  REQUIRE(files.size() > 100);
  for (const auto& in : files)
    for (Planner planner : {Planner::pypto, Planner::dsa_rp, Planner::ptoas})
      for (bool buffer_ir : {true, false}) round_trip(in.name, in.text, planner, buffer_ir, stats);
  MESSAGE(stats.checked << " planned programs compiled twice; " << stats.refused << " inputs refused");
  CHECK(stats.checked > 1000);
}

TEST_CASE("round trip: compile(print(compile(x))) == compile(x) on random kernels") {
  // PTO_MEM_PROPERTY_SEEDS=N runs N kernels (as the storage property test does; here a tenth of them).
  const char* env = std::getenv("PTO_MEM_PROPERTY_SEEDS");
  const std::uint64_t kernels = env ? std::strtoull(env, nullptr, 10) / 10 : 150;
  RoundTripStats stats;
  for (std::uint64_t seed = 1; seed <= kernels; ++seed) {
    const std::string text = test::StorageKernelGen(seed).make();
    for (Planner planner : {Planner::pypto, Planner::dsa_rp, Planner::ptoas})
      for (bool buffer_ir : {true, false})
        round_trip("kernel " + std::to_string(seed), text, planner, buffer_ir, stats);
  }
  MESSAGE(stats.checked << " random planned programs compiled twice; " << stats.refused << " refused");
  CHECK(stats.checked > kernels);
}
