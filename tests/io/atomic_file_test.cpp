#include <doctest/doctest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "pto_mem/io/atomic_file.hpp"
#include "pto_mem/io/csv.hpp"
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
