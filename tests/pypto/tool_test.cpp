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

const std::string tool_kernel =
    "@function(type=InCore)\n"
    "def main(x: Tensor[[16, 128], BF16],\n"
    "         out_0: Out[Tensor[[16, 128], BF16]]) -> Tensor[[16, 128], BF16]:\n"
    "    x_tile: Tile[[16, 128], BF16] = tile.load(x, [0, 0], [16, 128], target_memory=Mat)\n"
    "    out_1: Tensor[[16, 128], BF16] = tile.store(x_tile, [0, 0], out_0)\n"
    "    return out_1\n";

}  // namespace

TEST_CASE("compile --until parse --emit ir prints the parsed program") {
  const std::string file = write_temp("ok.pto", "# a comment\n" + tool_kernel);
  const Run r = run("compile '" + file + "' --until parse --emit ir");
  CHECK(r.status == 0);
  CHECK(r.err.empty());
  CHECK(r.out == tool_kernel);
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
  const std::string ok = write_temp("ok.pto", tool_kernel);
  const Run r = run("compile '" + ok + "' --until parse --emit json");
  CHECK(r.status == 0);
  const auto j = nlohmann::json::parse(r.out);
  CHECK(j["ok"] == true);
  CHECK(j["functions"][0]["name"] == "main");
  CHECK(j["functions"][0]["vars"][2]["name"] == "x_tile");
  CHECK(j["functions"][0]["vars"][2]["space"].is_null());

  const std::string bad = write_temp("bad.pto", tool_kernel + "    oops(\n");
  const Run f = run("compile '" + bad + "' --until parse --emit json");
  CHECK(f.status == 2);
  const auto k = nlohmann::json::parse(f.out);
  CHECK(k["ok"] == false);
  CHECK(k["diagnostics"][0]["severity"] == "error");
  CHECK(k["diagnostics"][0]["line"] == 8);
}

TEST_CASE("--output writes the file instead of standard output") {
  const std::string in = write_temp("ok.pto", tool_kernel);
  const std::string out = (scratch_dir() / "printed.pto").string();
  std::filesystem::remove(out);
  const Run r = run("compile '" + in + "' --until parse -o '" + out + "'");
  CHECK(r.status == 0);
  CHECK(r.out.empty());
  CHECK(test::read_text(out) == tool_kernel);
  // A failed run does not leave an output file behind.
  std::filesystem::remove(out);
  const std::string bad = write_temp("bad.pto", "def (\n");
  CHECK(run("compile '" + bad + "' --until parse -o '" + out + "'").status == 2);
  CHECK_FALSE(std::filesystem::exists(out));
}

TEST_CASE("flags are validated; --svg needs planned addresses") {
  const std::string in = write_temp("ok.pto", tool_kernel);
  for (const char* until : {"parse", "infer", "init", "alias", "reuse"}) {
    CAPTURE(until);
    const Run svg = run("compile '" + in + "' --until " + until + " --svg map.svg");
    CHECK(svg.status == 2);
    CHECK(svg.err.find("--svg") != std::string::npos);
  }
  const Run ptoas = run("compile '" + in + "' --planner ptoas --svg map.svg");
  CHECK(ptoas.status == 2);
  CHECK(ptoas.err.find("ptoas assigns no addresses") != std::string::npos);
  CHECK(run("compile '" + in + "' --until parse --soc 910c").status != 0);
  CHECK(run("compile '" + in + "' --until parse --planner greedy").status != 0);
  CHECK(run("compile '" + in + "' --until parse --emit yaml").status != 0);
  CHECK(run("compile '" + in + "' --until lower").status != 0);
  CHECK(run("compile '" + in + "' --dump-after lower").status != 0);
}

TEST_CASE("--storage legacy runs PyPTO's legacy storage path, still verified; --storage is validated") {
  // An initializer read again on every iteration: the Buffer IR rules give the loop an entry copy
  // (c0_in); the legacy path protects it with moves at the branch and the yield instead.
  const std::string in =
      write_temp("carry.pto",
                 "@function(type=InCore)\n"
                 "def main(src: Tensor[[64, 64], FP32],\n"
                 "         dst: Out[Tensor[[64, 64], FP32]]) -> Tensor[[64, 64], FP32]:\n"
                 "    c0: Tile[[64, 64], FP32, Vec] = tile.load(src, [0, 0], [64, 64], target_memory=Vec)\n"
                 "    for k, (cur,) in range(4, init_values=(c0,)):\n"
                 "        if k < 2:\n"
                 "            s: Tile[[64, 64], FP32, Vec] = tile.add(cur, c0)\n"
                 "            chosen = yield_(s)\n"
                 "        else:\n"
                 "            chosen = yield_(cur)\n"
                 "        done = yield_(chosen)\n"
                 "    r: Tensor[[64, 64], FP32] = tile.store(done, [0, 0], dst)\n"
                 "    return r\n");
  const Run ir = run("compile '" + in + "' --until reuse");
  const Run legacy = run("compile '" + in + "' --until reuse --storage legacy");
  CHECK(ir.status == 0);
  CHECK(legacy.status == 0);
  CHECK(ir.err.empty());
  CHECK(legacy.err.empty());  // the tile-storage verifier ran and found nothing
  CHECK(ir.out.find("c0_in") != std::string::npos);
  CHECK(legacy.out.find("c0_in") == std::string::npos);
  CHECK(legacy.out.find("tile.move(chosen") != std::string::npos);
  CHECK(run("compile '" + in + "' --storage buffer-ir").status == 0);
  CHECK(run("compile '" + in + "' --storage none").status != 0);
}

TEST_CASE("--logical-tile-selection: two slots of one allocation instead of branch-exit copies; opt-in") {
  // a and b are both read after the if: without the option each arm copies
  // into the phi's own window; with it they take the two slots of one
  // allocation and the if yields the slot index.
  const std::string in =
      write_temp("select.pto",
                 "@function(type=InCore)\n"
                 "def main(x: Tensor[[4, 8], FP32], out: Out[Tensor[[4, 8], FP32]],\n"
                 "         flag: Scalar[BOOL]) -> Tensor[[4, 8], FP32]:\n"
                 "    a: Tile[[4, 8], FP32, Vec] = tile.load(x, [0, 0], [4, 8], target_memory=Vec)\n"
                 "    b: Tile[[4, 8], FP32, Vec] = tile.exp(a)\n"
                 "    if flag:\n"
                 "        p = yield_(a)\n"
                 "    else:\n"
                 "        p = yield_(b)\n"
                 "    s: Tile[[4, 8], FP32, Vec] = tile.add(a, p)\n"
                 "    t: Tile[[4, 8], FP32, Vec] = tile.add(b, s)\n"
                 "    r: Tensor[[4, 8], FP32] = tile.store(t, [0, 0], out)\n"
                 "    return r\n");
  const Run off = run("compile '" + in + "'");
  CHECK(off.status == 0);
  CHECK(off.out.find("tile.move(a") != std::string::npos);
  CHECK(off.out.find("p_slot") == std::string::npos);
  CHECK(off.err.empty());
  for (const char* planner : {"pypto", "dsa_rp"}) {
    CAPTURE(planner);
    const Run on = run("compile '" + in + "' --logical-tile-selection --planner " + planner);
    CHECK(on.status == 0);
    CHECK(on.out.find("tile.move") == std::string::npos);
    CHECK(on.out.find("= yield_(a, 0)") != std::string::npos);
    CHECK(on.out.find("= yield_(b, 1)") != std::string::npos);
    CHECK(on.out.find("p_slot * 128, 128, slots=2)[p_slot]") != std::string::npos);
    CHECK(on.err.find("note:") != std::string::npos);
    CHECK(on.err.find("[logical-tile-selection]") != std::string::npos);
    CHECK(on.err.find("barrier at this if's exit") != std::string::npos);
  }
  // The printed program re-parses to itself, and the pass leaves it as it is.
  const Run alias = run("compile '" + in + "' --logical-tile-selection --until alias");
  REQUIRE(alias.status == 0);
  const std::string again = write_temp("selected.pto", alias.out);
  CHECK(run("compile '" + again + "' --until parse").out == alias.out);
  CHECK(run("compile '" + again + "' --passes alias").out == alias.out);
  // Only where it can be planned and verified.
  const Run ptoas = run("compile '" + in + "' --logical-tile-selection --planner ptoas");
  CHECK(ptoas.status == 2);
  CHECK(ptoas.err.find("--logical-tile-selection needs") != std::string::npos);
  CHECK(run("compile '" + in + "' --logical-tile-selection --storage legacy").status == 2);
}

TEST_CASE("compile runs the passes up to --until") {
  const std::string in = write_temp("ok.pto", tool_kernel);
  const Run r = run("compile '" + in + "' --until infer");
  CHECK(r.status == 0);
  CHECK(r.err.empty());
  // The moved tile keeps its Mat source's layout in Vec, as PyPTO's tile.move does.
  CHECK(r.out.find("    x_tile_Vec: Tile[[16, 128], BF16, Vec, TileView(blayout=TileLayout.col_major, "
                   "slayout=TileLayout.row_major)] = tile.move(x_tile, target_memory=Vec)\n") !=
        std::string::npos);
  CHECK(r.out.find("MemRef") == std::string::npos);
  const Run init = run("compile '" + in + "' --until init");
  CHECK(init.status == 0);
  CHECK(init.out.find("mem_mat_2: Ptr = tile.alloc(Mat, 4096)") != std::string::npos);
  CHECK(init.out.find("mem_vec_3: Ptr = tile.alloc(Vec, 4096)") != std::string::npos);
  // The output re-parses: a dump can be fed back in.
  const std::string again = write_temp("again.pto", init.out);
  const Run re = run("compile '" + again + "' --until init");
  CHECK(re.status == 0);
  CHECK(re.out == init.out);
}

TEST_CASE("--emit json: the report of a compile, also on failure") {
  const std::string in = write_temp("ok.pto", tool_kernel);
  const Run r = run("compile '" + in + "' --until init --emit json --soc a5");
  CHECK(r.status == 0);
  const auto j = nlohmann::ordered_json::parse(r.out);
  std::vector<std::string> keys;
  for (auto it = j.begin(); it != j.end(); ++it) keys.push_back(it.key());
  CHECK(keys == std::vector<std::string>{"ok", "soc", "planner", "stages", "functions", "diagnostics"});
  CHECK(j["ok"] == true);
  CHECK(j["soc"] == "a5");
  CHECK(j["planner"] == "pypto");
  CHECK(j["stages"] == nlohmann::ordered_json::array({"parse", "infer", "init"}));
  const auto& f = j["functions"][0];
  REQUIRE(f["allocations"].size() == 2);
  CHECK(f["allocations"][0] == nlohmann::ordered_json::parse(
                                   R"({"base": "mem_mat_2", "space": "Mat", "size": 4096, "addr": null,
                                       "pinned": false, "slots": 1})"));
  CHECK(f["vars"][2]["name"] == "x_tile");
  CHECK(f["vars"][2]["space"] == "Mat");
  CHECK(f["vars"][2]["memref"] ==
        nlohmann::ordered_json::parse(R"({"base": "mem_mat_2", "offset": 0, "size": 4096, "slot": null})"));
  REQUIRE(f["moves"].size() == 1);
  CHECK(f["moves"][0] == nlohmann::ordered_json::parse(
                             R"({"name": "x_tile_Vec", "source": "x_tile", "target": "Vec", "line": 5,
                                  "column": 5})"));

  // A rejected program: exit 2, the diagnostic on stderr and in the report.
  const std::string bad =
      write_temp("dyn.pto",
                 "def main(x: Tensor[[16, 128], FP32], n: Scalar[INDEX]):\n"
                 "    t: Tile[[16, n], FP32, Vec] = tile.load(x, [0, 0], [16, n], target_memory=Vec)\n"
                 "    return\n");
  const Run f2 = run("compile '" + bad + "' --until alloc --emit json");
  CHECK(f2.status == 2);
  CHECK(f2.err.rfind(bad + ":2:5: error: InitMemRef requires static shape for variable 't'", 0) == 0);
  const auto k = nlohmann::json::parse(f2.out);
  CHECK(k["ok"] == false);
  CHECK(k["stages"] == nlohmann::json::array({"parse", "infer"}));
  REQUIRE(k["diagnostics"].size() == 1);
  CHECK(k["diagnostics"][0]["code"] == "dynamic-shape");
  CHECK(k["diagnostics"][0]["line"] == 2);
  CHECK(k["diagnostics"][0]["column"] == 5);
  // Without --emit json a failed run prints nothing on standard output.
  const Run f3 = run("compile '" + bad + "'");
  CHECK(f3.status == 2);
  CHECK(f3.out.empty());
}

TEST_CASE("--dump-after prints the program after each named stage on standard error") {
  const std::string in = write_temp("ok.pto", tool_kernel);
  const Run r = run("compile '" + in + "' --until init --dump-after parse,infer --emit json");
  CHECK(r.status == 0);
  const auto parse_at = r.err.find("# ---- after parse ----\n");
  const auto infer_at = r.err.find("# ---- after infer ----\n");
  REQUIRE(parse_at != std::string::npos);
  REQUIRE(infer_at != std::string::npos);
  CHECK(parse_at < infer_at);
  CHECK(r.err.find("x_tile_Vec") > infer_at);
  CHECK(r.err.find("x_tile_Vec") != std::string::npos);
  CHECK(nlohmann::json::parse(r.out)["ok"] == true);
}

TEST_CASE("exit 1 when memory does not fit; --svg writes the memory map") {
  const std::string big =
      write_temp("big.pto",
                 "def main(x: Tensor[[64, 752], FP32], o: Out[Tensor[[64, 752], FP32]]):\n"
                 "    t = tile.load(x, [0, 0], [64, 752], target_memory=Vec)\n"
                 "    r = tile.store(t, [0, 0], o)\n"
                 "    return r\n");
  const Run r = run("compile '" + big + "' --emit json");
  const auto j = nlohmann::json::parse(r.out);
  CHECK(r.status == 1);
  CHECK(j["ok"] == false);
  CHECK(r.out.find("exceeds platform limit") != std::string::npos);
  // The same program fits on a5 and its map is written.
  const std::string svg = (scratch_dir() / "map.svg").string();
  std::filesystem::remove(svg);
  const Run a5 = run("compile '" + big + "' --soc a5 --svg '" + svg + "'");
  CHECK(a5.status == 0);
  CHECK(test::read_text(svg).rfind("<svg", 0) == 0);
  // A run that does not fit writes no map.
  std::filesystem::remove(svg);
  CHECK(run("compile '" + big + "' --svg '" + svg + "'").status == 1);
  CHECK_FALSE(std::filesystem::exists(svg));
}

TEST_CASE("--syntax pypto prints PyPTO's spelling; --passes runs exactly the named passes") {
  const std::string file = write_temp("pl.pto", tool_kernel);
  const Run p = run("compile '" + file + "' --until infer --syntax pypto");
  CHECK(p.status == 0);
  CHECK(
      p.out.rfind(
          "@pl.program\nclass Program:\n    @pl.function(type=pl.FunctionType.InCore)\n    def main(self, x: "
          "pl.Tensor[[16, 128], pl.BF16], out_0: pl.Out[pl.Tensor[[16, 128], pl.BF16]])",
          0) == 0);
  CHECK(
      p.out.find(
          "x_tile_Vec: pl.Tile[[16, 128], pl.BF16, pl.Mem.Vec, pl.TileView(blayout=pl.TileLayout.col_major, "
          "slayout=pl.TileLayout.row_major)] = pl.tile.move(x_tile, target_memory=pl.Mem.Vec)") !=
      std::string::npos);
  // The PyPTO text goes back in: InitMemRef alone on it.
  const std::string inferred = write_temp("inferred.pto", p.out);
  const Run i = run("compile '" + inferred + "' --passes init --emit json");
  CHECK(i.status == 0);
  const auto j = nlohmann::json::parse(i.out);
  CHECK(j["stages"] == nlohmann::json::array({"parse", "init"}));
  // InitMemRef alone on the un-inferred program says what is missing.
  const Run bad = run("compile '" + file + "' --passes init");
  CHECK(bad.status == 2);
  CHECK(bad.err.find("InitMemRef needs its input to have the property TileMemoryInferred") !=
        std::string::npos);
  CHECK(run("compile '" + file + "' --passes parse").status != 0);
}

TEST_CASE("the tool reads a re-bound name as SSA renaming") {
  const std::string file =
      write_temp("rebind.pto",
                 "@pl.function(type=pl.FunctionType.InCore)\n"
                 "def main(x: pl.Tensor[[16, 16], pl.FP32], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]):\n"
                 "    t: pl.Tile[[16, 16], pl.FP32] = pl.load(x, [0, 0], [16, 16])\n"
                 "    t: pl.Tile[[16, 16], pl.FP32] = pl.exp(t)\n"
                 "    out: pl.Tensor[[16, 16], pl.FP32] = pl.store(t, [0, 0], out)\n"
                 "    return out\n");
  const Run r = run("compile '" + file + "' --until parse");
  CHECK(r.status == 0);
  CHECK(r.out.find("t_1: Tile[[16, 16], FP32, Vec] = tile.exp(t)") != std::string::npos);
  CHECK(r.out.find("out_1: Tensor[[16, 16], FP32] = tile.store(t_1, [0, 0], out)") != std::string::npos);
}

TEST_CASE("--unknown-ops: a misspelt op is a warning by default, an error on request") {
  const std::string file = write_temp(
      "typo.pto",
      "@function(type=InCore)\n"
      "def main(x: Tensor[[16, 16], FP32], y: Out[Tensor[[16, 16], FP32]]) -> Tensor[[16, 16], FP32]:\n"
      "    t: Tile[[16, 16], FP32] = tile.load(x, [0, 0], [16, 16], target_memory=Vec)\n"
      "    u: Tile[[16, 16], FP32] = tile.expp(t)\n"
      "    r: Tensor[[16, 16], FP32] = tile.store(u, [0, 0], y)\n"
      "    return r\n");
  const Run warn = run("compile '" + file + "'");
  CHECK(warn.status == 0);
  CHECK(warn.err.find("typo.pto:4:5: warning: op 'tile.expp' is not registered; the closest registered op is "
                      "'tile.exp' (edit distance 1). Assumed: ") != std::string::npos);
  CHECK(warn.out.find("tile.expp(t)") != std::string::npos);
  const Run error = run("compile '" + file + "' --unknown-ops=error");
  CHECK(error.status == 2);
  CHECK(error.out.empty());
  CHECK(error.err.find("typo.pto:4:5: error: op 'tile.expp' is not registered") != std::string::npos);
  CHECK(run("compile '" + file + "' --unknown-ops=warn").status == 0);
  CHECK(run("compile '" + file + "' --unknown-ops=maybe").status != 0);
}

#endif  // PTO_MEM_TOOL
