// The conformance checker: runs a case file (specs/pypto/cases/README.md §0
// format) through `pto-mem compile ... --emit json` and decides every
// `# expect:` fact from the JSON report.
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "pto_mem/pypto/text/case_header.hpp"

namespace pto_mem::conformance {

using nlohmann::json;
using pypto::CaseFact;
using pypto::CaseHeader;

struct FactResult {
  CaseFact fact;
  bool ok = false;
  std::string why;  ///< what was found instead, when !ok
};

enum class Outcome { passed, failed };

struct CaseResult {
  std::string file;
  CaseHeader header;
  Outcome outcome = Outcome::failed;
  int exit_code = -1;
  json report;
  std::string problem;  ///< why the case failed, beyond its facts
  std::vector<FactResult> facts;
};

/// The tool flags for a `# passes:` prefix and `# soc:`, or nullopt for an
/// unknown prefix.
inline std::optional<std::vector<std::string>> tool_flags(const CaseHeader& h) {
  struct Row {
    const char* passes;
    const char* until;
    const char* planner;
  };
  static const Row rows[] = {{"infer", "infer", "pypto"},
                             {"infer+init", "init", "pypto"},
                             {"infer+init+alias", "alias", "pypto"},
                             {"infer+init+alias+reuse", "reuse", "pypto"},
                             {"full-pypto", "alloc", "pypto"},
                             {"full-dsa_rp", "alloc", "dsa_rp"},
                             {"full-ptoas", "alloc", "ptoas"}};
  // `# passes: only init,alias`: exactly those passes, on a program already
  // in the state they need (`pto-mem compile --passes`), as PyPTO's pass tests run one pass.
  if (h.passes.rfind("only ", 0) == 0) {
    std::vector<std::string> flags{"--passes", h.passes.substr(5), "--soc", h.soc.empty() ? "a2a3" : h.soc};
    if (!h.planner.empty()) flags.insert(flags.end(), {"--planner", h.planner});
    return flags;
  }
  if (!h.planner.empty()) return std::nullopt;  // the full pipelines name their planner in `# passes:`
  for (const auto& r : rows)
    if (h.passes == r.passes)
      return std::vector<std::string>{"--until", r.until, "--planner",
                                      r.planner, "--soc", h.soc.empty() ? "a2a3" : h.soc};
  return std::nullopt;
}

// ---- the facts --------------------------------------------------------------------------

namespace detail {

inline std::vector<const json*> vars_named(const json& report, const std::string& name) {
  std::vector<const json*> out;
  for (const auto& f : report["functions"])
    for (const auto& v : f["vars"])
      if (v["name"] == name) out.push_back(&v);
  return out;
}

/// The allocation a variable's MemRef is on (searched in the variable's function).
inline const json* allocation_of(const json& report, const std::string& var) {
  for (const auto& f : report["functions"])
    for (const auto& v : f["vars"])
      if (v["name"] == var && v["memref"].is_object())
        for (const auto& a : f["allocations"])
          if (a["base"] == v["memref"]["base"]) return &a;
  return nullptr;
}

inline std::string window(const json& v) {
  if (!v["memref"].is_object()) return v["name"].get<std::string>() + " has no MemRef";
  const auto& m = v["memref"];
  return v["name"].get<std::string>() + " = (" + m["base"].get<std::string>() + ", " + m["offset"].dump() +
         ", " + m["size"].dump() + ")";
}

inline bool same_window(const json& a, const json& b) {
  if (!a["memref"].is_object() || !b["memref"].is_object()) return false;
  const auto &x = a["memref"], &y = b["memref"];
  return x["base"] == y["base"] && x["offset"].is_number_integer() && x["offset"] == y["offset"] &&
         x["size"] == y["size"];
}

inline bool disjoint_windows(const json& a, const json& b) {
  if (!a["memref"].is_object() || !b["memref"].is_object()) return false;
  const auto &x = a["memref"], &y = b["memref"];
  if (x["base"] != y["base"]) return true;
  if (!x["offset"].is_number_integer() || !y["offset"].is_number_integer()) return false;
  const auto xo = x["offset"].get<std::int64_t>(), yo = y["offset"].get<std::int64_t>();
  const auto xe = xo + x["size"].get<std::int64_t>(), ye = yo + y["size"].get<std::int64_t>();
  return xe <= yo || ye <= xo;
}

inline std::string all_messages(const json& report) {
  std::string out;
  for (const auto& d : report["diagnostics"])
    out += "\n    " + d["severity"].get<std::string>() + ": " + d["message"].get<std::string>();
  return out;
}

}  // namespace detail

/// Decides one fact (other than `error`, which check_facts handles jointly).
inline FactResult check_fact(const CaseFact& f, const json& report) {
  FactResult r{f, false, {}};
  const auto& a = f.args;
  auto fail = [&](std::string why) {
    r.why = std::move(why);
    return r;
  };
  if (f.kind == "space") {
    auto vs = detail::vars_named(report, a[0]);
    if (vs.empty()) return fail("no variable '" + a[0] + "'");
    for (const auto* v : vs)
      if ((*v)["space"] != a[1]) return fail(a[0] + " is in " + (*v)["space"].dump());
  } else if (f.kind == "move") {
    std::string seen;
    for (const auto& fn : report["functions"])
      for (const auto& m : fn["moves"]) {
        if ((a[0] == "*" || m["name"] == a[0]) && m["source"] == a[1] && m["target"] == a[2]) {
          r.ok = true;
          return r;
        }
        seen += " " + m["name"].get<std::string>() + "(" + m["source"].get<std::string>() + "->" +
                m["target"].get<std::string>() + ")";
      }
    return fail("inserted moves:" + (seen.empty() ? std::string(" none") : seen));
  } else if (f.kind == "no-move") {
    for (const auto& fn : report["functions"])
      if (!fn["moves"].empty()) return fail("inserted moves: " + fn["moves"].dump());
  } else if (f.kind == "share" || f.kind == "distinct") {
    auto xs = detail::vars_named(report, a[0]), ys = detail::vars_named(report, a[1]);
    if (xs.empty() || ys.empty()) return fail("no variable '" + (xs.empty() ? a[0] : a[1]) + "'");
    for (const auto* x : xs)
      for (const auto* y : ys) {
        const bool holds = f.kind == "share" ? detail::same_window(*x, *y) : detail::disjoint_windows(*x, *y);
        if (!holds) return fail(detail::window(*x) + ", " + detail::window(*y));
      }
  } else if (f.kind == "allocs") {
    std::int64_t n = 0;
    for (const auto& fn : report["functions"])
      for (const auto& al : fn["allocations"]) n += al["space"] == a[0];
    if (std::to_string(n) != a[1]) return fail(std::to_string(n) + " " + a[0] + " allocations");
  } else if (f.kind == "alloc-size" || f.kind == "pinned") {
    const json* al = detail::allocation_of(report, a[0]);
    if (!al) return fail("no allocation for '" + a[0] + "'");
    if (f.kind == "pinned" && (*al)["pinned"] != true)
      return fail((*al)["base"].get<std::string>() + " is not pinned");
    if (f.kind == "alloc-size" && (*al)["size"].dump() != a[1])
      return fail((*al)["base"].get<std::string>() + " has " + (*al)["size"].dump() + " bytes");
  } else if (f.kind == "addr") {
    auto vs = detail::vars_named(report, a[0]);
    if (vs.empty()) return fail("no variable '" + a[0] + "'");
    for (const auto* v : vs)
      if (const json* m = &(*v)["memref"];
          !m->is_object() ||
          ((*m)["offset"].is_string() ? (*m)["offset"].get<std::string>() : (*m)["offset"].dump()) != a[1])
        return fail(detail::window(*v));
  } else if (f.kind == "diag") {
    for (const auto& d : report["diagnostics"])
      if (d["message"].get<std::string>().find(a[0]) != std::string::npos ||
          (d.contains("code") && d["code"].is_string() && d["code"].get<std::string>() == a[0])) {
        r.ok = true;
        return r;
      }
    return fail("diagnostics:" + detail::all_messages(report));
  } else if (f.kind == "no-diag") {
    for (const auto& d : report["diagnostics"])
      if (d["message"].get<std::string>().find(a[0]) != std::string::npos ||
          (d.contains("code") && d["code"].is_string() && d["code"].get<std::string>() == a[0]))
        return fail("diagnostics:" + detail::all_messages(report));
  } else {
    return fail("unknown fact");
  }
  r.ok = true;
  return r;
}

/// Every fact of `h` against a report and the tool's exit code. A case
/// without `error` facts must compile (exit 0); `error` facts must all match
/// one error message (some alternative of each).
inline std::vector<FactResult> check_facts(const CaseHeader& h, const json& report, int exit_code) {
  std::vector<FactResult> out;
  std::vector<const CaseFact*> errors;
  for (const auto& f : h.expects)
    if (f.kind == "error") errors.push_back(&f);
  if (!errors.empty()) {
    bool matched = false;
    if (exit_code != 0)
      for (const auto& d : report["diagnostics"]) {
        if (d["severity"] != "error") continue;
        const std::string msg = d["message"];
        bool all = true;
        for (const auto* e : errors) {
          bool any = false;
          for (const auto& alt : e->args) any |= msg.find(alt) != std::string::npos;
          all &= any;
        }
        matched |= all;
      }
    for (const auto* e : errors)
      out.push_back(FactResult{
          *e, matched,
          matched ? std::string()
                  : "exit " + std::to_string(exit_code) + ", diagnostics:" + detail::all_messages(report)});
    return out;  // a rejected program has no layout to check
  }
  for (const auto& f : h.expects) {
    if (exit_code != 0) {
      out.push_back(FactResult{
          f, false,
          "the pipeline failed (exit " + std::to_string(exit_code) + "):" + detail::all_messages(report)});
      continue;
    }
    out.push_back(check_fact(f, report));
  }
  return out;
}

// ---- running the tool ---------------------------------------------------------------------

inline std::string shell_quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'')
      out += "'\\''";
    else
      out += c;
  }
  return out + "'";
}

/// Runs `tool compile FILE <flags> --emit json`, stdout captured, stderr dropped.
inline std::pair<int, std::string> run_tool(const std::string& tool, const std::string& file,
                                            const std::vector<std::string>& flags) {
  std::string cmd = shell_quote(tool) + " compile " + shell_quote(file);
  for (const auto& f : flags) cmd += " " + shell_quote(f);
  cmd += " --emit json 2>/dev/null";
  std::string out;
  FILE* pipe = ::popen(cmd.c_str(), "r");
  if (!pipe) return {-1, out};
  char buf[4096];
  std::size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, pipe)) > 0) out.append(buf, n);
  const int st = ::pclose(pipe);
  return {WIFEXITED(st) ? WEXITSTATUS(st) : -1, out};
}

/// Runs and checks one case file.
inline CaseResult run_case(const std::string& tool, const std::string& file) {
  CaseResult r;
  r.file = file;
  std::ifstream in(file, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  r.header = pypto::parse_case_header(ss.str());
  auto flags = tool_flags(r.header);
  if (flags) flags->insert(flags->end(), r.header.flags.begin(), r.header.flags.end());
  if (!flags) {
    r.problem = "unknown '# passes: " + r.header.passes + "'";
    if (!r.header.planner.empty())
      r.problem += " with '# planner: " + r.header.planner + "' (a planner goes with 'only ...' passes)";
    return r;
  }
  if (r.header.expects.empty()) {
    r.problem = "no '# expect:' facts";
    return r;
  }
  if (const std::string& soc = r.header.soc;
      soc.size() > 5 && soc.ends_with(".json"))  // a chip file, relative to the case
    for (std::size_t i = 0; i + 1 < flags->size(); ++i)
      if ((*flags)[i] == "--soc")
        (*flags)[i] = "--soc-file",
        (*flags)[i + 1] = (std::filesystem::path(file).parent_path() / soc).string();
  auto [code, out] = run_tool(tool, file, *flags);
  r.exit_code = code;
  r.report = json::parse(out, nullptr, false);
  if (r.report.is_discarded() || !r.report.is_object()) {
    r.problem = "the tool printed no JSON report (exit " + std::to_string(code) + ")";
    return r;
  }
  r.facts = check_facts(r.header, r.report, code);
  bool ok = true;
  for (const auto& f : r.facts) ok &= f.ok;
  r.outcome = ok ? Outcome::passed : Outcome::failed;
  return r;
}

/// A human summary: the outcome, then one line per fact.
inline std::string describe(const CaseResult& r) {
  std::string out = std::filesystem::path(r.file).filename().string() + ": " +
                    (r.outcome == Outcome::passed ? "passed" : "FAILED");
  if (!r.problem.empty()) out += " (" + r.problem + ")";
  out += "\n";
  for (const auto& f : r.facts)
    out += std::string(f.ok ? "  ok    " : "  FAIL  ") + f.fact.text + (f.ok ? "" : "  -- " + f.why) + "\n";
  return out;
}

}  // namespace pto_mem::conformance
