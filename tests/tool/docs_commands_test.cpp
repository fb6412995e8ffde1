// Every `$ build/bin/pto-mem ...` example in the docs whose inputs ship
// with the repository is run, and every line the docs show must be in what
// the tool prints (times and column padding aside; lines with "..." are
// elisions). A doc that shows an old output fails here.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "temp_dir.hpp"
#include "tool_run.hpp"

namespace {
using namespace pto_mem::tool_test;

struct Example {
  std::string doc;
  std::string command;             // after "$ "
  std::vector<std::string> shown;  // the lines the docs show after it
};

std::vector<Example> examples_in(const std::filesystem::path& doc) {
  std::ifstream in(doc);
  std::vector<Example> out;
  std::string line;
  bool in_block = false;
  Example* current = nullptr;
  while (std::getline(in, line)) {
    if (line.rfind("```", 0) == 0) {
      in_block = !in_block;
      current = nullptr;
      continue;
    }
    if (!in_block) continue;
    if (line.rfind("$ build/bin/pto-mem ", 0) == 0) {
      out.push_back({doc.filename().string(), line.substr(2), {}});
      current = &out.back();
    } else if (current) {
      current->shown.push_back(line);
    }
  }
  return out;
}

std::vector<std::string> words(const std::string& s) {
  std::istringstream in(s);
  std::vector<std::string> w;
  std::string x;
  while (in >> x) w.push_back(x);
  return w;
}

/// Whitespace folded and planning times replaced: "0.4 ms" -> "TIME".
std::string normal(std::string s) {
  static const std::regex time(R"(\b[0-9]+(\.[0-9]+)? (ms|s)\b)");
  s = std::regex_replace(s, time, "TIME");
  std::string out;
  for (const auto& w : words(s)) out += (out.empty() ? "" : " ") + w;
  return out;
}

}  // namespace

TEST_CASE("the docs' pto-mem examples print what the docs show") {
  SKIP_WITHOUT_TOOL();
  const std::filesystem::path source(PTO_MEM_SOURCE_DIR);
  std::vector<Example> all;
  for (const auto& entry : std::filesystem::directory_iterator(source / "docs"))
    if (entry.path().extension() == ".md")
      for (auto& e : examples_in(entry.path())) all.push_back(std::move(e));
  for (auto& e : examples_in(source / "README.md")) all.push_back(std::move(e));
  int ran = 0;
  for (const auto& e : all) {
    CAPTURE(e.doc);
    CAPTURE(e.command);
    pto_mem::test::TempDir dir;
    auto args = words(e.command);
    bool inputs_ship = true;
    for (std::size_t i = 1; i < args.size(); ++i) {
      auto& a = args[i];
      if (a.rfind("build/", 0) == 0) {
        a = dir.file(a.substr(6));  // outputs go to a scratch folder
      } else if (a.find('.') != std::string::npos && a[0] != '-' &&
                 std::filesystem::path(a).has_extension() && !std::filesystem::exists(source / a)) {
        inputs_ship = false;  // a file the docs make up ("overlap.csv")
      }
    }
    if (!inputs_ship) continue;
    std::string command = "cd " + quote(source.string()) + " && " + quote(PTO_MEM_TOOL);
    for (std::size_t i = 1; i < args.size(); ++i) command += " " + quote(args[i]);
    const Run r = run_command(command);
    ++ran;
    CHECK_MESSAGE((r.code == 0 || r.code == 1), std::string(r.out + r.err));
    std::vector<std::string> printed;
    std::istringstream out(r.out + r.err);  // the docs show both streams
    for (std::string line; std::getline(out, line);) printed.push_back(normal(line));
    for (std::string shown : e.shown) {
      if (shown.find("...") != std::string::npos || words(shown).empty()) continue;
      const auto at = shown.find("build/");
      if (at != std::string::npos) shown = shown.substr(0, at) + dir.file(shown.substr(at + 6));
      CAPTURE(shown);
      CHECK_MESSAGE(std::find(printed.begin(), printed.end(), normal(shown)) != printed.end(),
                    std::string(r.out + r.err));
    }
  }
  CHECK(ran >= 4);
}
