// Running the built pto-mem from the tool tests: a command line through
// the shell (stdout through a pipe, stderr through a file), exit codes, and
// the paths of the bundled examples.
#pragma once

#include <doctest/doctest.h>

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <string>
#include <vector>

#include "temp_dir.hpp"
#include "test_support.hpp"

extern char** environ;

namespace pto_mem::tool_test {

struct Run {
  int code = -1;  ///< the exit status; -1 when the process died of a signal
  std::string out, err;
};

inline std::string quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

/// Runs a command line through the shell; stdout is captured through the
/// pipe, stderr through a file.
inline Run run_command(const std::string& command) {
  pto_mem::test::TempDir scratch;
  const std::string err_file = scratch.file("stderr");
  Run r;
  FILE* pipe = ::popen((command + " 2>" + quote(err_file)).c_str(), "r");
  REQUIRE(pipe != nullptr);
  std::array<char, 4096> buf{};
  std::size_t got = 0;
  while ((got = std::fread(buf.data(), 1, buf.size(), pipe)) > 0) r.out.append(buf.data(), got);
  const int status = ::pclose(pipe);
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.err = pto_mem::test::read_file(err_file);
  return r;
}

inline std::string tool_command(const std::vector<std::string>& args) {
  std::string cmd = quote(PTO_MEM_TOOL);
  for (const auto& a : args) cmd.append(1, ' ').append(quote(a));
  return cmd;
}

inline Run tool(const std::vector<std::string>& args) { return run_command(tool_command(args)); }

inline std::string example(const std::string& name) {
  return std::string(PTO_MEM_SOURCE_DIR) + "/examples/data/" + name;
}

inline bool has(const std::string& text, const std::string& what) {
  return text.find(what) != std::string::npos;
}

/// Starts the tool with `args` without waiting for it (for tests that send
/// it signals): standard output to /dev/null, standard error to `err_file`
/// (/dev/null by default). Returns its pid.
inline pid_t spawn_tool(std::vector<std::string> args, const std::string& err_file = "/dev/null") {
  args.insert(args.begin(), PTO_MEM_TOOL);
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, err_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                   0600);
  pid_t pid = 0;
  REQUIRE(posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ) == 0);
  posix_spawn_file_actions_destroy(&actions);
  return pid;
}

}  // namespace pto_mem::tool_test

#define SKIP_WITHOUT_TOOL()                                           \
  if (std::string(PTO_MEM_TOOL).empty()) {                            \
    MESSAGE("the pto-mem tool is not built (examples off): skipped"); \
    return;                                                           \
  }
