// What the CSV and JSON reader fuzzers hold every input to (issue 10 item 4):
// a rejection is located diagnostics, never a crash or an exception; an
// accepted problem passes the library's own input checks, its placement gets
// the same verdict from the validator as from a brute-force check of the
// geometry (under the rule `pto-mem validate` applies to a file without a
// capacity), and the problem written back out as CSV and as JSON re-reads to
// the identical problem, placement and verdict. Any breach aborts, so that
// libFuzzer keeps the input.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <string_view>

#include "../tests/io/problem_equal.hpp"
#include "pto_mem/algorithms/validator.hpp"
#include "pto_mem/io/csv.hpp"
#include "pto_mem/io/json_problem.hpp"

namespace pto_mem::fuzz {

[[noreturn]] inline void fail(std::string_view what, std::string_view input, std::string_view detail = {}) {
  std::fprintf(stderr, "\nfuzz check failed: %.*s\n", static_cast<int>(what.size()), what.data());
  if (!detail.empty())
    std::fprintf(stderr, "--- detail:\n%.*s\n", static_cast<int>(detail.size()), detail.data());
  std::fprintf(stderr, "--- input (%zu bytes):\n%.*s\n---\n", input.size(), static_cast<int>(input.size()),
               input.data());
  std::abort();
}

inline std::string messages(const Diagnostics& ds) {
  std::string out;
  for (const auto& d : ds) out += format(d) + "\n";
  return out;
}

/// Runs a reader; the readers document no exception (bad input is
/// diagnostics), so any exception that escapes is a bug.
template <class Read>
ReadResult guarded(Read read, std::string_view input, std::string_view what) {
  try {
    return read();
  } catch (const std::exception& e) {
    fail(std::string(what) + " threw " + e.what(), input);
  } catch (...) {
    fail(std::string(what) + " threw a non-standard exception", input);
  }
}

/// Whether line:column (1-based; 0:0 is the whole file) is in `text`: the
/// column at most one past the line's last byte.
inline bool in_text(std::string_view text, std::uint32_t line, std::uint32_t column) {
  if (line == 0) return column == 0;
  std::size_t start = 0;
  for (std::uint32_t l = 1; l < line; ++l) {
    const auto nl = text.find('\n', start);
    if (nl == std::string_view::npos) return false;
    start = nl + 1;
  }
  const auto nl = text.find('\n', start);
  const std::size_t length = (nl == std::string_view::npos ? text.size() : nl) - start;
  return column >= 1 && column <= length + 1;
}

/// A refusal names the file and a place in it, and says something.
inline void check_rejection(const ReadResult& r, const std::string& file, std::string_view input,
                            std::string_view text) {
  if (r.diagnostics.empty()) fail("rejected without a diagnostic", input);
  for (const auto& d : r.diagnostics) {
    if (d.message.empty()) fail("a diagnostic without a message", input);
    if (!d.location || d.location->file != file)
      fail("a diagnostic that does not name the file", input, format(d));
    if (!in_text(text, d.location->line, d.location->column))
      fail("a diagnostic points outside the text", input, format(d));
  }
  if (!has_errors(r.diagnostics)) fail("rejected with warnings only", input, messages(r.diagnostics));
}

/// The problem as `pto-mem validate` sees it: an arena the file gives no
/// capacity is not checked against one.
inline Problem as_validated_by_tool(const ProblemFile& f) {
  Problem p = f.problem;
  for (std::size_t k = 0; k < p.arenas.size() && k < f.no_capacity.size(); ++k)
    if (f.no_capacity[k]) p.arenas[k].capacity = max_addr;
  return p;
}

/// Brute force over every pair, for problems without alias groups,
/// separations or declarations (penalties do not decide validity): true when
/// every buffer is placed, aligned, inside its arena and clear of its reserved
/// windows, and no two co-live buffers of one arena share a byte.
inline bool geometry_is_valid(const Problem& p, const Placement& pl) {
  const ProblemIndex index(p);
  const std::size_t n = p.buffers.size();
  for (std::size_t i = 0; i < n; ++i) {
    const auto& b = p.buffers[i];
    if (!pl.offsets[i]) return false;
    const Addr off = *pl.offsets[i];
    if (off % b.alignment != 0 || b.size > max_addr - off) return false;
    const auto& a = p.arenas[*index.arena(b.arena)];
    if (off + b.size > a.capacity) return false;
    for (const auto& r : a.reserved)
      if (off < r.end && r.begin < off + b.size) return false;
  }
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = i + 1; j < n; ++j) {
      const auto &x = p.buffers[i], &y = p.buffers[j];
      if (x.arena != y.arena || !(x.lifetime.begin < y.lifetime.end && y.lifetime.begin < x.lifetime.end))
        continue;
      const Addr xo = *pl.offsets[i], yo = *pl.offsets[j];
      if (xo < yo + y.size && yo < xo + x.size) return false;
    }
  return true;
}

inline bool has_constraints(const Problem& p) {
  return !p.must_alias.empty() || !p.separations.empty() || !p.declared.empty();
}

/// The placement (when the file has one) must get the validator's verdict
/// without a crash, and for the model CSV holds that verdict is recomputed
/// here from geometry alone.
inline void check_verdict(const ProblemFile& f, std::string_view input) {
  if (!f.placement) return;
  const Problem tool_view = as_validated_by_tool(f);
  const Diagnostics verdict = validate(tool_view, *f.placement);
  if (!has_constraints(f.problem) && f.problem.buffers.size() <= 2000 &&
      has_errors(verdict) == geometry_is_valid(tool_view, *f.placement))
    fail(has_errors(verdict) ? "the validator refuses a placement the geometry allows"
                             : "the validator accepts a placement the geometry refuses",
         input, messages(verdict));
}

inline void check_same(const ProblemFile& a, const ProblemFile& b, std::string_view what,
                       std::string_view input, std::string_view written) {
  const std::string diff = test::first_difference(a.problem, b.problem);
  if (!diff.empty()) fail(std::string(what) + ": the re-read problem differs in " + diff, input, written);
  if (a.placement.has_value() != b.placement.has_value())
    fail(std::string(what) + ": the placement was lost or invented", input, written);
  if (a.placement && a.placement->offsets != b.placement->offsets)
    fail(std::string(what) + ": the re-read offsets differ", input, written);
  if (a.no_capacity != b.no_capacity)
    fail(std::string(what) + ": which arenas have a capacity changed", input, written);
  if (a.placement) {
    const std::string v1 = messages(validate(as_validated_by_tool(a), *a.placement));
    const std::string v2 = messages(validate(as_validated_by_tool(b), *b.placement));
    if (v1 != v2)
      fail(std::string(what) + ": the re-read placement gets another verdict", input, v1 + "---\n" + v2);
  }
}

/// Written as CSV when the format can hold the problem, and read back.
inline void check_csv_round_trip(const ProblemFile& f, std::string_view input, bool must_fit) {
  const Problem& p = f.problem;
  const TextResult csv = to_csv(p, f.placement ? &*f.placement : nullptr);
  if (!csv) {
    bool aligned = false;
    for (const auto& b : p.buffers) aligned = aligned || b.alignment != 1;
    const bool beyond_csv = p.arenas.size() != 1 || !p.arenas[0].reserved.empty() || has_constraints(p) ||
                            !p.penalties.empty() || aligned;
    if (must_fit || !beyond_csv)
      fail("to_csv refuses a problem CSV can hold", input, messages(csv.diagnostics));
    return;
  }
  // CSV carries neither the arena's id, name nor capacity: they come from
  // the caller, as the tool passes --capacity.
  CsvOptions options;
  options.arena_name = p.arenas[0].name;
  if (!f.no_capacity[0]) options.capacity = p.arenas[0].capacity;
  const ReadResult again =
      guarded([&] { return read_csv(*csv.text, options, "written.csv"); }, input, "read_csv (re-read)");
  if (!again)
    fail("the written CSV does not re-read", input, *csv.text + "---\n" + messages(again.diagnostics));
  ProblemFile expected = f;
  const std::int64_t arena = expected.problem.arenas[0].id;
  expected.problem.arenas[0].id = 0;
  for (auto& b : expected.problem.buffers)
    if (b.arena == arena) b.arena = 0;
  check_same(expected, *again.file, "CSV round trip", input, *csv.text);
  const TextResult twice =
      to_csv(again.file->problem, again.file->placement ? &*again.file->placement : nullptr);
  if (!twice || *twice.text != *csv.text)
    fail("write -> read -> write of CSV is not a fixed point", input, *csv.text);
}

/// Written as JSON (every problem fits) and read back.
inline void check_json_round_trip(const ProblemFile& f, std::string_view input) {
  if (auto bad = json_name_defects(f.problem); !bad.empty())
    fail("the JSON writer refuses names a reader accepted", input, messages(bad));
  const std::string text = json_problem_text(f);
  const ReadResult again =
      guarded([&] { return read_json_problem(text, "written.json"); }, input, "read_json_problem (re-read)");
  if (!again) fail("the written JSON does not re-read", input, text + "---\n" + messages(again.diagnostics));
  check_same(f, *again.file, "JSON round trip", input, text);
  if (json_problem_text(*again.file) != text)
    fail("write -> read -> write of JSON is not a fixed point", input, text);
}

/// Everything an accepted file is held to.
inline void check_accepted(const ProblemFile& f, std::string_view input, bool from_csv) {
  if (auto ds = validate(f.problem); has_errors(ds))
    fail("an accepted problem fails validate(problem)", input, messages(ds));
  if (f.no_capacity.size() != f.problem.arenas.size()) fail("no_capacity is not one flag per arena", input);
  if (f.placement && f.placement->offsets.size() != f.problem.buffers.size())
    fail("the placement does not have one offset per buffer", input);
  check_verdict(f, input);
  check_csv_round_trip(f, input, from_csv);
  check_json_round_trip(f, input);
}

}  // namespace pto_mem::fuzz
