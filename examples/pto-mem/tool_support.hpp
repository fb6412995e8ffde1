// What every pto-mem subcommand shares: exit codes, loading a problem file
// by its extension, printing diagnostics the way compilers do, and tables.
#pragma once

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <filesystem>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "pto_mem/io/csv.hpp"
#include "pto_mem/io/json_problem.hpp"

namespace pto_mem::tool {

enum ExitCode : int {
  exit_success = 0,
  exit_no_fit = 1,     ///< no placement fits, or validation found violations
  exit_bad_input = 2,  ///< bad usage or bad input
};

/// Ends the running subcommand with `code`; main() turns it into the exit status.
[[noreturn]] inline void exit_with(int code) { throw CLI::RuntimeError(code); }

/// Prints diagnostics to stderr as `file:line:column: severity: message`;
/// those without a position are attributed to `file`.
inline void print_diagnostics(Diagnostics ds, const std::string& file) {
  attribute_to_file(ds, file);
  for (const auto& d : ds) std::cerr << format(d) << '\n';
}

/// Prints one error about `file` and ends the subcommand with exit code 2.
[[noreturn]] inline void fail_input(const std::string& file, const std::string& message) {
  print_diagnostics({error_at(SourceLocation{file, 0, 0}, message)}, file);
  exit_with(exit_bad_input);
}

/// The lower-case extension of a path, without the dot ("csv", "json").
inline std::string extension_of(const std::string& path) {
  std::string ext = std::filesystem::path(path).extension().string();
  if (!ext.empty()) ext.erase(0, 1);
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return ext;
}

/// Reads FILE as CSV or JSON by its extension, or ends the subcommand with
/// exit code 2 and the reader's diagnostics. `capacity` is the CSV arena's
/// capacity (JSON problems carry their own).
inline ProblemFile load_problem(const std::string& file, std::optional<Addr> capacity) {
  const std::string ext = extension_of(file);
  ReadResult r;
  if (ext == "csv") {
    CsvOptions options;
    options.capacity = capacity;
    r = read_csv_file(file, options);
  } else if (ext == "json") {
    if (capacity)
      fail_input(file, "--capacity applies to CSV problems; a JSON problem gives each arena's \"capacity\" itself");
    r = read_json_problem_file(file);
  } else {
    fail_input(file, (ext.empty() ? std::string("cannot tell the problem format without an extension")
                                  : "unknown problem format '." + ext + "'") +
                         "; name the file .csv (id,lower,upper,size[,offset]) or .json (see docs/formats.md)");
  }
  if (!r) {
    print_diagnostics(std::move(r.diagnostics), file);
    exit_with(exit_bad_input);
  }
  print_diagnostics(std::move(r.diagnostics), file);  // warnings, if any
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
