// The case files of tests/pypto/data/passes: post-InitMemRef programs run
// through the later passes, each fact of their header checked (pass_facts.hpp).
#include <doctest/doctest.h>

#include "pass_facts.hpp"

using namespace pto_mem;
using namespace pto_mem::test;

namespace {

std::vector<std::string> pass_case_files() {
  return pto_files(std::string(PTO_MEM_SOURCE_DIR) + "/tests/pypto/data/passes");
}

}  // namespace

TEST_CASE("pass cases: every fact holds") {
  const auto files = pass_case_files();
  REQUIRE(files.size() >= 18);
  for (const auto& path : files) {
    const std::string text = read_text(path);
    const pypto::CaseHeader h = pypto::parse_case_header(text);
    const auto colon = h.passes.find(':');
    REQUIRE_MESSAGE(colon != std::string::npos, path << ": '# passes:' needs <planner>:<passes>");
    const auto planner = planner_named(h.passes.substr(0, colon));
    REQUIRE_MESSAGE(planner, path << ": unknown planner");
    REQUIRE_MESSAGE(!h.expects.empty(), path << ": no facts");
    PassRun r =
        run_text(program_text(text), h.passes.substr(colon + 1), *planner, h.soc.empty() ? "a2a3" : h.soc);
    check_facts(r, h.expects, path);
  }
}

TEST_CASE("pass cases: a fact that does not hold is reported") {
  const std::string text = read_text(std::string(PTO_MEM_SOURCE_DIR) +
                                     "/tests/pypto/data/passes/c27_alias_refused_read_after_if.pto");
  PassRun r = run_text(program_text(text), "alias+reuse");
  REQUIRE(r.ok());
  for (const char* wrong : {"share tile_c init_0", "distinct if_result tile_c", "allocs Vec = 3", "no-move",
                            "move if_result_mv from tile_c to Vec", "space tile_c = Mat", "addr tile_c = 64",
                            "alloc-size tile_c = 4096", "pinned tile_c", "diag anything", "error anything"}) {
    INFO(wrong);
    CHECK_FALSE(check_fact(r, facts(wrong).front()).empty());
  }
  for (const char* right :
       {"distinct tile_c init_0", "share if_result tile_c", "allocs Vec = 2", "move * from if_result to Vec",
        "space tile_c = Vec", "addr tile_c = 0", "alloc-size tile_c = 16384"}) {
    INFO(right);
    CHECK(check_fact(r, facts(right).front()).empty());
  }
}
