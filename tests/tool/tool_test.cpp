// The pto-mem tool as a user meets it: exit codes, messages on stderr,
// files written whole or not at all. Runs build/bin/pto-mem.
#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tool_run.hpp"

using namespace pto_mem::tool_test;

TEST_CASE("--help and --version exit 0") {
  SKIP_WITHOUT_TOOL();
  const auto help = tool({"--help"});
  CHECK(help.code == 0);
  CHECK(has(help.out, "plan"));
  CHECK(has(help.out, "validate"));
  CHECK(has(help.out, "stats"));
  const auto plan_help = tool({"plan", "--help"});
  CHECK(plan_help.code == 0);
  CHECK(has(plan_help.out, "--strategy"));
  CHECK(has(plan_help.out, "--svg"));
  const auto version = tool({"--version"});
  CHECK(version.code == 0);
  CHECK(has(version.out, "pto-mem 0."));
}

TEST_CASE("usage errors exit 2") {
  SKIP_WITHOUT_TOOL();
  CHECK(tool({}).code == 2);
  CHECK(tool({"frobnicate"}).code == 2);
  CHECK(tool({"plan"}).code == 2);
  CHECK(tool({"plan", example("small.csv"), "--capacity", "lots"}).code == 2);
  CHECK(tool({"plan", example("small.csv"), "--time-limit", "-1"}).code == 2);
  CHECK(tool({"plan", example("small.csv"), "--compat", "other"}).code == 2);
  const auto bad = tool({"plan", example("small.csv"), "--strategy", "no-such-strategy"});
  CHECK(bad.code == 2);
  CHECK(has(bad.err, "no-such-strategy"));
}

TEST_CASE("plan prints the per-arena summary and writes the outputs") {
  SKIP_WITHOUT_TOOL();
  pto_mem::test::TempDir dir;
  const auto r = tool({"plan", example("attention.json"), "--svg", dir.file("map.svg"), "--json",
                       dir.file("report.json"), "--output", dir.file("placed.json")});
  CHECK_MESSAGE(r.code == 0, r.err);
  for (const char* col :
       {"arena", "buffers", "max-load bound", "proved bound", "peak", "peak/bound", "fits", "time"})
    CHECK(has(r.out, col));
  CHECK(has(r.out, "\nVec "));
  CHECK(has(r.out, "\nMat "));
  CHECK(has(r.out, "\nall "));
  CHECK(has(r.out, "status: "));
  CHECK(dir.entries() == std::vector<std::string>{"map.svg", "placed.json", "report.json"});
  CHECK(pto_mem::test::read_file(dir.file("map.svg")).starts_with("<svg "));
  const auto report = nlohmann::json::parse(pto_mem::test::read_file(dir.file("report.json")));
  CHECK((report["status"] == "optimal" || report["status"] == "feasible"));
  CHECK(report["placement"].size() == 31);
  // The written placement passes the validator.
  const auto v = tool({"validate", dir.file("placed.json")});
  CHECK_MESSAGE(v.code == 0, v.err);
  CHECK(has(v.out, "valid: 31 buffers placed"));
}

TEST_CASE("plan of a CSV writes a CSV with offsets that validates") {
  SKIP_WITHOUT_TOOL();
  pto_mem::test::TempDir dir;
  const auto r = tool({"plan", example("small.csv"), "--capacity", "65536", "-o", dir.file("out.csv")});
  CHECK_MESSAGE(r.code == 0, r.err);
  CHECK(pto_mem::test::read_file(dir.file("out.csv"))
            .starts_with("id,lower,upper,size,offset\ninput,0,2,3072,"));
  const auto v = tool({"validate", dir.file("out.csv"), "--capacity", "65536"});
  CHECK_MESSAGE(v.code == 0, v.err);
}

TEST_CASE(
    "plan --strategy greedy: the default (two workers from 20k buffers) writes what one thread writes") {
  SKIP_WITHOUT_TOOL();
  pto_mem::test::TempDir dir;
  // 24k buffers, a deterministic mix of short and long lifetimes: enough
  // for the greedy to run its passes on two workers and to cut passes that
  // cannot win.
  std::string csv = "id,lower,upper,size\n";
  std::uint64_t x = 12345;
  auto next = [&x](std::uint64_t k) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    return (x >> 33) % k;
  };
  for (int i = 0; i < 24000; ++i) {
    const std::uint64_t begin = next(12000), length = next(10) < 8 ? 1 + next(8) : 8 + next(400);
    csv += std::to_string(i) + "," + std::to_string(begin) + "," + std::to_string(begin + length) + "," +
           std::to_string(32 * (1 + next(2000))) + "\n";
  }
  const std::string file = dir.write("many.csv", csv);
  const auto dflt = tool(
      {"plan", file, "--strategy", "greedy", "-o", dir.file("default.csv"), "--json", dir.file("d.json")});
  CHECK_MESSAGE(dflt.code == 0, dflt.err);
  const auto one = tool({"plan", file, "--strategy", "greedy", "--threads", "1", "-o", dir.file("one.csv"),
                         "--json", dir.file("o.json")});
  CHECK_MESSAGE(one.code == 0, one.err);
  CHECK(pto_mem::test::read_file(dir.file("default.csv")) == pto_mem::test::read_file(dir.file("one.csv")));
  auto d = nlohmann::json::parse(pto_mem::test::read_file(dir.file("d.json")));
  auto o = nlohmann::json::parse(pto_mem::test::read_file(dir.file("o.json")));
  d.erase("time_s");
  o.erase("time_s");
  CHECK(d == o);  // statistics too
}

TEST_CASE("plan exits 1 when no placement fits, and writes no placement") {
  SKIP_WITHOUT_TOOL();
  pto_mem::test::TempDir dir;
  // The lower bound alone (14080) exceeds 4096 bytes: no strategy can fit.
  const auto r = tool({"plan", example("small.csv"), "--capacity", "4096", "-o", dir.file("out.csv"), "--svg",
                       dir.file("m.svg"), "--json", dir.file("r.json")});
  CHECK(r.code == 1);
  CHECK(has(r.out, "status: "));
  CHECK(dir.entries() == std::vector<std::string>{"r.json"});  // the report says why; no placement to write
  const auto report = nlohmann::json::parse(pto_mem::test::read_file(dir.file("r.json")));
  CHECK(report["status"] != "optimal");
  CHECK(report["status"] != "feasible");
}

TEST_CASE("plan: a capacity asks for a fit, no capacity or --minimize for the least peak") {
  SKIP_WITHOUT_TOOL();
  pto_mem::test::TempDir dir;
  // Seven buffers on which the canonical greedy peaks at 576 while 544 (the
  // max-load bound) is reachable.
  const std::string csv = dir.write("seven.csv",
                                    "id,lower,upper,size\nb0,0,3,192\nb1,5,9,96\nb2,1,5,256\nb3,5,10,64\n"
                                    "b4,4,9,192\nb5,1,4,96\nb6,3,8,32\n");
  struct Answer {
    int code;
    std::string status;
    long long peak, stage;
    std::string err;
  };
  auto plan_file = [&](const std::string& file, std::vector<std::string> args) {
    args.insert(args.begin(), {"plan", file});
    args.insert(args.end(), {"--json", dir.file("r.json")});
    const auto r = tool(args);
    const auto j = nlohmann::json::parse(pto_mem::test::read_file(dir.file("r.json")));
    return Answer{r.code, j["status"], j["objective"]["max_peak"], j["statistics"]["portfolio_stage"], r.err};
  };
  auto plan = [&](std::vector<std::string> args) { return plan_file(csv, std::move(args)); };
  const auto unbounded = plan({});  // minimise
  CHECK(unbounded.code == 0);
  CHECK(unbounded.status == "optimal");
  CHECK(unbounded.peak == 544);
  CHECK(unbounded.stage == 1);                   // the exact stage improved on the greedy
  const auto fit = plan({"--capacity", "600"});  // the greedy fits: returned at once
  CHECK(fit.code == 0);
  CHECK(fit.status == "feasible");
  CHECK(fit.peak == 576);
  CHECK(fit.stage == 0);
  CHECK(has(fit.err, "goal fit does not minimise the peak"));
  const auto forced = plan({"--capacity", "600", "--minimize"});
  CHECK(forced.status == "optimal");
  CHECK(forced.peak == 544);
  const auto tight = plan({"--capacity", "560"});  // the greedy does not fit: the search finds one
  CHECK(tight.code == 0);
  CHECK(tight.peak <= 560);
  CHECK(tight.stage == 1);
  // The same buffers as JSON: without a capacity the arena always fits, so
  // the peak is minimised; with one, the first fit is returned.
  std::string buffers;
  for (const char* row :
       {R"("b0", "lifetime": [0, 3], "size": 192)", R"("b1", "lifetime": [5, 9], "size": 96)",
        R"("b2", "lifetime": [1, 5], "size": 256)", R"("b3", "lifetime": [5, 10], "size": 64)",
        R"("b4", "lifetime": [4, 9], "size": 192)", R"("b5", "lifetime": [1, 4], "size": 96)",
        R"("b6", "lifetime": [3, 8], "size": 32)"})
    buffers += std::string(buffers.empty() ? "" : ", ") + R"({"arena": 0, "id": )" + row + "}";
  const std::string open_json =
      dir.write("open.json", R"({"arenas": [{"id": 0}], "buffers": [)" + buffers + "]}");
  const std::string bounded_json =
      dir.write("bounded.json", R"({"arenas": [{"id": 0, "capacity": 600}], "buffers": [)" + buffers + "]}");
  const auto open = plan_file(open_json, {});
  CHECK_MESSAGE(open.code == 0, open.err);
  CHECK(open.status == "optimal");
  CHECK(open.peak == 544);
  const auto bounded = plan_file(bounded_json, {});
  CHECK_MESSAGE(bounded.code == 0, bounded.err);
  CHECK(bounded.peak == 576);
  CHECK(bounded.stage == 0);
}

TEST_CASE("plan of a JSON problem stops at the first fit unless --minimize") {
  SKIP_WITHOUT_TOOL();
  pto_mem::test::TempDir dir;
  const auto fit = tool({"plan", example("attention.json"), "--json", dir.file("fit.json")});
  CHECK_MESSAGE(fit.code == 0, fit.err);
  const auto mini = tool({"plan", example("attention.json"), "--minimize", "--json", dir.file("min.json")});
  CHECK_MESSAGE(mini.code == 0, mini.err);
  const auto f = nlohmann::json::parse(pto_mem::test::read_file(dir.file("fit.json")));
  const auto m = nlohmann::json::parse(pto_mem::test::read_file(dir.file("min.json")));
  CHECK(f["statistics"]["portfolio_stage"] == 0);  // the greedy fits every arena: no search
  CHECK((f["status"] == "feasible" || f["status"] == "optimal"));
  CHECK(m["status"] == "optimal");  // proved within the default budget
  CHECK(m["objective"]["total_peak"].get<long long>() <= f["objective"]["total_peak"].get<long long>());
}

TEST_CASE("validate exits 1 naming both buffers of an overlap") {
  SKIP_WITHOUT_TOOL();
  pto_mem::test::TempDir dir;
  const auto file = dir.write("overlap.csv",
                              "id,lower,upper,size,offset\n"
                              "alpha,0,10,64,0\n"
                              "beta,5,15,64,32\n"
                              "gamma,10,20,64,0\n");
  const auto r = tool({"validate", file, "--capacity", "1024"});
  CHECK(r.code == 1);
  CHECK_MESSAGE(
      has(r.err, file + ": error: buffers 'alpha' [0, 64) live [0, 10) and 'beta' [32, 96) live [5, 15)"),
      r.err);
  CHECK(has(r.err, "'gamma'"));  // gamma overlaps beta too
  CHECK(has(r.err, "2 violations"));
  const auto cap = tool({"validate", file, "--capacity", "64"});
  CHECK(cap.code == 1);
  CHECK(has(cap.err, "exceeds the capacity 64"));
}

TEST_CASE("validate accepts the bundled placements and rejects a file without offsets") {
  SKIP_WITHOUT_TOOL();
  const auto csv = tool({"validate", example("small_placed.csv")});
  CHECK_MESSAGE(csv.code == 0, csv.err);
  CHECK(has(csv.out, "valid: 12 buffers placed"));
  const auto json = tool({"validate", example("full_model.json")});
  CHECK_MESSAGE(json.code == 0, json.err);
  const auto none = tool({"validate", example("small.csv")});
  CHECK(none.code == 2);
  CHECK(has(none.err, "carries no offsets"));
}

TEST_CASE("a malformed CSV exits 2 naming its line and writes nothing") {
  SKIP_WITHOUT_TOOL();
  pto_mem::test::TempDir dir;
  const auto bad = dir.write("bad.csv", "id,lower,upper,size\na,0,4,16\nb,3,x,16\n");
  for (const char* command : {"plan", "validate", "stats"}) {
    std::vector<std::string> args{command, bad};
    if (std::string(command) == "plan")
      args.insert(args.end(),
                  {"-o", dir.file("out.csv"), "--json", dir.file("r.json"), "--svg", dir.file("m.svg")});
    const auto r = tool(args);
    CHECK(r.code == 2);
    CHECK_MESSAGE(has(r.err, bad + ":3:5: error: upper must be an integer, found 'x'"), r.err);
  }
  CHECK(dir.entries() == std::vector<std::string>{"bad.csv"});
}

TEST_CASE("bad files and bad combinations exit 2 with the reason") {
  SKIP_WITHOUT_TOOL();
  pto_mem::test::TempDir dir;
  const auto missing = tool({"plan", dir.file("none.csv")});
  CHECK(missing.code == 2);
  CHECK(has(missing.err, "cannot read"));
  const auto txt = dir.write("problem.txt", "id,lower,upper,size\n");
  const auto unknown = tool({"stats", txt});
  CHECK(unknown.code == 2);
  CHECK(has(unknown.err, "unknown problem format '.txt'"));
  const auto cap = tool({"plan", example("attention.json"), "--capacity", "100"});
  CHECK(cap.code == 2);
  CHECK(has(cap.err, "--capacity applies to CSV problems"));
  const auto ext = tool({"plan", example("small.csv"), "-o", dir.file("out.txt")});
  CHECK(ext.code == 2);
  CHECK(has(ext.err, "--output must name a .csv or .json file"));
  // Two arenas do not fit the CSV format: refused, nothing written.
  const auto two = tool({"plan", example("attention.json"), "-o", dir.file("out.csv")});
  CHECK(two.code == 2);
  CHECK(has(two.err, "CSV holds exactly one arena"));
  const auto json_err =
      dir.write("bad.json", "{\"arenas\": [{\"id\": 0, \"capacity\": 8}],\n \"buffers\": [{\"id\": 1}]}");
  const auto j = tool({"stats", json_err});
  CHECK(j.code == 2);
  CHECK(has(j.err, json_err + ":2:14: error: /buffers/0: the buffer has no 'size' field"));
  CHECK(dir.entries() == std::vector<std::string>{"bad.json", "problem.txt"});
}

TEST_CASE("stats prints buffers, arenas, max-load bound and live count") {
  SKIP_WITHOUT_TOOL();
  const auto r = tool({"stats", example("attention.json")});
  CHECK_MESSAGE(r.code == 0, r.err);
  CHECK(has(r.out, "buffers: 31"));
  CHECK(has(r.out, "arenas: 2"));
  CHECK(has(r.out, "max-load bound"));
  CHECK(has(r.out, "max live"));
  const auto csv = tool({"stats", example("small.csv")});
  CHECK(has(csv.out, "arena0       12     14080         0           14080         5"));
}

TEST_CASE("the quick-start example of docs/index.md runs") {
  if (std::string(PTO_MEM_QUICK_START).empty()) return;
  const auto r = run_command(quote(PTO_MEM_QUICK_START));
  CHECK_MESSAGE(r.code == 0, r.err);
  CHECK(has(r.out, "out: not planned (off-chip)"));
  CHECK(has(r.out, "status: "));
}

TEST_CASE("plan --threads 1 and --threads 2 each write the same bytes on every run") {
  // minimalloc C at its capacity: the exact stage runs some 25 000 nodes,
  // so with two threads the probe splits over both lanes; each thread count
  // must give byte-identical placements and reports (timings aside) run
  // after run, whichever lane is faster.
  SKIP_WITHOUT_TOOL();
  if (!pto_mem::test::have_shared) {
    MESSAGE("PTO_MEM_SHARED_DIR has no data/: skipped");
    return;
  }
  pto_mem::test::TempDir dir;
  const std::string file = pto_mem::test::shared_path("data/minimalloc/C.1048576.csv");
  for (const std::string threads : {"1", "2"}) {
    std::string first_csv;
    nlohmann::json first_json;
    for (int run = 0; run < 2; ++run) {
      const std::string out = dir.file("out" + threads + std::to_string(run) + ".csv");
      const std::string json = dir.file("r" + threads + std::to_string(run) + ".json");
      const auto r = tool({"plan", file, "--capacity", "1048576", "--node-limit", "0", "--threads", threads,
                           "-o", out, "--json", json});
      REQUIRE_MESSAGE(r.code == 0, r.err);
      auto report = nlohmann::json::parse(pto_mem::test::read_file(json));
      for (const char* timing : {"time_s"}) report.erase(timing);
      for (const char* timing : {"first_found_ms", "best_found_ms"}) report["statistics"].erase(timing);
      INFO("threads " << threads << " run " << run);
      CHECK(report["statistics"]["exact_workers"] == std::stoi(threads));
      if (threads == "2")
        CHECK(report["statistics"]["exact_critical_nodes"] < report["statistics"]["exact_nodes"]);
      if (run == 0) {
        first_csv = pto_mem::test::read_file(out);
        first_json = report;
        continue;
      }
      CHECK(pto_mem::test::read_file(out) == first_csv);
      CHECK(report == first_json);
    }
  }
}
