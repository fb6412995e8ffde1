// pto-mem: the command-line front end of pto_mem. Each subcommand lives in
// its own header and registers itself with add_<name>_command(app), so that
// subcommands are added without touching each other.
#include <exception>
#include <iostream>
#include <string>

#include <CLI/CLI.hpp>

#include "compile_command.hpp"
#include "plan_command.hpp"
#include "stats_command.hpp"
#include "tool_support.hpp"
#include "validate_command.hpp"

int main(int argc, char** argv) {
  using namespace pto_mem::tool;
  CLI::App app{"pto-mem: static on-chip memory planning (plan, validate, inspect buffer placements)", "pto-mem"};
  app.set_version_flag("--version", std::string("pto-mem ") + PTO_MEM_VERSION);
  app.require_subcommand(1);

  add_plan_command(app);
  add_validate_command(app);
  add_stats_command(app);
  add_compile_command(app);  // PyPTO adapter: pto-mem compile FILE.pto

  try {
    app.parse(argc, argv);
  } catch (const CLI::RuntimeError& e) {  // a subcommand's exit_with()
    return e.get_exit_code();
  } catch (const CLI::ParseError& e) {  // --help, --version, and usage errors
    return app.exit(e) == 0 ? exit_success : exit_bad_input;
  } catch (const std::exception& e) {
    std::cerr << "pto-mem: error: " << e.what() << '\n';
    return exit_bad_input;
  }
  return exit_success;
}
