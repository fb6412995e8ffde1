// A second lane for the exact search: one helper thread that runs one task
// at a time while the caller goes on with its own work. The part solver
// (part_solver.hpp) hands it a probe's second lane once the probe has run
// long enough to pay for it; everything else stays on the caller's thread.
// The thread is started the first time a task is handed over, so a solve
// whose probes all end early never starts one.
#pragma once

#include <array>
#include <atomic>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <optional>
#include <thread>

namespace pto_mem::exact {

/// Tests only: microseconds each lane of a split probe sleeps before each
/// of its attempts, to make one lane much slower than the other (the answer
/// must not change). Zero in normal use.
inline std::array<std::atomic<unsigned>, 2> lane_test_delay_us{};

class LanePool {
 public:
  LanePool() = default;
  LanePool(const LanePool&) = delete;
  LanePool& operator=(const LanePool&) = delete;
  ~LanePool() {
    if (!helper_) return;
    helper_->request_stop();
    { std::lock_guard lock(m_); }
    cv_.notify_all();
  }

  /// Runs `task` on the helper thread (started now if it is not running);
  /// returns at once. At most one task at a time: wait() before the next.
  void start(std::function<void()> task) {
    {
      std::lock_guard lock(m_);
      task_ = std::move(task);
      done_ = false;
    }
    if (!helper_)
      helper_.emplace([this](std::stop_token st) { loop(st); });
    else
      cv_.notify_all();
  }

  /// Returns when the task handed over last (if any) has returned.
  void wait() {
    std::unique_lock lock(m_);
    cv_.wait(lock, [&] { return done_; });
  }

  /// True once the helper thread has been started.
  [[nodiscard]] bool started() const noexcept { return helper_.has_value(); }

 private:
  void loop(std::stop_token st) {
    std::unique_lock lock(m_);
    for (;;) {
      cv_.wait(lock, [&] { return task_ != nullptr || st.stop_requested(); });
      if (!task_) return;  // stopping
      auto task = std::move(task_);
      task_ = nullptr;
      lock.unlock();
      task();
      lock.lock();
      done_ = true;
      cv_.notify_all();
    }
  }

  std::mutex m_;
  std::condition_variable_any cv_;
  std::function<void()> task_;
  bool done_ = true;
  std::optional<std::jthread> helper_;  // last: it starts once the members above exist
};

}  // namespace pto_mem::exact
