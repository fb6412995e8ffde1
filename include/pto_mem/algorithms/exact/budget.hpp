// What a search run may spend: nodes, wall time, and a caller's stop
// request; and, when several workers search side by side, the horizon past
// which a worker stops. A run that hits any limit reports `aborted` and
// proves nothing.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
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

/// A worker's (or a probe lane's) node count, a function of the input alone.
/// A lane of a probe (part_solver.hpp) also stops as soon as it can no
/// longer end the probe first: when its next node's *clock* (the lane's
/// start plus the nodes it spent) is later than the clock at which the
/// other lane already ended the probe.
struct NodeMeter {
  std::uint64_t own = 0;  ///< nodes searched
  /// Of those, the nodes of the busier lane of each probe (with one lane,
  /// all of them): the length of the work if both lanes had a core each.
  std::uint64_t critical = 0;
  bool halted = false;  ///< told to stop
  /// A probe's lanes: the least key 2 * clock + lane of an attempt that ended
  /// the probe (UINT64_MAX while none has); this lane's clock starts at `start`.
  const std::atomic<std::uint64_t>* best_key = nullptr;
  std::uint64_t start = 0;
  std::uint32_t lane = 0;

  /// True when the next node this lane could search is too late to win.
  [[nodiscard]] bool beaten() const noexcept { return too_late(own + 1); }
  /// A step was not started because the node budget left could not pay for
  /// it (a canonical dive, PartSolver::dive): the budget counts as spent.
  bool budget_short = false;

  /// Counts one node (a dive counts one per 1024 heap steps it takes).
  void count() noexcept {
    ++own;
    ++critical;
    if (too_late(own)) halted = true;
  }

 private:
  /// Whether this lane's node number `node` (its clock: start + node) comes
  /// after the clock at which the other lane ended the probe.
  [[nodiscard]] bool too_late(std::uint64_t node) const noexcept {
    return best_key && 2 * (start + node) + lane > best_key->load(std::memory_order_relaxed);
  }
};

/// Shared by every run of one worker: the deadline, the caller's stop
/// request, the worker's node budget (0 = none).
struct Limits {
  Clock::time_point deadline = Clock::time_point::max();
  std::stop_token stop;
  std::uint64_t node_limit = 0;
  NodeMeter* meter = nullptr;  ///< without one, nodes are not counted across runs

  /// A reason to stop that is not the node count: the caller, the clock, or
  /// (a probe's lane) the other lane ended the probe earlier on the clock.
  [[nodiscard]] bool out_of_time() const {
    return (meter && meter->halted) || stop.stop_requested() || Clock::now() >= deadline;
  }
  [[nodiscard]] std::uint64_t nodes_spent() const noexcept { return meter ? meter->own : 0; }
  [[nodiscard]] bool out_of_nodes() const noexcept {
    return node_limit != 0 && (nodes_spent() >= node_limit || (meter && meter->budget_short));
  }
  /// The nodes the budget has left (UINT64_MAX without a node limit).
  [[nodiscard]] std::uint64_t nodes_left() const noexcept {
    if (node_limit == 0) return std::numeric_limits<std::uint64_t>::max();
    return nodes_spent() >= node_limit ? 0 : node_limit - nodes_spent();
  }
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
      m->count();
      if (m->halted) return stop(true);
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
