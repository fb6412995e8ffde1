// What a search run may spend: nodes, wall time, and a stop request from a
// faster sibling (the portfolio's second worker). A run that hits any limit
// reports `aborted` and proves nothing.
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

/// Shared by every run of one solve: the deadline, the stop request and the
/// total node budget (0 = none).
struct Limits {
  Clock::time_point deadline = Clock::time_point::max();
  std::stop_token stop;
  std::uint64_t node_limit = 0;
  std::atomic<std::uint64_t>* nodes = nullptr;  ///< total nodes spent (shared between workers)

  [[nodiscard]] bool out_of_time() const {
    return stop.stop_requested() || Clock::now() >= deadline;
  }
  [[nodiscard]] std::uint64_t nodes_spent() const { return nodes ? nodes->load(std::memory_order_relaxed) : 0; }
  [[nodiscard]] bool out_of_nodes() const { return node_limit != 0 && nodes_spent() >= node_limit; }
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
    if ((used_ & 255u) == 0) {
      flush();
      if (limits_->out_of_nodes()) return stop(true);
      if ((used_ & 1023u) == 0 && limits_->out_of_time()) return stop(true);
    }
    return true;
  }
  /// Adds the unflushed nodes to the shared counter (call when the run ends).
  void flush() {
    if (limits_->nodes) limits_->nodes->fetch_add(used_ - flushed_, std::memory_order_relaxed);
    flushed_ = used_;
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
  std::uint64_t used_ = 0, flushed_ = 0;
  bool stopped_ = false, shared_ = false, cap_is_shared_ = false;
};

}  // namespace pto_mem::exact
