// The tool's budgets and interruptions as a user meets them: the bare
// command solves the MiniMalloc suite, a time limit is the whole budget, the
// report says what stopped the search, and a first SIGINT or SIGTERM during
// a long search still writes complete, valid outputs (a second aborts with
// none).
#include <doctest/doctest.h>

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "temp_dir.hpp"
#include "test_support.hpp"
#include "tool_run.hpp"

namespace {
using namespace pto_mem::tool_test;
using pto_mem::test::read_file;
using pto_mem::test::TempDir;

/// A random problem whose peak search does not end for a long time: 20,000
/// buffers, no capacity (so the peak is minimised).
std::string write_long_problem(TempDir& dir) {
  std::mt19937_64 g(7);
  std::string csv = "id,lower,upper,size\n";
  const int n = 20000;
  for (int i = 0; i < n; ++i) {
    const auto begin = g() % (n / 2);
    const auto kind = g() % 100;
    const auto length = kind < 70 ? 1 + g() % 8 : kind < 95 ? 8 + g() % 193 : 200 + g() % 4801;
    const auto log2 = 5 + g() % 16;
    const auto size = std::max<std::uint64_t>(32, ((1ull << log2) + g() % (1ull << log2)) / 32 * 32);
    csv += std::to_string(i) + "," + std::to_string(begin) + "," + std::to_string(begin + length) + "," +
           std::to_string(size) + "\n";
  }
  return dir.write("long.csv", csv);
}

struct Spawned {
  pid_t pid = 0;
  std::string err_file;
};

Spawned spawn_with_stderr(std::vector<std::string> args, const std::string& err_file) {
  return {spawn_tool(std::move(args), err_file), err_file};
}

/// Waits (up to `seconds`) until the tool's standard error holds `what`.
bool wait_for_text(const Spawned& s, const std::string& what, int seconds) {
  for (int i = 0; i < seconds * 50; ++i) {
    if (read_file(s.err_file).find(what) != std::string::npos) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return false;
}

}  // namespace

TEST_CASE("the bare command fits every MiniMalloc A-K instance at its capacity") {
  SKIP_WITHOUT_TOOL();
  if (!pto_mem::test::have_shared) {
    MESSAGE("no shared data folder: skipped");
    return;
  }
  for (const char* name : {"A", "B", "C", "D", "E", "F", "G", "H", "I", "J", "K"}) {
    CAPTURE(name);
    const auto r =
        tool({"plan", pto_mem::test::shared_path(std::string("data/minimalloc/") + name + ".1048576.csv"),
              "--capacity", "1048576"});
    CHECK_MESSAGE(r.code == 0, r.err);
    CHECK(has(r.out, "yes"));
  }
}

TEST_CASE("the report says what stopped the search: completed, node_limit, deadline") {
  SKIP_WITHOUT_TOOL();
  TempDir dir;
  const auto done =
      tool({"plan", example("small.csv"), "--capacity", "32768", "--json", dir.file("done.json")});
  REQUIRE_MESSAGE(done.code == 0, done.err);
  CHECK(nlohmann::json::parse(read_file(dir.file("done.json")))["stopped_by"] == "completed");

  const std::string file = write_long_problem(dir);
  const auto cut = tool({"plan", file, "--node-limit", "5", "--json", dir.file("cut.json"), "-q"});
  CHECK_MESSAGE(cut.code == 0, cut.err);
  const auto j = nlohmann::json::parse(read_file(dir.file("cut.json")));
  CHECK(j["stopped_by"] == "node_limit");
  CHECK(j["status"] == "feasible");
  CHECK(has(cut.out, "stopped by node_limit"));

  const auto timed = tool({"plan", file, "--time-limit", "0.5", "--json", dir.file("timed.json"), "-q"});
  CHECK_MESSAGE(timed.code == 0, timed.err);
  CHECK(nlohmann::json::parse(read_file(dir.file("timed.json")))["stopped_by"] == "deadline");
}

TEST_CASE("a huge or infinite time limit means no limit, not an instant stop") {
  SKIP_WITHOUT_TOOL();
  TempDir dir;
  for (const std::string limit : {"1e10", "1e300", "inf"}) {
    CAPTURE(limit);
    const auto r = tool({"plan", example("small.csv"), "--capacity", "32768", "--time-limit", limit, "--json",
                         dir.file("r.json")});
    CHECK_MESSAGE(r.code == 0, r.err);
    CHECK(nlohmann::json::parse(read_file(dir.file("r.json")))["stopped_by"] == "completed");
  }
}

TEST_CASE("SIGINT or SIGTERM during a long search: the best placement is written, complete and valid") {
  SKIP_WITHOUT_TOOL();
  for (int sig : {SIGINT, SIGTERM}) {
    CAPTURE(sig);
    TempDir dir;
    const std::string file = write_long_problem(dir);
    dir.write("out.csv", "old\n");
    const auto s =
        spawn_with_stderr({"plan", file, "--node-limit", "0", "--progress", "-o", dir.file("out.csv"),
                           "--json", dir.file("r.json"), "--svg", dir.file("map.svg")},
                          dir.file("stderr"));
    // The progress line shows a best peak once a placement exists.
    REQUIRE(wait_for_text(s, "best peak", 120));
    ::kill(s.pid, sig);
    int status = 0;
    REQUIRE(::waitpid(s.pid, &status, 0) == s.pid);
    const std::string err = read_file(s.err_file);
    CAPTURE(err);
    // The tool ends by the signal, after writing: a shell sees 128 + sig.
    CHECK(WIFSIGNALED(status));
    if (WIFSIGNALED(status)) CHECK(WTERMSIG(status) == sig);
    CHECK(has(err, "interrupted: stopping the search"));
    const auto j = nlohmann::json::parse(read_file(dir.file("r.json")));
    CHECK(j["stopped_by"] == "interrupted");
    CHECK((j["status"] == "feasible" || j["status"] == "optimal"));
    CHECK(read_file(dir.file("out.csv")) != "old\n");
    CHECK(read_file(dir.file("map.svg")).find("</svg>") != std::string::npos);
    const auto v = tool({"validate", dir.file("out.csv")});
    CHECK_MESSAGE(v.code == 0, v.err);
    CHECK(has(v.out, "valid: 20000 buffers placed"));
  }
}

TEST_CASE("a second signal during an interrupted search aborts at once: no output replaced, no temporary") {
  SKIP_WITHOUT_TOOL();
  TempDir dir;
  const std::string file = write_long_problem(dir);
  dir.write("out.csv", "old\n");
  const auto s = spawn_with_stderr(
      {"plan", file, "--node-limit", "0", "--progress", "-o", dir.file("out.csv")}, dir.file("stderr"));
  REQUIRE(wait_for_text(s, "pto-mem:", 120));  // the search runs (the progress line appears after a second)
  // Both signals wait, pending, while the tool is stopped; on SIGCONT the
  // kernel delivers the lower-numbered SIGINT first (the search stops) and
  // SIGTERM next, before the tool can run on to write anything. Two signals
  // sent a few milliseconds apart instead race the writing on a loaded
  // machine; two SIGINTs would merge into one pending signal.
  ::kill(s.pid, SIGSTOP);
  ::kill(s.pid, SIGINT);
  ::kill(s.pid, SIGTERM);
  ::kill(s.pid, SIGCONT);
  int status = 0;
  REQUIRE(::waitpid(s.pid, &status, 0) == s.pid);
  CHECK(WIFEXITED(status));
  if (WIFEXITED(status)) CHECK(WEXITSTATUS(status) == 128 + SIGTERM);
  CHECK(read_file(dir.file("out.csv")) == "old\n");
  std::vector<std::string> expected{"long.csv", "out.csv", "stderr"};
  CHECK(dir.entries() == expected);
}
