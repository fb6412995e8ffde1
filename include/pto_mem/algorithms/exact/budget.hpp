// What a search run may spend: nodes, wall time, and a caller's stop
// request; and, when several workers search together, the meeting points
// where they exchange what they know. A run that hits any limit reports
// `aborted` and proves nothing.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <limits>
#include <stop_token>

namespace pto_mem::exact {

using Clock = std::chrono::steady_clock;

/// The outcome of one search run.
enum class Outcome {
  found,       ///< a placement within the bounds (kept by the search)
  infeasible,  ///< the run completed: no placement within the bounds exists
  aborted,     ///< a limit cut the run short: nothing is proved
};

/// One worker's node count. Workers of one solve meet whenever their own
/// count reaches a multiple of the epoch length -- a point fixed by the
/// worker's own, deterministic work, never by the clock. Everything one
/// worker learns from the others (their node counts, incumbents, bounds,
/// proofs, the decision to stop) is written at a meeting while every worker
/// waits there, so what a worker does is a function of the input alone.
struct NodeMeter {
  std::uint64_t own = 0;     ///< nodes this worker searched
  std::uint64_t others = 0;  ///< the other workers' nodes, as of the last meeting
  bool halted = false;       ///< a meeting decided that the solve is over
  /// A meeting found the part this worker is searching settled by what the
  /// workers know together: the run in progress stops (the worker clears it).
  bool yield = false;
  std::uint64_t next_meeting = std::numeric_limits<std::uint64_t>::max();
  std::uint64_t epoch = 0;
  std::function<void()> meet;  ///< waits at the meeting (set with epoch > 0)

  /// Counts one node; meets the others when the count says so.
  void count() {
    if (++own == next_meeting) {
      next_meeting += epoch;
      meet();
    }
  }
};

/// Shared by every run of one worker: the deadline, the caller's stop
/// request, the total node budget (0 = none, counted over all workers).
struct Limits {
  Clock::time_point deadline = Clock::time_point::max();
  std::stop_token stop;
  std::uint64_t node_limit = 0;
  NodeMeter* meter = nullptr;  ///< without one, nodes are not counted across runs

  /// A reason to stop that is not the node count: the caller, the clock, or
  /// a meeting that ended the solve.
  [[nodiscard]] bool out_of_time() const {
    return (meter && meter->halted) || stop.stop_requested() || Clock::now() >= deadline;
  }
  [[nodiscard]] std::uint64_t nodes_spent() const noexcept { return meter ? meter->own + meter->others : 0; }
  [[nodiscard]] bool out_of_nodes() const noexcept { return node_limit != 0 && nodes_spent() >= node_limit; }
  [[nodiscard]] bool exhausted() const { return out_of_nodes() || out_of_time(); }
};

/// One run's meter: its own node cap on top of the shared limits.
class Budget {
 public:
  Budget(const Limits& limits, std::uint64_t run_cap)
      : limits_(&limits), cap_(run_cap == 0 ? std::numeric_limits<std::uint64_t>::max() : run_cap) {
    // What is left of the total node budget caps this run too (exactly, so
    // that tiny budgets mean what they say).
    if (limits.node_limit != 0) {
      const std::uint64_t spent = limits.nodes_spent();
      const std::uint64_t left = spent >= limits.node_limit ? 0 : limits.node_limit - spent;
      if (left <= cap_) {
        cap_ = left;
        cap_is_shared_ = true;
      }
    }
  }

  /// Spends one node; false when the run must stop.
  [[nodiscard]] bool spend() {
    if (stopped_) return false;
    ++used_;
    if (used_ > cap_) {
      --used_;  // not spent: the node is not searched
      return stop(cap_is_shared_);
    }
    if (NodeMeter* m = limits_->meter) {
      const std::uint64_t before = m->others;
      m->count();
      if (m->halted || m->yield) return stop(true);
      // A meeting told us what the others spent: the node budget may be gone.
      if (m->others != before && limits_->out_of_nodes()) return stop(true);
    }
    if ((used_ & 1023u) == 0 && limits_->out_of_time()) return stop(true);
    return true;
  }
  [[nodiscard]] std::uint64_t used() const noexcept { return used_; }
  /// True when a shared limit (time, stop, total nodes) ended the run, not its own cap.
  [[nodiscard]] bool shared_limit_hit() const noexcept { return shared_; }

 private:
  bool stop(bool shared) {
    stopped_ = true;
    shared_ = shared;
    return false;
  }
  const Limits* limits_;
  std::uint64_t cap_;
  std::uint64_t used_ = 0;
  bool stopped_ = false, shared_ = false, cap_is_shared_ = false;
};

}  // namespace pto_mem::exact
