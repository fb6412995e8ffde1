// One conformance case as one CTest test: `pypto_conformance TOOL CASE.pto`
// exits 0 when every fact holds, 1 when one does not, and 77 (CTest's
// SKIP_RETURN_CODE) when the pipeline stopped at a pass that is still a
// placeholder.
#include <iostream>

#include "conformance/case_check.hpp"

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: pypto_conformance PTO_MEM_TOOL CASE.pto\n";
    return 2;
  }
  const auto r = pto_mem::conformance::run_case(argv[1], argv[2]);
  std::cout << pto_mem::conformance::describe(r);
  switch (r.outcome) {
    case pto_mem::conformance::Outcome::passed: return 0;
    case pto_mem::conformance::Outcome::skipped: return 77;
    case pto_mem::conformance::Outcome::failed: return 1;
  }
  return 1;
}
