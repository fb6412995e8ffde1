// Every conformance case and every test program parses, prints to text that
// re-parses, and print -> parse -> print is a fixed point. The shared cases
// are written in canonical form, so they print back byte for byte.
#include <doctest/doctest.h>

#include "pypto_support.hpp"

using namespace pto_mem;
using namespace pto_mem::pypto;
using pto_mem::test::case_files;
using pto_mem::test::own_data_files;
using pto_mem::test::parse_ok;
using pto_mem::test::program_text;
using pto_mem::test::read_text;

namespace {

void check_fixed_point(const std::string& path) {
  CAPTURE(path);
  const std::string text = read_text(path);
  Program p = parse_ok(text, path);
  const std::string first = print(p);
  Program q = parse_ok(first, path + " (printed)");
  const std::string second = print(q);
  CHECK(first == second);
}

}  // namespace

TEST_CASE("every shared conformance case parses and prints back byte-identical") {
  if (!test::have_shared) return;
  const auto files = case_files();
  REQUIRE(files.size() >= 30);
  for (const auto& path : files) {
    CAPTURE(path);
    const std::string text = read_text(path);
    Program p = parse_ok(text, path);
    CHECK(print(p) == program_text(text));
    check_fixed_point(path);
  }
}

TEST_CASE("every test program under tests/pypto/data reaches a print/parse fixed point") {
  const auto files = own_data_files();
  REQUIRE(files.size() >= 4);
  for (const auto& path : files) check_fixed_point(path);
}

TEST_CASE("case headers are read into passes, soc, notes and facts") {
  if (!test::have_shared) return;
  const CaseHeader h =
      parse_case_header(read_text(test::shared_path("specs/pypto/cases/45_addr_spaces_from_zero.pto")));
  CHECK(h.passes == "full-pypto");
  CHECK(h.soc == "a2a3");
  CHECK(h.from.find("test_allocate_memory_addr_pass.py") != std::string::npos);
  CHECK(h.notes.size() == 4);
  REQUIRE(h.expects.size() == 13);
  CHECK(h.expects[0].kind == "move");
  CHECK(h.expects[0].args == std::vector<std::string>{"lhs_tile_Left", "lhs_tile", "Left"});
  CHECK(h.expects[3].kind == "share");
  CHECK(h.expects[5].kind == "alloc-size");
  CHECK(h.expects[5].args == std::vector<std::string>{"acc1", "4096"});
  CHECK(h.expects[6].kind == "allocs");
  CHECK(h.expects[12].kind == "addr");
  CHECK(h.expects[12].args == std::vector<std::string>{"acc1", "0"});

  for (const auto& path : case_files()) {
    CAPTURE(path);
    const CaseHeader c = parse_case_header(read_text(path));
    CHECK_FALSE(c.passes.empty());
    CHECK((c.soc == "a2a3" || c.soc == "a5"));
    CHECK_FALSE(c.expects.empty());
    for (const auto& f : c.expects) {
      CAPTURE(f.text);
      CHECK(f.kind != "unknown");
    }
  }
}

TEST_CASE("error facts split their alternatives; diag keeps the whole text") {
  const CaseHeader h = parse_case_header(
      "# passes: infer\n# soc: a5\n# expect:\n#   error bound to the same slot|live at the same time\n"
      "#   diag fell back to the legacy packing\n#   no-move\n#   space x = Vec\n#   pinned m0\n#   "
      "frobnicate x\n\n"
      "def main():\n    return\n");
  CHECK(h.soc == "a5");
  REQUIRE(h.expects.size() == 6);
  CHECK(h.expects[0].args == std::vector<std::string>{"bound to the same slot", "live at the same time"});
  CHECK(h.expects[1].args == std::vector<std::string>{"fell back to the legacy packing"});
  CHECK(h.expects[2].kind == "no-move");
  CHECK(h.expects[3].args == std::vector<std::string>{"x", "Vec"});
  CHECK(h.expects[4].kind == "pinned");
  CHECK(h.expects[5].kind == "unknown");
  CHECK(h.expects[5].line == 9);
}
