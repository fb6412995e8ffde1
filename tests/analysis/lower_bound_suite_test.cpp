// The max-load lower bound on the MiniMalloc challenging suite, against the
// figures MiniMalloc's suite is known for (most instances are perfect packings: the bound
// equals the capacity 1048576).
#include <doctest/doctest.h>

#include <string>

#include "pto_mem/analysis/lower_bound.hpp"
#include "pto_mem/io/csv.hpp"
#include "test_support.hpp"

using namespace pto_mem;

TEST_CASE("lower bound of the MiniMalloc challenging instances A-K") {
  if (!pto_mem::test::have_shared) {
    MESSAGE("PTO_MEM_SHARED_DIR has no data/: skipped");
    return;
  }
  const std::pair<const char*, Addr> expected[] = {
      {"A", 1048576}, {"B", 1048576}, {"C", 1039360}, {"D", 986112}, {"E", 1048576}, {"F", 1048576},
      {"G", 1048576}, {"H", 1048576}, {"I", 1048576}, {"J", 989184}, {"K", 1048576},
  };
  for (const auto& [name, bound] : expected) {
    const std::string path =
        pto_mem::test::shared_path(std::string("data/minimalloc/") + name + ".1048576.csv");
    CAPTURE(path);
    const auto r = read_csv_file(path, CsvOptions{1048576, "arena0", 20});
    REQUIRE_MESSAGE(r, pto_mem::test::dump(r.diagnostics));
    const auto loads = arena_loads(r.file->problem);
    REQUIRE(loads.size() == 1);
    CHECK(loads[0].lower_bound == bound);
    CHECK(loads[0].max_load == bound);
    CHECK(loads[0].buffers == r.file->problem.buffers.size());
  }
}

TEST_CASE("lower bound of the 5-buffer MiniMalloc example is its capacity 12") {
  if (!pto_mem::test::have_shared) {
    MESSAGE("PTO_MEM_SHARED_DIR has no data/: skipped");
    return;
  }
  const auto r =
      read_csv_file(pto_mem::test::shared_path("data/minimalloc/input.12.csv"), CsvOptions{12, "arena0", 20});
  REQUIRE(r);
  CHECK(arena_loads(r.file->problem)[0].lower_bound == 12);
}
