#include <doctest/doctest.h>

#include <filesystem>
#include <string>
#include <vector>

#include <unistd.h>

#include "pto_mem/io/atomic_file.hpp"
#include "pto_mem/io/csv.hpp"
#include "pto_mem/io/output_set.hpp"
#include "temp_dir.hpp"
#include "test_support.hpp"

using namespace pto_mem;
using pto_mem::test::read_file;
using pto_mem::test::TempDir;

TEST_CASE("atomic write: creates the file with exactly the text and no temporary") {
  TempDir dir;
  const std::string text = std::string("line\n") + std::string(100000, 'x') + '\0' + "tail";
  CHECK_FALSE(write_file_atomically(dir.file("out.txt"), text).has_value());
  CHECK(read_file(dir.file("out.txt")) == text);
  CHECK(dir.entries() == std::vector<std::string>{"out.txt"});
}

TEST_CASE("atomic write: replaces an existing file whole") {
  TempDir dir;
  dir.write("out.txt", std::string(5000, 'o'));
  CHECK_FALSE(write_file_atomically(dir.file("out.txt"), "new").has_value());
  CHECK(read_file(dir.file("out.txt")) == "new");
  CHECK(dir.entries() == std::vector<std::string>{"out.txt"});
}

TEST_CASE("atomic write: a failure names the file and leaves nothing behind") {
  TempDir dir;
  auto missing = write_file_atomically(dir.file("nope/out.txt"), "x");
  REQUIRE(missing);
  CHECK(missing->message.find("does not exist") != std::string::npos);
  CHECK(format(*missing).starts_with(dir.file("nope/out.txt") + ": error: cannot write"));

  std::filesystem::create_directory(dir.path() / "sub");
  auto is_dir = write_file_atomically(dir.path() / "sub", "x");
  REQUIRE(is_dir);
  CHECK(is_dir->message.find("s a directory") != std::string::npos);
  CHECK(std::filesystem::is_empty(dir.path() / "sub"));

  auto trailing = write_file_atomically(dir.file("sub/"), "x");
  REQUIRE(trailing);
  CHECK(dir.entries() == std::vector<std::string>{"sub"});
}

TEST_CASE("atomic write: a writer that refuses its input touches no file") {
  TempDir dir;
  dir.write("keep.csv", "old contents\n");
  Problem p;
  p.arenas = {{0, "a", 10, {}}, {1, "b", 10, {}}};
  const auto errors = write_csv_file(dir.file("keep.csv"), p);
  CHECK(has_errors(errors));
  CHECK(format(errors[0]).starts_with(dir.file("keep.csv") + ": error: CSV holds exactly one arena"));
  CHECK(read_file(dir.file("keep.csv")) == "old contents\n");
  CHECK(has_errors(write_csv_file(dir.file("new.csv"), p)));
  CHECK(dir.entries() == std::vector<std::string>{"keep.csv"});
}

TEST_CASE("atomic write: a file that cannot be renamed into place is cleaned up") {
  TempDir dir;
  // The target is a non-empty directory: the temporary is written, the
  // rename fails, and the temporary must be removed again.
  std::filesystem::create_directories(dir.path() / "busy" / "inner");
  auto bad = write_file_atomically(dir.path() / "busy", "x");
  REQUIRE(bad);
  CHECK(dir.entries() == std::vector<std::string>{"busy"});
}

TEST_CASE(
    "atomic write: every file name the directory allows is writable; a longer one fails before any work") {
  TempDir dir;
  const long got = ::pathconf(dir.path().c_str(), _PC_NAME_MAX);
  const std::size_t longest = got > 0 ? static_cast<std::size_t>(got) : 255;
  // The temporary is ".NAME.tmp-XXXXXXXX": without a cut, names of the last
  // 14 allowed lengths could be resolved but never written.
  for (std::size_t n : {std::size_t{6}, std::size_t{200}, longest - 14, longest - 13, longest - 1, longest}) {
    const std::string name = std::string(n - 5, 'n') + ".json";
    OutputTarget target;
    REQUIRE_FALSE(resolve_output(dir.file(name), target).has_value());
    INFO("name of " << n << " bytes");
    CHECK_FALSE(write_file_atomically(dir.file(name), "text").has_value());
    CHECK(read_file(dir.file(name)) == "text");
    CHECK(dir.entries() == std::vector<std::string>{name});
    std::filesystem::remove(dir.file(name));
  }
  // UTF-8 names are cut at a character boundary, never inside one.
  std::string wide;
  while (wide.size() + 2 <= longest) wide += "\xC3\xA9";  // U+00E9, two bytes
  CHECK_FALSE(write_file_atomically(dir.file(wide), "x").has_value());
  CHECK(dir.entries() == std::vector<std::string>{wide});
  std::filesystem::remove(dir.file(wide));

  const std::string too_long(longest + 1, 'x');
  OutputTarget target;
  const auto refused = resolve_output(dir.file(too_long), target);
  REQUIRE(refused);
  CHECK(refused->message.find("the file name is " + std::to_string(longest + 1) +
                              " bytes long; the longest allowed is " + std::to_string(longest)) !=
        std::string::npos);
  OutputSet set;
  set.add("--output", dir.file(too_long));
  CHECK(has_errors(set.check({})));  // refused by the check every tool runs before planning
  CHECK(dir.entries().empty());
}
