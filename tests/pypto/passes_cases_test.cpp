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
    PassRun r = run_text(program_text(text), h.passes.substr(colon + 1), *planner, h.soc.empty() ? "a2a3" : h.soc);
    check_facts(r, h.expects, path);
  }
}
