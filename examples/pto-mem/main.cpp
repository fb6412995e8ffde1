// The pto-mem command-line tool: each subcommand lives in its own header.
#include <CLI/CLI.hpp>

#include "compile_command.hpp"

int main(int argc, char** argv) {
  CLI::App app{"pto-mem: static on-chip memory planning"};
  app.require_subcommand(1);
  add_compile_command(app);
  CLI11_PARSE(app, argc, argv);
  return 0;
}
