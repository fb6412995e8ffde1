// Helpers for the PyPTO adapter tests.
#pragma once

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "pto_mem/pypto.hpp"
#include "test_support.hpp"

namespace pto_mem::test {

inline std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

/// *.pto files of a folder, sorted (empty when it does not exist).
inline std::vector<std::string> pto_files(const std::string& dir) {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec))
    if (e.path().extension() == ".pto") out.push_back(e.path().string());
  std::sort(out.begin(), out.end());
  return out;
}

inline std::vector<std::string> case_files() { return pto_files(shared_path("specs/pypto/cases")); }
inline std::vector<std::string> own_data_files() {
  return pto_files(std::string(PTO_MEM_SOURCE_DIR) + "/tests/pypto/data");
}

/// The text after the leading comment / blank lines (a case's program).
inline std::string program_text(const std::string& text) {
  std::istringstream in(text);
  std::string line, out;
  bool started = false;
  while (std::getline(in, line)) {
    if (!started && (line.empty() || line[0] == '#')) continue;
    started = true;
    out += line + "\n";
  }
  return out;
}

/// Parses `text`, failing the test with the diagnostic when it does not parse.
inline pypto::Program parse_ok(const std::string& text, const std::string& file = "test.pto",
                               const pypto::ParseOptions& options = {}) {
  auto r = pypto::parse_program(text, file, options);
  INFO(dump(r.diagnostics));
  REQUIRE(r.ok());
  return std::move(r.program);
}

/// The single diagnostic of a rejected parse.
inline Diagnostic parse_error(const std::string& text, const pypto::ParseOptions& options = {}) {
  auto r = pypto::parse_program(text, "bad.pto", options);
  REQUIRE_FALSE(r.ok());
  REQUIRE(r.diagnostics.size() == 1);
  return r.diagnostics.front();
}

}  // namespace pto_mem::test
