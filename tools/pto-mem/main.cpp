// pto-mem: the command-line front end of pto_mem. Each subcommand lives in
// its own header and registers itself with add_<name>_command(app), so that
// subcommands are added without touching each other.
#include <csignal>
#include <exception>
#include <iostream>
#include <string>

#include <signal.h>
#include <unistd.h>

#include <CLI/CLI.hpp>

#include "compile_command.hpp"
#include "plan_command.hpp"
#include "search_session.hpp"
#include "stats_command.hpp"
#include "tool_support.hpp"
#include "validate_command.hpp"

namespace {

/// The first SIGINT or SIGTERM during a search only stops the search: the
/// tool then writes the best placement found (search_session.hpp). Otherwise
/// SIGINT, SIGTERM and SIGHUP end the tool the same way: the temporaries of
/// an output set being staged are removed (no output replaced), or -- when
/// the signal arrives while the set is being renamed into place, where it is
/// held off -- the set is finished first; then exit 128 + the signal number.
extern "C" void on_termination_signal(int sig) {
  if (pto_mem::tool::signal_stops_search(sig)) return;
  pto_mem::remove_staged_outputs();
  ::_exit(128 + sig);
}

void install_signal_handlers() {
  struct sigaction sa {};
  sa.sa_handler = on_termination_signal;
  sigemptyset(&sa.sa_mask);
  for (int s : {SIGINT, SIGTERM, SIGHUP}) sigaddset(&sa.sa_mask, s);  // one handler at a time
  for (int s : {SIGINT, SIGTERM, SIGHUP}) ::sigaction(s, &sa, nullptr);
}

}  // namespace

int main(int argc, char** argv) {
  using namespace pto_mem::tool;
  install_signal_handlers();
  CLI::App app{"pto-mem: static on-chip memory planning (plan, validate, inspect buffer placements)",
               "pto-mem"};
  app.set_version_flag("--version", std::string("pto-mem ") + PTO_MEM_VERSION);
  app.require_subcommand(1);

  add_plan_command(app);
  add_validate_command(app);
  add_stats_command(app);
  add_compile_command(app);  // PyPTO adapter: pto-mem compile FILE.pto

  // CLI11 would call an unknown subcommand an unexpected argument; name it.
  if (argc > 1 && argv[1][0] != '-') {
    std::string names;
    bool known = false;
    for (const auto* sub : app.get_subcommands([](const CLI::App*) { return true; })) {
      names += (names.empty() ? "" : ", ") + sub->get_name();
      known = known || sub->check_name(argv[1]);
    }
    if (!known) {
      std::cerr << "pto-mem: error: unknown subcommand '" << argv[1] << "'; the subcommands are " << names
                << " (see pto-mem --help)\n";
      return exit_bad_input;
    }
  }
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
