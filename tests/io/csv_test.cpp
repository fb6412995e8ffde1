#include <doctest/doctest.h>

#include <filesystem>
#include <string>

#include "problem_equal.hpp"
#include "pto_mem/algorithms/validator.hpp"
#include "pto_mem/analysis/lower_bound.hpp"
#include "pto_mem/io/csv.hpp"
#include "temp_dir.hpp"
#include "test_support.hpp"

using namespace pto_mem;
using pto_mem::test::dump;

namespace {

/// The diagnostics of a CSV text that must not load, formatted as printed.
std::string csv_errors_of(const std::string& text, const CsvOptions& options = {}) {
  auto r = read_csv(text, options, "f.csv");
  CHECK_FALSE(r.file.has_value());
  CHECK(has_errors(r.diagnostics));
  return dump(r.diagnostics);
}

bool csv_contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

}  // namespace

TEST_CASE("csv: a MiniMalloc file becomes one arena of unaligned buffers") {
  auto r = read_csv("id,lower,upper,size\nb1,0,3,4\nb2,3,9,4\n7,0,9,12\n", CsvOptions{12, "arena0", 20});
  REQUIRE_MESSAGE(r, dump(r.diagnostics));
  const auto& p = r.file->problem;
  REQUIRE(p.arenas.size() == 1);
  CHECK(p.arenas[0].capacity == 12);
  CHECK(p.arenas[0].name == "arena0");
  REQUIRE(p.buffers.size() == 3);
  CHECK(p.buffers[0].name == "b1");
  CHECK(p.buffers[1].lifetime == Interval{3, 9});
  CHECK(p.buffers[2].name == "7");
  CHECK(p.buffers[2].size == 12);
  CHECK(p.buffers[2].alignment == 1);
  CHECK_FALSE(r.file->placement.has_value());
  CHECK(r.diagnostics.empty());
}

TEST_CASE("csv: columns in any order and any case; the offset column gives a placement") {
  auto r = read_csv("SIZE,Id,upper,LOWER,Offset\n16,a,4,0,0\n8,b,2,1,\n", {});
  REQUIRE_MESSAGE(r, dump(r.diagnostics));
  const auto& p = r.file->problem;
  CHECK(p.buffers[0].name == "a");
  CHECK(p.buffers[0].size == 16);
  CHECK(p.buffers[0].lifetime == Interval{0, 4});
  REQUIRE(r.file->placement);
  REQUIRE(r.file->placement->offsets.size() == 2);
  CHECK(r.file->placement->offsets[0] == Addr{0});
  CHECK_FALSE(r.file->placement->offsets[1].has_value());  // empty offset: unplaced
}

TEST_CASE("csv: CRLF line ends, no final newline and blank trailing lines are accepted") {
  for (const char* text :
       {"id,lower,upper,size\r\na,0,1,2\r\nb,1,2,3\r\n", "id,lower,upper,size\na,0,1,2\nb,1,2,3",
        "id,lower,upper,size\na,0,1,2\nb,1,2,3\n\n\r\n\n"}) {
    auto r = read_csv(text);
    REQUIRE_MESSAGE(r, dump(r.diagnostics));
    CHECK(r.file->problem.buffers.size() == 2);
    CHECK(r.file->problem.buffers[1].size == 3);
  }
}

TEST_CASE("csv: without a capacity the arena gets one every placement fits into") {
  auto r = read_csv("id,lower,upper,size\na,0,1,100\nb,0,1,28\n");
  REQUIRE(r);
  CHECK(r.file->problem.arenas[0].capacity == always_fitting_capacity(r.file->problem, 0));
  CHECK(r.file->problem.arenas[0].capacity >= 128);
  auto empty = read_csv("id,lower,upper,size\n");
  REQUIRE(empty);
  CHECK(empty.file->problem.buffers.empty());
  CHECK(empty.file->problem.arenas[0].capacity == 1);
}

TEST_CASE("csv: header errors name the column") {
  CHECK(csv_contains(csv_errors_of(""), "f.csv:1:1: error: the file is empty"));
  CHECK(csv_contains(csv_errors_of("\n\n"), "f.csv:1:1: error: the file is empty"));
  CHECK(csv_contains(csv_errors_of("\nid,lower,upper,size\n"), "f.csv:1:1: error: line 1 is blank"));
  CHECK(csv_contains(csv_errors_of("id,lower,upper,size,colour\n"),
                     "f.csv:1:21: error: unknown column 'colour'"));
  CHECK(csv_contains(csv_errors_of("id,lower,upper\n"), "f.csv:1:15: error: missing column 'size'"));
  CHECK(csv_contains(csv_errors_of("id,lower,,upper,size\n"), "f.csv:1:10: error: empty column name"));
  CHECK(csv_contains(csv_errors_of("id,lower,upper,size,Size\n"),
                     "f.csv:1:21: error: column 'size' appears twice (first as column 4)"));
  CHECK(csv_contains(csv_errors_of("id, lower,upper,size\n"), "f.csv:1:4: error: unknown column ' lower'"));
  // A byte-order mark is skipped; columns count from the byte after it.
  CHECK(csv_contains(csv_errors_of("\xEF\xBB\xBFid,lower,upper,size,colour\n"),
                     "f.csv:1:21: error: unknown column 'colour'"));
  const auto both = csv_errors_of("id,low,upper\n");
  CHECK(csv_contains(both, "unknown column 'low'"));
  CHECK(csv_contains(both, "missing column 'lower'"));
  CHECK(csv_contains(both, "missing column 'size'"));
}

TEST_CASE("csv: row errors name the line and column") {
  const std::string h = "id,lower,upper,size\n";
  CHECK(csv_contains(csv_errors_of(h + "a,0,1,2\nb,0,1\n"),
                     "f.csv:3:6: error: expected 4 fields as in the header on line 1, found 3"));
  CHECK(csv_contains(csv_errors_of(h + "a,0,1,2,9\n"), "f.csv:2:8: error: expected 4 fields"));
  CHECK(
      csv_contains(csv_errors_of(h + "a,x,1,2\n"), "f.csv:2:3: error: lower must be an integer, found 'x'"));
  CHECK(csv_contains(csv_errors_of(h + "a,0,1.5,2\n"),
                     "f.csv:2:5: error: upper must be an integer, found '1.5'"));
  CHECK(csv_contains(csv_errors_of(h + "a,0,1,-2\n"),
                     "f.csv:2:7: error: size must not be negative, found '-2'"));
  CHECK(csv_contains(csv_errors_of(h + "a,0,1,0\n"), "f.csv:2:7: error: size is 0"));
  CHECK(csv_contains(csv_errors_of(h + "a,0,1,\n"), "f.csv:2:7: error: size is empty"));
  CHECK(csv_contains(csv_errors_of(h + "a,0,1,99999999999999999999\n"),
                     "f.csv:2:7: error: size 99999999999999999999 is out of range"));
  CHECK(csv_contains(csv_errors_of(h + "a,-1,1,2\n"), "f.csv:2:3: error: lower is negative (-1)"));
  CHECK(csv_contains(csv_errors_of(h + "a,5,5,2\n"), "f.csv:2:5: error: empty lifetime [5, 5)"));
  CHECK(csv_contains(csv_errors_of(h + "a,5,3,2\n"), "f.csv:2:5: error: empty lifetime [5, 3)"));
  CHECK(csv_contains(csv_errors_of(h + ",0,1,2\n"), "f.csv:2:1: error: id is empty"));
  CHECK(csv_contains(csv_errors_of(h + "a,0,1,2\nb,0,1,2\na,1,2,3\n"),
                     "f.csv:4:1: error: duplicate id 'a' (first on line 2)"));
  CHECK(
      csv_contains(csv_errors_of(h + "a\"b,0,1,2\n"), "f.csv:2:2: error: a quote inside an unquoted field"));
  CHECK(csv_contains(csv_errors_of(h + "\"a,0,1,2\n"), "f.csv:2:1: error: unclosed quote"));
  CHECK(csv_contains(csv_errors_of(h + "\"a\"b,0,1,2\n"), "f.csv:2:4: error: text after the closing quote"));
  CHECK(csv_contains(csv_errors_of(h + "a,0,1,2\rb,0,1,2\n"), "f.csv:2:8: error: stray carriage return"));
  CHECK(csv_contains(
      csv_errors_of(h + "a\x01,0,1,2\n"),
      "f.csv:2:2: error: id 'a<U+0001>' cannot be a buffer id: it holds the control character U+0001"));
  CHECK(csv_contains(csv_errors_of(h + "a,0,1,2\n\nb,0,1,2\n"),
                     "f.csv:3:1: error: blank line inside the table"));
  CHECK(csv_contains(csv_errors_of("id,lower,upper,size,offset\na,0,1,2,x\n"),
                     "f.csv:2:9: error: offset must be an integer"));
}

TEST_CASE("csv: every bad row is reported, up to the error limit") {
  std::string text = "id,lower,upper,size\n";
  for (int i = 0; i < 50; ++i) text.append(1, 'b').append(std::to_string(i)).append(",0,1,0\n");
  auto r = read_csv(text, CsvOptions{std::nullopt, "arena0", 5}, "f.csv");
  CHECK_FALSE(r);
  REQUIRE(r.diagnostics.size() == 6);
  CHECK(format(r.diagnostics[4]).starts_with("f.csv:6:"));
  CHECK(pto_mem::test::mentions(r.diagnostics, "too many errors; stopping after 5"));
}

TEST_CASE("csv: a zero capacity from the caller is rejected, naming the file") {
  auto r = read_csv("id,lower,upper,size\na,0,1,2\n", CsvOptions{0, "arena0", 20}, "f.csv");
  CHECK_FALSE(r);
  CHECK(csv_contains(dump(r.diagnostics), "f.csv: error: the arena capacity is 0"));
}

TEST_CASE("csv: write then read gives the same problem and placement") {
  Problem p;
  p.arenas = {{0, "arena0", 64, {}}};
  p.buffers = {{"x", 8, 1, 0, {0, 3}}, {"17", 16, 1, 0, {2, 9}}, {"y-z", 4, 1, 0, {5, 6}}};
  Placement pl;
  pl.offsets = {0, 8, std::nullopt};
  for (const Placement* with : std::vector<const Placement*>{nullptr, &pl}) {
    auto text = to_csv(p, with);
    REQUIRE_MESSAGE(text, dump(text.diagnostics));
    auto back = read_csv(*text.text, CsvOptions{64, "arena0", 20});
    REQUIRE_MESSAGE(back, dump(back.diagnostics));
    CHECK(pto_mem::test::first_difference(p, back.file->problem) == "");
    CHECK(back.file->placement.has_value() == (with != nullptr));
    if (with) CHECK(back.file->placement->offsets == pl.offsets);
  }
  CHECK(*to_csv(p, &pl).text == "id,lower,upper,size,offset\nx,0,3,8,0\n17,2,9,16,8\ny-z,5,6,4,\n");
}

TEST_CASE("csv: the writer refuses what CSV cannot hold instead of dropping it") {
  Problem p;
  p.arenas = {{0, "a", 64, {}}};
  p.buffers = {{"x", 8, 1, 0, {0, 3}}, {"y", 8, 1, 0, {0, 3}}};
  auto refused = [](const Problem& q, const std::string& why) {
    auto t = to_csv(q);
    CHECK_FALSE(t);
    CHECK_MESSAGE(pto_mem::test::mentions(t.diagnostics, why), dump(t.diagnostics));
  };
  auto two = p;
  two.arenas.push_back({1, "b", 64, {}});
  refused(two, "CSV holds exactly one arena but the problem has 2");
  auto reserved = p;
  reserved.arenas[0].reserved = {{0, 4}};
  refused(reserved, "reserved windows");
  auto aligned = p;
  aligned.buffers[1].alignment = 32;
  refused(aligned, "buffer 'y' has alignment 32");
  auto sep = p;
  sep.separations = {{0, 1}};
  refused(sep, "separations");
  auto tab = p;  // names outside the rule (docs/formats.md); commas and quotes are quoted instead
  tab.buffers[0].name = "a\tb";
  refused(tab, "control character U+0009");
  auto comma = p;
  comma.buffers[0].name = "a,\"b\"";
  CHECK(*to_csv(comma).text == "id,lower,upper,size\n\"a,\"\"b\"\"\",0,3,8\ny,0,3,8\n");
  Placement short_pl;
  short_pl.offsets = {0};
  CHECK_FALSE(to_csv(p, &short_pl));
}

TEST_CASE("csv: a missing file is an error naming it") {
  auto r = read_csv_file("/nonexistent/dir/x.csv");
  CHECK_FALSE(r);
  CHECK(csv_contains(dump(r.diagnostics),
                     "/nonexistent/dir/x.csv: error: cannot read '/nonexistent/dir/x.csv'"));
  pto_mem::test::TempDir dir;
  auto d = read_csv_file(dir.path());
  CHECK(csv_contains(dump(d.diagnostics), "it is a directory"));
}

TEST_CASE("csv: every shared instance loads (MiniMalloc and idealloc suites)") {
  if (!pto_mem::test::have_shared) {
    MESSAGE("PTO_MEM_SHARED_DIR has no data/: skipped");
    return;
  }
  std::size_t files = 0;
  for (const char* suite : {"data/minimalloc", "data/idealloc"}) {
    for (const auto& e : std::filesystem::directory_iterator(pto_mem::test::shared_path(suite))) {
      if (e.path().extension() != ".csv") continue;
      ++files;
      auto r = read_csv_file(e.path());
      CHECK_MESSAGE(r, e.path().string() << "\n" << dump(r.diagnostics));
      if (!r) continue;
      CHECK(!r.file->problem.buffers.empty());
      CHECK(validate(r.file->problem).empty());
      if (e.path().filename() == "iree_mobilebert.csv") {
        REQUIRE(r.file->placement);
        CHECK_MESSAGE(validate(r.file->problem, *r.file->placement).empty(),
                      "the file carries a valid placement");
      }
    }
  }
  CHECK(files == 19);
}

TEST_CASE("csv: no diagnostic echoes a control character or a stray byte") {
  const std::string nasty = "x\x7f\xc2\x9b\x9b\x1b[2J";
  for (const std::string& text :
       {"id,lower,upper,size," + nasty + "\n", "id,lower,upper,size\n" + nasty + ",0,1,4\n",
        "id,lower,upper,size\na,0,1," + nasty + "\n"}) {
    const std::string shown = csv_errors_of(text);
    INFO(shown);
    for (unsigned char c : shown) CHECK(((c >= 0x20 && c != 0x7f && c != 0x9b && c != 0xc2) || c == '\n'));
  }
  CHECK(csv_contains(csv_errors_of("id,lower,upper,size\na,0,1," + nasty + "\n"),
                     "size must be an integer, found 'x<U+007F><U+009B><0x9B><U+001B>[2J'"));
}

TEST_CASE("csv: a byte-order mark is skipped") {
  auto r = read_csv("\xEF\xBB\xBFid,lower,upper,size\na,0,1,4\n", {}, "f.csv");
  REQUIRE_MESSAGE(r, dump(r.diagnostics));
  CHECK(r.file->problem.buffers.size() == 1);
  CHECK(csv_contains(csv_errors_of("\xEF\xBB\xBFid,lower,upper,size\na,0,1,-4\n"),
                     "f.csv:2:7: error: size must not be negative"));
}
