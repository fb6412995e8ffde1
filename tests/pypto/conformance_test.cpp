// The conformance checker itself (each fact can fail), and every case file
// run through the tool in one go (CTest also runs each case on its own:
// "conformance: spec/NN_...").
#include <doctest/doctest.h>

#include "conformance/case_check.hpp"
#include "pypto_support.hpp"

using namespace pto_mem;
using namespace pto_mem::conformance;

namespace {

const json report = json::parse(R"({
  "ok": true,
  "functions": [{
    "name": "main", "kind": "InCore",
    "allocations": [
      {"base": "mem_vec_2", "space": "Vec", "size": 16384, "addr": 0, "pinned": false, "slots": 1},
      {"base": "ping", "space": "Vec", "size": 32768, "addr": 16384, "pinned": true, "slots": 2},
      {"base": "mem_mat_3", "space": "Mat", "size": 512, "addr": 0, "pinned": false, "slots": 1}],
    "vars": [
      {"name": "a", "space": "Vec", "memref": {"base": "mem_vec_2", "offset": 0, "size": 16384, "slot": null}},
      {"name": "b", "space": "Vec", "memref": {"base": "mem_vec_2", "offset": 0, "size": 16384, "slot": null}},
      {"name": "s", "space": "Vec", "memref": {"base": "mem_vec_2", "offset": 64, "size": 64, "slot": null}},
      {"name": "p", "space": "Vec", "memref": {"base": "ping", "offset": 16384, "size": 16384, "slot": 0}},
      {"name": "q", "space": "Vec", "memref": {"base": "ping", "offset": "16384 + i % 2 * 16384", "size": 16384,
                                               "slot": "i % 2"}},
      {"name": "m", "space": "Mat", "memref": {"base": "mem_mat_3", "offset": 0, "size": 512, "slot": null}},
      {"name": "n", "space": null, "memref": null}],
    "moves": [{"name": "m_Vec", "source": "m", "target": "Vec", "line": 4, "column": 5}]}],
  "diagnostics": [{"severity": "warning", "code": "x", "message": "fell back to the legacy packing",
                   "line": null, "column": null}]
})");

bool holds(const std::string& fact) {
  auto h = pypto::parse_case_header("# expect:\n#   " + fact + "\n\nx\n");
  REQUIRE(h.expects.size() == 1);
  REQUIRE(h.expects[0].kind != "unknown");
  auto r = check_facts(h, report, 0);
  REQUIRE(r.size() == 1);
  if (!r[0].ok) REQUIRE_FALSE(r[0].why.empty());
  return r[0].ok;
}

}  // namespace

TEST_CASE("every fact kind can hold and can fail") {
  CHECK(holds("space a = Vec"));
  CHECK_FALSE(holds("space a = Mat"));
  CHECK_FALSE(holds("space nobody = Vec"));
  CHECK(holds("move m_Vec from m to Vec"));
  CHECK(holds("move * from m to Vec"));
  CHECK_FALSE(holds("move m_Vec from m to Left"));
  CHECK_FALSE(holds("move m_Vec from a to Vec"));
  CHECK_FALSE(holds("no-move"));
  CHECK(holds("share a b"));
  CHECK_FALSE(holds("share a s"));  // same base, different window
  CHECK_FALSE(holds("share p q"));  // a symbolic offset is not a constant one
  CHECK(holds("distinct a m"));
  CHECK(holds("distinct s p"));
  CHECK_FALSE(holds("distinct a s"));  // overlapping windows of one base
  CHECK_FALSE(holds("distinct p q"));  // cannot tell with a symbolic offset
  CHECK_FALSE(holds("distinct a n"));  // n has no MemRef
  CHECK(holds("allocs Vec = 2"));
  CHECK(holds("allocs Left = 0"));
  CHECK_FALSE(holds("allocs Mat = 2"));
  CHECK(holds("alloc-size p = 32768"));
  CHECK(holds("alloc-size s = 16384"));
  CHECK_FALSE(holds("alloc-size p = 16384"));
  CHECK_FALSE(holds("alloc-size n = 0"));
  CHECK(holds("addr p = 16384"));
  CHECK_FALSE(holds("addr q = 16384"));
  CHECK(holds("pinned q"));
  CHECK_FALSE(holds("pinned a"));
  CHECK(holds("diag legacy packing"));
  CHECK_FALSE(holds("diag something else"));
}

TEST_CASE("error facts: the run must fail and one message must match every error line") {
  const json failed = json::parse(R"({"ok": false, "functions": [], "diagnostics": [
      {"severity": "warning", "code": "", "message": "capacity fine", "line": null, "column": null},
      {"severity": "error", "code": "capacity", "message": "Vec buffer usage (192512 bytes) exceeds platform limit",
       "line": 3, "column": 5}]})");
  auto header = [](const std::string& facts) {
    return pypto::parse_case_header("# expect:\n" + facts + "\n\nx\n");
  };
  auto ok = [&](const std::string& facts, int exit_code) {
    bool all = true;
    for (const auto& f : check_facts(header(facts), failed, exit_code)) all &= f.ok;
    return all;
  };
  CHECK(ok("#   error exceeds platform limit", 1));
  CHECK(ok("#   error nothing like it|Vec buffer usage", 1));
  CHECK(ok("#   error Vec buffer\n#   error 192512 bytes", 1));
  CHECK_FALSE(ok("#   error Vec buffer\n#   error capacity fine", 1));  // a warning does not count
  CHECK_FALSE(ok("#   error exceeds platform limit", 0));               // the run must fail
  CHECK_FALSE(ok("#   error Mat buffer", 1));
  // Without error facts a failing run fails every fact.
  CHECK_FALSE(ok("#   allocs Vec = 0", 2));
}

TEST_CASE("case headers map to tool flags") {
  pypto::CaseHeader h;
  h.soc = "a5";
  h.passes = "infer+init+alias";
  CHECK(*tool_flags(h) == std::vector<std::string>{"--until", "alias", "--planner", "pypto", "--soc", "a5"});
  h.passes = "full-dsa_rp";
  CHECK(*tool_flags(h) == std::vector<std::string>{"--until", "alloc", "--planner", "dsa_rp", "--soc", "a5"});
  h.passes = "full-ptoas";
  CHECK((*tool_flags(h))[3] == "ptoas");
  h.passes = "infer+reuse";
  CHECK_FALSE(tool_flags(h));
}

#ifdef PTO_MEM_TOOL
TEST_CASE("conformance: every case through the tool") {
  std::vector<std::string> files;
  if (test::have_shared) files = test::case_files();
  for (const auto& f : test::pto_files(std::string(PTO_MEM_SOURCE_DIR) + "/tests/pypto/cases"))
    files.push_back(f);
  for (const auto& f : test::pto_files(std::string(PTO_MEM_SOURCE_DIR) + "/examples/kernels"))
    files.push_back(f);
  REQUIRE_FALSE(files.empty());
  int passed = 0;
  for (const auto& file : files) {
    const CaseResult r = run_case(PTO_MEM_TOOL, file);
    INFO(describe(r));
    CHECK(r.outcome == Outcome::passed);
    if (r.outcome == Outcome::passed) ++passed;
  }
  MESSAGE(passed << " of " << files.size() << " cases passed");
}
#endif
