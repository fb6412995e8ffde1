// What every pto-mem subcommand shares: exit codes, loading a problem file
// by its extension, printing diagnostics the way compilers do, and tables.
#pragma once

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <iostream>
#include <limits>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "pto_mem/io/csv.hpp"
#include "pto_mem/io/dsa_schema.hpp"
#include "pto_mem/io/id_text.hpp"
#include "pto_mem/io/json_problem.hpp"
#include "pto_mem/io/output_set.hpp"

namespace pto_mem::tool {

enum ExitCode : int {
  exit_success = 0,
  exit_no_fit = 1,     ///< no placement fits, or validation found violations
  exit_bad_input = 2,  ///< bad usage or bad input
};

/// Ends the running subcommand with `code`; main() turns it into the exit status.
[[noreturn]] inline void exit_with(int code) { throw CLI::RuntimeError(code); }

/// A diagnostic line as the terminal gets it: the control characters and
/// stray bytes of any user text it quotes (a file name, an id) spelled out
/// (io/id_text.hpp), line breaks and tabs kept.
inline std::string terminal_text(const std::string& line) {
  std::string out;
  std::size_t start = 0;
  while (true) {
    const std::size_t stop = line.find_first_of("\n\t", start);
    out += printable(
        std::string_view(line).substr(start, stop == std::string::npos ? std::string::npos : stop - start));
    if (stop == std::string::npos) return out;
    out += line[stop];
    start = stop + 1;
  }
}

/// Prints diagnostics to stderr as `file:line:column: severity: message`;
/// those without a position are attributed to `file`.
inline void print_diagnostics(Diagnostics ds, const std::string& file) {
  attribute_to_file(ds, file);
  for (const auto& d : ds) std::cerr << terminal_text(format(d)) << '\n';
}

/// Prints one error about `file` and ends the subcommand with exit code 2.
[[noreturn]] inline void fail_input(const std::string& file, const std::string& message) {
  print_diagnostics({error_at(SourceLocation{file, 0, 0}, message)}, file);
  exit_with(exit_bad_input);
}

/// Requests output `what` when its option was given (an empty path given
/// explicitly, `-o ""`, is then refused by check_outputs, not ignored).
inline void add_output(OutputSet& set, const CLI::Option* option, const std::string& path) {
  if (option->count() > 0) set.add(option->get_name(), path);
}

/// The output-safety rules of docs/tool.md, checked before any work:
/// ends the subcommand with exit code 2 when an output cannot be written.
inline void check_outputs(OutputSet& set, const std::vector<std::string>& inputs) {
  const Diagnostics ds = set.check(inputs);
  if (!has_errors(ds)) return;
  for (const auto& d : ds) std::cerr << terminal_text(format(d)) << '\n';
  exit_with(exit_bad_input);
}

/// Writes every output that was given a text, all or none; prints what was
/// written to `info` (or the errors to stderr). False on failure.
inline bool commit_outputs(OutputSet& set, std::ostream& info, const std::vector<std::string>& written) {
  const Diagnostics ds = set.commit();
  for (const auto& d : ds) std::cerr << terminal_text(format(d)) << '\n';
  if (has_errors(ds)) {
    std::cerr << "pto-mem: note: no output was replaced\n";
    return false;
  }
  for (const auto& path : written)
    if (path != "-") info << "wrote " << path << '\n';
  return true;
}

/// A CLI11 check for an unsigned integer option in [min, max]: decimal
/// digits only (no sign, no exponent, no wrap-around of "-1", no saturation
/// of a number past 2^64-1). CLI11 prefixes the message with the option's
/// name and the tool exits 2.
inline CLI::Validator unsigned_in(std::uint64_t min,
                                  std::uint64_t max = std::numeric_limits<std::uint64_t>::max()) {
  return CLI::Validator(
      [min, max](std::string& s) -> std::string {
        std::uint64_t v = 0;
        const char* b = s.data();
        const char* e = b + s.size();
        auto [ptr, ec] = std::from_chars(b, e, v);
        const bool digits = !s.empty() && std::all_of(s.begin(), s.end(),
                                                      [](unsigned char c) { return std::isdigit(c) != 0; });
        if (!digits || ptr != e) return "'" + printable(s, 40) + "' is not a non-negative integer";
        if (ec == std::errc::result_out_of_range || v > max)
          return "'" + printable(s, 40) + "' is too large; the largest allowed value is " +
                 std::to_string(max);
        if (v < min) return "'" + s + "' is too small; the smallest allowed value is " + std::to_string(min);
        return {};
      },
      min > 0 ? "UINT>0" : "UINT");
}

/// A CLI11 check for a positive number of seconds ("nan", 0 and negatives
/// are refused; "inf", like any value of a billion seconds or more, means no
/// time limit in practice).
inline CLI::Validator positive_seconds() {
  return CLI::Validator(
      [](std::string& s) -> std::string {
        double v = 0;
        const char* b = s.data();
        const char* e = b + s.size();
        auto [ptr, ec] = std::from_chars(b, e, v);
        if (s.empty() || ec != std::errc{} || ptr != e || std::isnan(v) || v <= 0)
          return "'" + printable(s, 40) + "' is not a positive number of seconds";
        return {};
      },
      "SECONDS>0");
}

/// The lower-case extension of a path, without the dot ("csv", "json").
inline std::string extension_of(const std::string& path) {
  std::string ext = std::filesystem::path(path).extension().string();
  if (!ext.empty()) ext.erase(0, 1);
  std::transform(ext.begin(), ext.end(), ext.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return ext;
}

/// The name diagnostics give the input FILE: "<stdin>" for "-".
inline std::string input_name(const std::string& file) { return file == "-" ? "<stdin>" : file; }

/// Adds `--format` to a subcommand that reads a problem: the format of FILE
/// when its extension does not tell (standard input, "-") or says otherwise.
inline CLI::Option* add_format_option(CLI::App* cmd, std::string& format) {
  return cmd
      ->add_option(
          "--format", format,
          "problem format: csv, json or dsa (PyPTO's DSA schema v1; a .json file holding "
          "\"schema_version\" is read as dsa) (default: FILE's extension; needed for -, standard input)")
      ->check(CLI::IsMember({"csv", "json", "dsa"}));
}

/// The problem format of FILE: `format` when given (--format), else FILE's
/// extension; ends the subcommand with exit code 2 when neither tells.
inline std::string problem_format(const std::string& file, const std::string& format) {
  if (!format.empty()) return format;
  const std::string ext = file == "-" ? std::string() : extension_of(file);
  if (ext == "csv" || ext == "json") return ext;
  if (file == "-")
    fail_input(input_name(file),
               "cannot tell the format of standard input; give --format csv or --format json");
  fail_input(file,
             (ext.empty() ? std::string("cannot tell the problem format without an extension")
                          : "unknown problem format '." + printable(ext, 40) + "'") +
                 "; name the file .csv (id,lower,upper,size[,offset]) or .json (see docs/formats.md), or "
                 "give --format csv|json");
}

/// Reads FILE ("-": standard input) as CSV or JSON -- `format` (--format)
/// when given, else by FILE's extension -- or ends the subcommand with exit
/// code 2 and the reader's diagnostics. `capacity` is the CSV arena's
/// capacity (JSON problems carry their own).
///
/// A JSON text with a top-level "schema_version" key is PyPTO's DSA schema v1
/// (io/dsa_schema.hpp), read as such; `dsa`, when given, receives what a
/// schema-v1 solution needs (then set, else reset).
inline ProblemFile load_problem(const std::string& file, std::optional<Addr> capacity,
                                const std::string& format = {}, std::optional<DsaDocument>* dsa = nullptr) {
  std::string kind = problem_format(file, format);
  if (dsa) dsa->reset();
  const std::string name = input_name(file);
  if ((kind == "json" || kind == "dsa") && capacity)
    fail_input(name,
               "--capacity applies to CSV problems; a JSON problem gives each arena's \"capacity\" itself");
  SourceText src;
  if (file == "-") {
    std::ostringstream text;
    text << std::cin.rdbuf();
    if (std::cin.bad()) fail_input(name, "cannot read standard input");
    src.text = std::move(text).str();
  } else {
    src = read_source_text(file);
  }
  ReadResult r;
  if (!src.text) {
    r.diagnostics = std::move(src.diagnostics);
  } else if (kind == "dsa" || (kind == "json" && looks_like_dsa_schema(*src.text))) {
    DsaReadResult d = read_dsa_problem(*src.text, name);
    if (d && dsa) *dsa = std::move(d.document);
    r = std::move(d.read);
  } else if (kind == "csv") {
    CsvOptions options;
    options.capacity = capacity;
    r = read_csv(*src.text, options, name);
  } else {
    r = read_json_problem(*src.text, name);
  }
  if (!r) {
    print_diagnostics(std::move(r.diagnostics), name);
    exit_with(exit_bad_input);
  }
  print_diagnostics(std::move(r.diagnostics), name);  // warnings, if any
  return std::move(*r.file);
}

/// A plain text table: the first column left-aligned, the others right-aligned.
class Table {
 public:
  explicit Table(std::vector<std::string> header) { rows_.push_back(std::move(header)); }
  void add(std::vector<std::string> row) { rows_.push_back(std::move(row)); }
  void print(std::ostream& out) const {
    std::vector<std::size_t> width;
    for (const auto& r : rows_)
      for (std::size_t c = 0; c < r.size(); ++c) {
        if (width.size() <= c) width.push_back(0);
        width[c] = std::max(width[c], r[c].size());
      }
    for (const auto& r : rows_) {
      std::string line;
      for (std::size_t c = 0; c < r.size(); ++c) {
        const std::string pad(width[c] - r[c].size(), ' ');
        if (c > 0) line += "  ";
        line += c == 0 ? r[c] + pad : pad + r[c];
      }
      while (!line.empty() && line.back() == ' ') line.pop_back();
      out << line << '\n';
    }
  }

 private:
  std::vector<std::vector<std::string>> rows_;
};

/// "1.027" for a ratio, "-" when undefined.
inline std::string ratio(Addr num, Addr den) {
  if (den == 0) return "-";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f", static_cast<double>(num) / static_cast<double>(den));
  return buf;
}

}  // namespace pto_mem::tool
