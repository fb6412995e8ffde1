// `pto-mem compile`, run as a user would (through the shell).
#include <doctest/doctest.h>

#include <sys/wait.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "pypto_support.hpp"

#ifdef PTO_MEM_TOOL

using namespace pto_mem;
using namespace pto_mem::pypto;

namespace {

struct Run {
  int status = -1;
  std::string out, err;
};

std::filesystem::path scratch_dir() {
  auto d = std::filesystem::temp_directory_path() / ("pto_mem_tool_test_" + std::to_string(::getpid()));
  std::filesystem::create_directories(d);
  return d;
}

Run run(const std::string& args) {
  const auto dir = scratch_dir();
  const std::string err_file = (dir / "stderr.txt").string();
  const std::string cmd = std::string("'") + PTO_MEM_TOOL + "' " + args + " 2>'" + err_file + "'";
  Run r;
  FILE* pipe = ::popen(cmd.c_str(), "r");
  REQUIRE(pipe);
  char buf[4096];
  std::size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, pipe)) > 0) r.out.append(buf, n);
  const int st = ::pclose(pipe);
  r.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  r.err = test::read_text(err_file);
  return r;
}

std::string write_temp(const std::string& name, const std::string& text) {
  const auto p = scratch_dir() / name;
  std::ofstream(p) << text;
  return p.string();
}

const std::string kernel =
    "@function(type=InCore)\n"
    "def main(x: Tensor[[16, 128], BF16],\n"
    "         out_0: Out[Tensor[[16, 128], BF16]]) -> Tensor[[16, 128], BF16]:\n"
    "    x_tile: Tile[[16, 128], BF16] = tile.load(x, [0, 0], [16, 128], target_memory=Mat)\n"
    "    out_1: Tensor[[16, 128], BF16] = tile.store(x_tile, [0, 0], out_0)\n"
    "    return out_1\n";

}  // namespace

TEST_CASE("compile --until parse --emit ir prints the parsed program") {
  const std::string file = write_temp("ok.pto", "# a comment\n" + kernel);
  const Run r = run("compile '" + file + "' --until parse --emit ir");
  CHECK(r.status == 0);
  CHECK(r.err.empty());
  CHECK(r.out == kernel);
  if (test::have_shared) {
    for (const auto& c : test::case_files()) {
      CAPTURE(c);
      const Run rc = run("compile '" + c + "' --until parse --soc a5 --planner dsa_rp");
      CHECK(rc.status == 0);
      CHECK(rc.out == test::program_text(test::read_text(c)));
    }
  }
}

TEST_CASE("malformed input exits 2 with file:line:column: error:") {
  const std::string file = write_temp("bad.pto", "def main(x: Tensor[[4], FP32]):\n    y = x +\n");
  const Run r = run("compile '" + file + "' --until parse");
  CHECK(r.status == 2);
  CHECK(r.out.empty());
  CHECK(r.err.rfind(file + ":2:12: error: expected an expression, found end of line", 0) == 0);
  const Run missing = run("compile '" + file + ".nope' --until parse");
  CHECK(missing.status == 2);
  CHECK(missing.err.find("cannot open") != std::string::npos);
}

TEST_CASE("--emit json reports the program, and the diagnostics even on failure") {
  const std::string ok = write_temp("ok.pto", kernel);
  const Run r = run("compile '" + ok + "' --until parse --emit json");
  CHECK(r.status == 0);
  const auto j = nlohmann::json::parse(r.out);
  CHECK(j["ok"] == true);
  CHECK(j["functions"][0]["name"] == "main");
  CHECK(j["functions"][0]["vars"][2]["name"] == "x_tile");
  CHECK(j["functions"][0]["vars"][2]["space"].is_null());

  const std::string bad = write_temp("bad.pto", kernel + "    oops(\n");
  const Run f = run("compile '" + bad + "' --until parse --emit json");
  CHECK(f.status == 2);
  const auto k = nlohmann::json::parse(f.out);
  CHECK(k["ok"] == false);
  CHECK(k["diagnostics"][0]["severity"] == "error");
  CHECK(k["diagnostics"][0]["line"] == 8);
}

TEST_CASE("--output writes the file instead of standard output") {
  const std::string in = write_temp("ok.pto", kernel);
  const std::string out = (scratch_dir() / "printed.pto").string();
  std::filesystem::remove(out);
  const Run r = run("compile '" + in + "' --until parse -o '" + out + "'");
  CHECK(r.status == 0);
  CHECK(r.out.empty());
  CHECK(test::read_text(out) == kernel);
  // A failed run does not leave an output file behind.
  std::filesystem::remove(out);
  const std::string bad = write_temp("bad.pto", "def (\n");
  CHECK(run("compile '" + bad + "' --until parse -o '" + out + "'").status == 2);
  CHECK_FALSE(std::filesystem::exists(out));
}

TEST_CASE("later stages are not implemented yet; flags are validated") {
  const std::string in = write_temp("ok.pto", kernel);
  for (const char* stage : {"infer", "init", "alias", "reuse", "alloc"}) {
    CAPTURE(stage);
    const Run r = run("compile '" + in + "' --until " + stage);
    CHECK(r.status == 2);
    CHECK(r.err.find("not implemented yet") != std::string::npos);
  }
  const Run svg = run("compile '" + in + "' --until parse --svg map.svg");
  CHECK(svg.status == 2);
  CHECK(svg.err.find("--svg") != std::string::npos);
  CHECK(run("compile '" + in + "' --until parse --soc 910c").status != 0);
  CHECK(run("compile '" + in + "' --until parse --planner greedy").status != 0);
  CHECK(run("compile '" + in + "' --until parse --emit yaml").status != 0);
  CHECK(run("compile '" + in + "' --until lower").status != 0);
}

#endif  // PTO_MEM_TOOL
