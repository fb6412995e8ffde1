// Reliability of the built tool: no crash on bad input, numbers refused
// by name, the output-safety rules of docs/tool.md (paths checked first,
// all outputs or none, never over the input, devices/FIFOs/links/stdout
// written through), termination signals, and validate without a capacity.
#include <doctest/doctest.h>

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "tool_run.hpp"

using namespace pto_mem::tool_test;
using pto_mem::test::read_file;
using pto_mem::test::TempDir;
namespace fs = std::filesystem;

namespace {

/// A kernel to compile: the bundled softmax.
std::string pto_program() {
  return read_file(std::string(PTO_MEM_SOURCE_DIR) + "/examples/kernels/softmax.pto");
}

}  // namespace

TEST_CASE("a CSV header without a final newline is read, never a crash (plan, stats, validate)") {
  SKIP_WITHOUT_TOOL();
  TempDir dir;
  for (const std::string text : {"id,lower,upper,size", "id,lower,upper,size,offset", "id,lower,upper,size\r",
                                 "id,lower,upper,size,offset\r", "id,lower,upper,size\na,0,1,4", "\r", ""}) {
    const std::string csv = dir.write("h.csv", text);
    for (const std::string command : {"stats", "plan", "validate"}) {
      const auto r = tool({command, csv});
      CAPTURE(text);
      CAPTURE(command);
      CHECK_MESSAGE((r.code == 0 || r.code == 1 || r.code == 2), r.err);  // -1: killed by a signal
      if (r.code == 2) CHECK(has(r.err, csv + ":"));
    }
  }
  const auto header_only = tool({"stats", dir.write("h.csv", "id,lower,upper,size")});
  CHECK(header_only.code == 0);
  CHECK(has(header_only.out, "buffers: 0"));
}

TEST_CASE("numeric options out of their range exit 2 naming the option") {
  SKIP_WITHOUT_TOOL();
  const std::string small = example("small.csv");
  const std::vector<std::vector<std::string>> cases = {
      {"plan", small, "--capacity", "-2"},
      {"plan", small, "--capacity", "99999999999999999999999"},
      {"plan", small, "--capacity", "0"},
      {"plan", small, "--capacity", "1e6"},
      {"validate", example("small_placed.csv"), "--capacity", "-2"},
      {"plan", small, "--node-limit", "-1"},
      {"plan", small, "--seed", "-1"},
      {"plan", small, "--restarts", "-1"},
      {"plan", small, "--threads", "-1"},
      {"plan", small, "--time-limit", "nan"},
      {"plan", small, "--time-limit", "0"},
  };
  for (const auto& args : cases) {
    const auto r = tool(args);
    CAPTURE(args[2]);
    CAPTURE(args[3]);
    CHECK(r.code == 2);
    CHECK_MESSAGE(has(r.err, args[2]), r.err);
  }
  CHECK(tool({"plan", small, "--capacity", "18446744073709551615", "--seed", "18446744073709551615"}).code ==
        0);
}

TEST_CASE("--restarts far beyond the time limit stops at the limit and says so") {
  SKIP_WITHOUT_TOOL();
  TempDir dir;
  for (const std::string strategy : {"greedy", "portfolio"}) {
    const auto r = tool({"plan", example("small.csv"), "--strategy", strategy, "--restarts",
                         "18446744073709551615", "--time-limit", "0.2", "--json", dir.file("r.json")});
    CAPTURE(strategy);
    CHECK_MESSAGE(r.code == 0, r.err);
    const auto j = nlohmann::json::parse(read_file(dir.file("r.json")));
    CHECK(j["stopped_by"] == "deadline");
    if (strategy == "greedy") CHECK(j["statistics"]["orders_evaluated"].get<long long>() >= 1);
  }
}

TEST_CASE("unknown subcommands are named; an empty output path is an error") {
  SKIP_WITHOUT_TOOL();
  const auto r = tool({"foo"});
  CHECK(r.code == 2);
  CHECK(has(r.err, "unknown subcommand 'foo'"));
  CHECK(has(r.err, "plan, validate, stats, compile"));
  TempDir dir;
  for (const std::string option : {"-o", "--json", "--svg"}) {
    const auto e = tool({"plan", example("small.csv"), option, ""});
    CAPTURE(option);
    CHECK(e.code == 2);
    CHECK(has(e.err, "the path is empty"));
  }
  const auto k = dir.write("k.pto", pto_program());
  CHECK(tool({"compile", k, "-o", ""}).code == 2);
}

TEST_CASE("every output path is checked before any work; a bad one writes nothing") {
  SKIP_WITHOUT_TOOL();
  TempDir dir;
  const auto r = tool({"plan", example("small.csv"), "-o", "/nonexistent/x.json", "--json",
                       dir.file("r.json"), "--svg", dir.file("m.svg")});
  CHECK(r.code == 2);
  CHECK(has(r.err, "/nonexistent/x.json"));
  CHECK(has(r.err, "does not exist"));
  CHECK_FALSE(has(r.out, "status:"));  // refused before planning
  CHECK(dir.entries().empty());
  fs::create_directory(dir.path() / "sub");
  const auto d = tool({"plan", example("small.csv"), "--json", dir.file("sub")});
  CHECK(d.code == 2);
  CHECK(has(d.err, "is a directory"));
  const auto k = dir.write("k.pto", pto_program());
  const auto c = tool({"compile", k, "-o", dir.file("out.pto"), "--svg", "/nonexistent/m.svg"});
  CHECK(c.code == 2);
  CHECK(dir.entries() == std::vector<std::string>{"k.pto", "sub"});
}

TEST_CASE("a write that fails on one output replaces none of the others") {
  SKIP_WITHOUT_TOOL();
  if (!fs::exists("/dev/full")) return;
  TempDir dir;
  dir.write("old.json", "old\n");
  const auto r = tool({"plan", example("small.csv"), "-o", dir.file("old.json"), "--json", dir.file("r.json"),
                       "--svg", "/dev/full"});
  CHECK(r.code == 2);
  CHECK(has(r.err, "/dev/full"));
  CHECK(read_file(dir.file("old.json")) == "old\n");
  CHECK(dir.entries() == std::vector<std::string>{"old.json"});  // no r.json, no temporaries
}

TEST_CASE("malformed alias geometry is refused by every subcommand, and plan writes nothing") {
  SKIP_WITHOUT_TOOL();
  TempDir dir;
  const std::string arenas = R"("arenas": [{"id": 0, "capacity": 4096}], )";
  const std::string buffers =
      R"("buffers": [{"id": "a", "size": 64, "arena": 0, "lifetime": [0, 4]},
                     {"id": "b", "size": 64, "arena": 0, "lifetime": [0, 4]},
                     {"id": "c", "size": 64, "arena": 0, "lifetime": [0, 4]},
                     {"id": "d", "size": 256, "arena": 0, "lifetime": [0, 8]}], )";
  const std::vector<std::string> bad = {
      // conflicting must-alias offsets
      R"("must_alias": [["a", {"id": "b", "offset": 8}], ["a", {"id": "b", "offset": 16}]])",
      // an alias cycle that does not close
      R"("must_alias": [["a", {"id": "b", "offset": 8}], ["b", {"id": "c", "offset": 8}], ["c", {"id": "a", "offset": 8}]])",
      // one buffer bound to two slots of a declaration
      R"("declared": [{"buffer": "d", "slots": 2, "slot_size": 64, "bindings": [{"buffer": "a", "slot": 0}, {"buffer": "a", "slot": 1}]}])",
      // a declared buffer in an alias group that puts it elsewhere
      R"("declared": [{"buffer": "d", "slots": 2, "slot_size": 64, "bindings": [{"buffer": "a", "slot": 1}]}],
         "must_alias": [["d", {"id": "a", "offset": 0}]])",
  };
  int k = 0;
  for (const auto& rest : bad) {
    const std::string file =
        dir.write("bad" + std::to_string(k++) + ".json", "{" + arenas + buffers + rest + "}");
    CAPTURE(rest);
    const auto stats = tool({"stats", file});
    CHECK(stats.code == 2);
    CHECK_MESSAGE(has(stats.err, file + ": error:"), stats.err);
    const auto plan = tool({"plan", file, "--json", dir.file("r.json"), "-o", dir.file("o.json")});
    CHECK(plan.code == 2);
    CHECK_FALSE(fs::exists(dir.file("r.json")));
    CHECK_FALSE(fs::exists(dir.file("o.json")));
  }
}

TEST_CASE("an output that is the input, or two outputs on one path, are refused before any work") {
  SKIP_WITHOUT_TOOL();
  TempDir dir;
  const std::string in_csv = dir.write("in.csv", read_file(example("small.csv")));
  const std::string original = read_file(in_csv);
  for (const std::string option : {"--json", "-o", "--svg"}) {
    const auto r = tool({"plan", in_csv, option, in_csv});
    CAPTURE(option);
    CHECK(r.code == 2);
    CHECK(has(r.err, "is the input file"));
  }
  fs::create_symlink(in_csv, dir.path() / "link.csv");
  CHECK(tool({"plan", in_csv, "-o", dir.file("link.csv")}).code == 2);  // the input under another name
  CHECK(read_file(in_csv) == original);
  const auto three = tool(
      {"plan", in_csv, "-o", dir.file("s.csv"), "--json", dir.file("s.csv"), "--svg", dir.file("s.csv")});
  CHECK(three.code == 2);
  CHECK(has(three.err, "are the same file"));
  CHECK_FALSE(fs::exists(dir.file("s.csv")));
  const auto k = dir.write("k.pto", pto_program());
  const std::string k_text = read_file(k);
  CHECK(tool({"compile", k, "-o", k}).code == 2);
  CHECK(tool({"compile", k, "--svg", k}).code == 2);
  CHECK(tool({"compile", k, "-o", dir.file("x.pto"), "--svg", dir.file("x.pto")}).code == 2);
  CHECK(read_file(k) == k_text);
  CHECK(dir.entries() == std::vector<std::string>{"in.csv", "k.pto", "link.csv"});
}

TEST_CASE("symbolic links are followed; devices, FIFOs and - are written through") {
  SKIP_WITHOUT_TOOL();
  TempDir dir;
  fs::create_directory(dir.path() / "real");
  fs::create_symlink(dir.path() / "real" / "r.json",
                     dir.path() / "link.json");  // dangling: created through the link
  const auto r = tool({"plan", example("small.csv"), "--json", dir.file("link.json")});
  CHECK_MESSAGE(r.code == 0, r.err);
  CHECK(fs::is_symlink(dir.path() / "link.json"));
  CHECK(nlohmann::json::parse(read_file(dir.file("real/r.json")))["status"].is_string());
  const auto again =
      tool({"plan", example("small.csv"), "--json", dir.file("link.json")});  // now replaces the target
  CHECK(again.code == 0);
  CHECK(fs::is_symlink(dir.path() / "link.json"));

  if (fs::exists("/dev/null")) {
    const auto n = tool({"plan", example("small.csv"), "--json", "/dev/null", "--svg", "/dev/null"});
    CHECK_MESSAGE(n.code == 0, n.err);
    CHECK(fs::is_character_file("/dev/null"));
  }

  const auto out = tool({"plan", example("small.csv"), "--json", "-"});
  CHECK_MESSAGE(out.code == 0, out.err);
  CHECK(nlohmann::json::parse(out.out)["placement"].size() == 12);  // the summary went to stderr
  CHECK(has(out.err, "status: "));
  const auto placed = tool({"plan", example("small.csv"), "-o", "-"});
  CHECK(placed.out.starts_with("id,lower,upper,size,offset\n"));
  CHECK(tool({"plan", example("small.csv"), "-o", "-", "--json", "-"}).code == 2);

  const std::string fifo = dir.file("fifo");
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  const auto f =
      run_command("cat " + quote(fifo) + " > " + quote(dir.file("got.json")) + " & " +
                  tool_command({"plan", example("small.csv"), "--json", fifo}) + "; rc=$?; wait; exit $rc");
  CHECK_MESSAGE(f.code == 0, f.err);
  struct stat st {};
  REQUIRE(::stat(fifo.c_str(), &st) == 0);
  CHECK(S_ISFIFO(st.st_mode));
  CHECK(nlohmann::json::parse(read_file(dir.file("got.json")))["status"].is_string());
}

TEST_CASE("an empty or comment-only .pto writes its empty output over a stale file") {
  SKIP_WITHOUT_TOOL();
  TempDir dir;
  for (const std::string text : {"", "# nothing here\n\n# at all\n"}) {
    const auto k = dir.write("empty.pto", text);
    dir.write("out.pto", "stale\n");
    const auto r = tool({"compile", k, "-o", dir.file("out.pto")});
    CHECK_MESSAGE(r.code == 0, r.err);
    CHECK(read_file(dir.file("out.pto")).find("stale") == std::string::npos);
  }
}

TEST_CASE(
    "SIGTERM, SIGHUP and SIGINT while outputs are staged: no output replaced, no temporary, exit 128+n") {
  SKIP_WITHOUT_TOOL();
  for (int sig : {SIGTERM, SIGHUP, SIGINT}) {
    CAPTURE(sig);
    TempDir dir;
    dir.write("out.csv", "old\n");
    const std::string fifo = dir.file("fifo");
    REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
    // The FIFO has no reader, so the tool blocks opening it -- after it has
    // staged out.csv as a temporary and before it renames anything.
    const pid_t pid = spawn_tool({"plan", example("small.csv"), "-o", dir.file("out.csv"), "--json", fifo});
    bool staged = false;
    for (int i = 0; i < 2000 && !staged; ++i) {  // up to 20 s under sanitizers
      for (const auto& e : dir.entries()) staged = staged || e.starts_with(".out.csv.tmp-");
      if (!staged) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    CHECK(staged);
    ::kill(pid, sig);
    int status = 0;
    REQUIRE(::waitpid(pid, &status, 0) == pid);
    CHECK(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 128 + sig);
    CHECK(read_file(dir.file("out.csv")) == "old\n");
    CHECK(dir.entries() == std::vector<std::string>{"fifo", "out.csv"});
  }
}

TEST_CASE("validate without a capacity checks none and says so") {
  SKIP_WITHOUT_TOOL();
  TempDir dir;
  const auto file = dir.write("vc.csv", "id,lower,upper,size,offset\na,0,1,4,100\nb,0,1,4,0\n");
  const auto r = tool({"validate", file});
  CHECK_MESSAGE(r.code == 0, r.err);
  CHECK(has(r.out, "capacity: not checked for arena0 (no --capacity given)"));
  CHECK(has(r.out, "valid: 2 buffers placed"));
  const auto cap = tool({"validate", file, "--capacity", "64"});
  CHECK(cap.code == 1);
  CHECK(has(cap.err, "exceeds the capacity 64"));
  const auto json = dir.write(
      "vc.json",
      R"({"arenas": [{"id": 0}], "buffers": [{"id": "a", "size": 4, "arena": 0, "lifetime": [0, 1]}],
                                           "placement": [{"id": "a", "offset": 1000}]})");
  const auto j = tool({"validate", json});
  CHECK_MESSAGE(j.code == 0, j.err);
  CHECK(has(j.out, "(the file gives no capacity)"));
}
