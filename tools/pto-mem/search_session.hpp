// A long search as a person at a terminal expects it: one updating progress
// line on standard error once the search has run for a second, and a first
// Ctrl-C (SIGINT) or SIGTERM that stops the search instead of the tool, so
// that the best placement found so far is still written. A second signal,
// or any signal outside a search, ends the tool at once with no output
// replaced (main.cpp's handler removes the staged temporaries).
//
//   SearchSession session(show_progress);
//   options.stop = session.token();
//   options.progress = session.callback();
//   PlanResult r = plan(problem, options);   // a watcher thread draws and polls
//   session.explaining();                     // optional: explain() runs next
//   session.finish();                         // clears the line
//   ... write the outputs ...
//   session.end_like_the_signal();            // if a signal stopped the search
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <csignal>
#include <cstdio>
#include <iostream>
#include <mutex>
#include <optional>
#include <stop_token>
#include <string>
#include <thread>

#include <signal.h>
#include <unistd.h>

#include "pto_mem/core/search_control.hpp"

namespace pto_mem::tool {

/// Set while a search may be stopped gracefully; read by the signal handler.
inline std::atomic<bool> search_accepts_stop{false};
/// The signal that asked the running search to stop (0: none yet).
inline std::atomic<int> search_stop_signal{0};
static_assert(std::atomic<bool>::is_always_lock_free && std::atomic<int>::is_always_lock_free,
              "the signal handler needs lock-free atomics");

/// Called by the signal handler: true when the signal only asks the running
/// search to stop (the first SIGINT or SIGTERM during a search).
inline bool signal_stops_search(int sig) noexcept {
  if ((sig != SIGINT && sig != SIGTERM) || !search_accepts_stop.load()) return false;
  int none = 0;
  return search_stop_signal.compare_exchange_strong(none, sig);
}

/// "1,047,552".
inline std::string grouped(Addr v) {
  std::string digits = std::to_string(v), out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

/// The progress line, without a line end.
inline std::string progress_line(const std::optional<SearchProgress>& p, double elapsed_s) {
  char time[32];
  std::snprintf(time, sizeof time, "%.1f s", elapsed_s);
  if (!p || p->best_peak == 0) {
    std::string line = "pto-mem: searching, no placement yet";
    if (p && p->proved_bound > 0) line += " | bound " + grouped(p->proved_bound);
    return line + " | " + time;
  }
  char gap[32];
  std::snprintf(gap, sizeof gap, "%.3f %%", p->gap() * 100);
  return "pto-mem: best peak " + grouped(p->best_peak) + " (penalty " + std::to_string(p->best_penalty) +
         ") | bound " + grouped(p->proved_bound) + " | gap " + gap + " | " + time;
}

/// The progress line while explain() runs, without a line end.
inline std::string explaining_line(double elapsed_s) {
  char time[32];
  std::snprintf(time, sizeof time, "%.1f s", elapsed_s);
  return std::string("pto-mem: explaining why it does not fit | ") + time;
}

class SearchSession {
 public:
  /// `show`: draw the progress line; `terminal`: stderr is a terminal (one
  /// line redrawn in place) rather than a file or pipe (a line a second).
  SearchSession(bool show, bool terminal) : show_(show), terminal_(terminal), start_(Clock::now()) {
    search_stop_signal.store(0);
    search_accepts_stop.store(true);
    watcher_ = std::jthread([this](std::stop_token quit) { watch(quit); });
  }
  SearchSession(const SearchSession&) = delete;
  SearchSession& operator=(const SearchSession&) = delete;
  ~SearchSession() { finish(); }

  [[nodiscard]] std::stop_token token() const { return stop_.get_token(); }
  [[nodiscard]] ProgressCallback callback() {
    return [this](const SearchProgress& p) {
      const std::lock_guard lock(mutex_);
      last_ = p;
    };
  }

  /// From here on the tool explains why nothing fits (pto_mem::explain,
  /// under the same stop token): the progress line and the interruption
  /// message say so.
  void explaining() { explaining_.store(true); }

  /// Ends the watcher and clears the progress line. From here on a signal
  /// ends the tool at once (the outputs are being written).
  void finish() {
    if (!watcher_.joinable()) return;
    search_accepts_stop.store(false);
    watcher_.request_stop();
    wake_.notify_all();
    watcher_.join();
    if (drawn_ && terminal_) std::cerr << "\r\033[K" << std::flush;
  }

  /// The signal that stopped the search, or 0.
  [[nodiscard]] static int stop_signal() noexcept { return search_stop_signal.load(); }

  /// After the outputs are written: when a signal stopped the search, end
  /// the tool by that same signal (a shell then sees 130 for SIGINT, 143 for
  /// SIGTERM, and a script running the tool stops as the user asked).
  static void end_like_the_signal() {
    const int sig = stop_signal();
    if (sig == 0) return;
    std::cout.flush();
    std::cerr.flush();
    std::fflush(nullptr);
    std::signal(sig, SIG_DFL);
    std::raise(sig);
    ::_exit(128 + sig);  // not reached unless the signal is blocked
  }

 private:
  using Clock = std::chrono::steady_clock;

  void watch(std::stop_token quit) {
    bool told = false;
    auto last_drawn = start_ - std::chrono::seconds(10);
    std::unique_lock lock(mutex_);
    while (!quit.stop_requested()) {
      wake_.wait_for(lock, std::chrono::milliseconds(50));
      if (quit.stop_requested()) break;
      if (!told && search_stop_signal.load() != 0) {
        told = true;
        stop_.request_stop();
        if (drawn_ && terminal_) std::cerr << "\r\033[K";
        if (explaining_.load())
          std::cerr << "pto-mem: interrupted: stopping the explanation and writing what it found "
                       "(interrupt again to abort without writing)\n";
        else
          std::cerr << "pto-mem: interrupted: stopping the search and writing the best placement found "
                       "(interrupt again to abort without writing)\n";
        std::cerr << std::flush;
        drawn_ = false;
      }
      const auto now = Clock::now();
      const double elapsed = std::chrono::duration<double>(now - start_).count();
      if (!show_ || elapsed < 1.0) continue;
      if (now - last_drawn < (terminal_ ? std::chrono::milliseconds(250) : std::chrono::milliseconds(1000)))
        continue;
      last_drawn = now;
      const std::string line = explaining_.load() ? explaining_line(elapsed) : progress_line(last_, elapsed);
      if (terminal_)
        std::cerr << '\r' << line << "\033[K" << std::flush;
      else
        std::cerr << line << '\n' << std::flush;
      drawn_ = true;
    }
  }

  bool show_, terminal_;
  Clock::time_point start_;
  std::stop_source stop_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::optional<SearchProgress> last_;
  bool drawn_ = false;
  std::atomic<bool> explaining_{false};
  std::jthread watcher_;  // last: it starts after, and is joined before, everything it reads
};

}  // namespace pto_mem::tool
