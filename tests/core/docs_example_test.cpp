// docs/index.md shows examples/quick_start.cpp between its markers verbatim;
// the tool suite runs the built example. Together: the example a newcomer
// reads is the one that compiles and runs.
#include <doctest/doctest.h>

#include <fstream>
#include <sstream>
#include <string>

namespace {
std::string read(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}
}  // namespace

TEST_CASE("docs/index.md shows the quick-start example exactly as it is compiled") {
  const std::string source = read(std::string(PTO_MEM_SOURCE_DIR) + "/examples/quick_start.cpp");
  const std::string marker = "// [quick-start]\n";
  const auto from = source.find(marker);
  REQUIRE(from != std::string::npos);
  const auto to = source.find(marker, from + marker.size());
  REQUIRE(to != std::string::npos);
  const std::string example = source.substr(from + marker.size(), to - from - marker.size());
  const std::string docs = read(std::string(PTO_MEM_SOURCE_DIR) + "/docs/index.md");
  CHECK_MESSAGE(docs.find("```cpp\n" + example + "```\n") != std::string::npos,
                "docs/index.md must hold examples/quick_start.cpp's quick-start part in a ```cpp block");
  // No string ids, no index bookkeeping.
  CHECK(example.find("buffer_index") == std::string::npos);
  CHECK(example.find("make_problem") == std::string::npos);
  CHECK(example.find("tiles[") == std::string::npos);
}
