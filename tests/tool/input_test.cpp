// Input from anywhere and what the tool says about it: `-` reads standard
// input (with --format where no extension tells; --format also overrides an
// extension), long output names fail before planning or work, no invented
// capacity is ever written, vacuous separations are counted, and no
// diagnostic echoes a control character.
#include <doctest/doctest.h>

#include <unistd.h>

#include <string>
#include <vector>

#include "tool_run.hpp"

using namespace pto_mem::tool_test;
using pto_mem::test::read_file;
using pto_mem::test::TempDir;

namespace {

/// The tool with `input` file on standard input.
Run tool_with_input(const std::vector<std::string>& args, const std::string& input) {
  return run_command(tool_command(args) + " < " + quote(input));
}

/// The summary without its timing column, which differs run to run.
std::string without_time(const std::string& out) {
  std::string kept;
  std::size_t start = 0;
  while (start < out.size()) {
    std::size_t end = out.find('\n', start);
    if (end == std::string::npos) end = out.size();
    std::string line = out.substr(start, end - start);
    if (line.ends_with(" ms") || line.ends_with(" s")) line = line.substr(0, line.rfind("  "));
    kept += line + '\n';
    start = end + 1;
  }
  return kept;
}

}  // namespace

TEST_CASE("plan, validate, stats and compile read standard input for -") {
  SKIP_WITHOUT_TOOL();
  TempDir dir;
  const std::string small = example("small.csv");
  const std::string model = example("full_model.json");

  const auto by_file = tool({"plan", small, "--capacity", "16384"});
  const auto by_pipe = tool_with_input({"plan", "-", "--format", "csv", "--capacity", "16384"}, small);
  CHECK(by_pipe.code == by_file.code);
  CHECK(without_time(by_pipe.out) == without_time(by_file.out));

  // -o - writes standard output in the --format of the input.
  const auto piped_out = tool_with_input({"plan", "-", "--format", "csv", "-o", "-"}, small);
  CHECK(piped_out.code == 0);
  CHECK(piped_out.out.starts_with("id,lower,upper,size,offset\n"));

  CHECK(tool_with_input({"stats", "-", "--format", "json"}, model).out == tool({"stats", model}).out);
  const auto placed = example("small_placed.csv");
  const auto v = tool_with_input({"validate", "-", "--format", "csv"}, placed);
  CHECK(v.code == tool({"validate", placed}).code);
  CHECK(v.out == tool({"validate", placed}).out);

  const std::string kernel = std::string(PTO_MEM_SOURCE_DIR) + "/examples/kernels/softmax.pto";
  const auto c_file = tool({"compile", kernel});
  const auto c_pipe = tool_with_input({"compile", "-", "--format", "pto"}, kernel);
  CHECK(c_pipe.code == c_file.code);
  CHECK(c_pipe.out == c_file.out);
  CHECK(tool_with_input({"compile", "-"}, kernel).out == c_file.out);  // pto is the only format
  CHECK(dir.entries().empty());
}

TEST_CASE("--format tells the format where the extension does not, and overrides one that says otherwise") {
  SKIP_WITHOUT_TOOL();
  TempDir dir;
  const auto no_format = tool_with_input({"stats", "-"}, example("small.csv"));
  CHECK(no_format.code == 2);
  CHECK(has(no_format.err,
            "<stdin>: error: cannot tell the format of standard input; give --format csv or --format json"));

  const std::string csv_text = read_file(example("small.csv"));
  const auto txt = dir.write("problem.txt", csv_text);
  const auto unknown = tool({"stats", txt});
  CHECK(unknown.code == 2);
  CHECK(has(unknown.err, "give --format csv|json"));
  CHECK(tool({"stats", txt, "--format", "csv"}).out == tool({"stats", example("small.csv")}).out);
  const auto misnamed = dir.write("really_csv.json", csv_text);
  CHECK(tool({"stats", misnamed, "--format", "csv"}).code == 0);
  CHECK(tool({"stats", misnamed}).code == 2);  // read as JSON by its extension

  const auto bad = tool({"stats", txt, "--format", "xml"});
  CHECK(bad.code == 2);
  CHECK(has(bad.err, "--format"));
  CHECK(tool({"compile", txt, "--format", "csv"}).code == 2);  // compile reads programs only

  // A reader's positions name <stdin>.
  const auto json_err =
      dir.write("bad.json", "{\"arenas\": [{\"id\": 0, \"capacity\": 8}],\n \"buffers\": [{\"id\": 1}]}");
  const auto j = tool_with_input({"stats", "-", "--format", "json"}, json_err);
  CHECK(j.code == 2);
  CHECK(has(j.err, "<stdin>:2:14: error: /buffers/0: the buffer has no 'size' field"));
  const auto cap = tool_with_input({"plan", "-", "--format", "json", "--capacity", "8"}, json_err);
  CHECK(cap.code == 2);
  CHECK(has(cap.err, "--capacity applies to CSV problems"));
}

TEST_CASE("output names: every allowed length is written; a longer one fails before planning") {
  SKIP_WITHOUT_TOOL();
  TempDir dir;
  const long got = ::pathconf(dir.path().c_str(), _PC_NAME_MAX);
  const std::size_t longest = got > 0 ? static_cast<std::size_t>(got) : 255;
  for (std::size_t n : {longest - 13, longest}) {  // 242 and 255 bytes where names end at 255
    const std::string name = std::string(n - 5, 'o') + ".json";
    const auto r = tool({"plan", example("small.csv"), "-o", dir.file(name)});
    CAPTURE(n);
    CHECK_MESSAGE(r.code == 0, r.err);
    CHECK(dir.entries() == std::vector<std::string>{name});
    std::filesystem::remove(dir.file(name));
  }
  const std::string too_long = std::string(longest - 4, 'x') + ".json";
  const auto r =
      tool({"plan", example("small.csv"), "--json", dir.file("report.json"), "-o", dir.file(too_long)});
  CHECK(r.code == 2);
  CHECK(has(r.err, "the file name is " + std::to_string(longest + 1) + " bytes long"));
  CHECK_FALSE(has(r.out, "status:"));  // refused before planning
  CHECK(dir.entries().empty());
}

TEST_CASE(
    "plan -o out.json of a problem without a capacity writes none, and re-planning asks the same question") {
  SKIP_WITHOUT_TOOL();
  TempDir dir;
  const auto first =
      tool({"plan", example("small.csv"), "-o", dir.file("out.json"), "--json", dir.file("r.json")});
  REQUIRE_MESSAGE(first.code == 0, first.err);
  const std::string written = read_file(dir.file("out.json"));
  CHECK_FALSE(has(written, "capacity"));
  CHECK_FALSE(has(read_file(dir.file("r.json")), "capacity"));
  const auto again = tool({"plan", dir.file("out.json")});
  CHECK(again.code == 0);
  CHECK(without_time(again.out) == without_time(first.out.substr(0, first.out.find("wrote "))));
  CHECK(has(tool({"validate", dir.file("out.json")}).out,
            "capacity: not checked for arena0 (the file gives no capacity)"));
}

TEST_CASE("stats counts vacuous separations; plan and validate accept them") {
  SKIP_WITHOUT_TOOL();
  TempDir dir;
  const auto file = dir.write(
      "two.json",
      R"({"arenas": [{"id": 0, "name": "Vec", "capacity": 64}, {"id": 1, "name": "Mat", "capacity": 64}],
    "buffers": [{"id": "v", "size": 64, "arena": 0, "lifetime": [0, 4]},
                {"id": "w", "size": 32, "arena": 0, "lifetime": [4, 8]},
                {"id": "m", "size": 64, "arena": 1, "lifetime": [0, 4]}],
    "separations": [["v", "m"], ["m", "w"], ["v", "w"]],
    "placement": [{"id": "v", "offset": 0}, {"id": "w", "offset": 0}, {"id": "m", "offset": 0}]})");
  const auto s = tool({"stats", file});
  CHECK_MESSAGE(s.code == 0, s.err);
  CHECK(has(s.out, "separations: 3 (2 vacuous: between two arenas)"));
  // v and w are separated within Vec: the file's offsets break that pair only.
  const auto v = tool({"validate", file});
  CHECK(v.code == 1);
  CHECK(has(v.err, "separated buffers"));
  CHECK(has(v.err, "1 violation"));
  const auto p = tool({"plan", file, "-o", dir.file("out.json")});
  CHECK_MESSAGE(p.code == 1,
                p.out << p.err);  // v and w cannot share Vec's 64 bytes; the vacuous pairs ask nothing
  const auto fit = dir.write("fit.json", R"({"arenas": [{"id": 0, "capacity": 96}, {"id": 1, "capacity": 64}],
    "buffers": [{"id": "v", "size": 64, "arena": 0, "lifetime": [0, 4]},
                {"id": "w", "size": 32, "arena": 0, "lifetime": [4, 8]},
                {"id": "m", "size": 64, "arena": 1, "lifetime": [0, 4]}],
    "separations": [["v", "m"], ["m", "w"], ["v", "w"]]})");
  const auto ok = tool({"plan", fit, "-o", dir.file("fit_out.json")});
  CHECK_MESSAGE(ok.code == 0, ok.err);
  CHECK(tool({"validate", dir.file("fit_out.json")}).code == 0);
}

TEST_CASE("no diagnostic echoes a control character: readers, file names, options") {
  SKIP_WITHOUT_TOOL();
  TempDir dir;
  const std::string nasty = "\x7f\xc2\x9b\x1b[31m";
  // In JSON a raw ESC is a syntax error; escaped, it reaches the key.
  const auto json = dir.write("c.json", "{\"arenas\": [], \"buffers\": [], \"k\x7f\xc2\x9b\\u001b[31m\": 1}");
  const auto csv = dir.write("c.csv", "id,lower,upper,size\na,0,1," + nasty + "\n");
  const auto named = dir.write("n" + nasty + ".json", "{");
  for (const auto& r : {tool({"stats", json}), tool({"plan", csv}), tool({"validate", named}),
                        tool({"plan", csv, "--seed", "1" + nasty})}) {
    CHECK(r.code == 2);
    CAPTURE(r.err);
    for (unsigned char c : r.err) CHECK(((c >= 0x20 && c != 0x7f && c != 0x9b && c != 0xc2) || c == '\n'));
  }
  CHECK(has(tool({"stats", json}).err, "unknown field 'k<U+007F><U+009B><U+001B>[31m'"));
}
