// A second lane for the exact search: one helper thread that runs one task
// at a time while the caller runs another, and returns when both are done.
// The part solver (part_solver.hpp) splits a probe's restarts between the
// two lanes; everything else stays on the caller's thread.
#pragma once

#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>

namespace pto_mem::exact {

class LanePool {
 public:
  LanePool()
      : helper_([this](std::stop_token st) {
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
        }) {}
  LanePool(const LanePool&) = delete;
  LanePool& operator=(const LanePool&) = delete;
  ~LanePool() {
    helper_.request_stop();
    {
      std::lock_guard lock(m_);
    }
    cv_.notify_all();
  }

  /// Runs `second` on the helper thread and `first` on this one; returns
  /// when both have returned.
  template <class F0, class F1>
  void both(F0&& first, F1&& second) {
    {
      std::lock_guard lock(m_);
      task_ = std::function<void()>(std::forward<F1>(second));
      done_ = false;
    }
    cv_.notify_all();
    first();
    std::unique_lock lock(m_);
    cv_.wait(lock, [&] { return done_; });
  }

 private:
  std::mutex m_;
  std::condition_variable_any cv_;
  std::function<void()> task_;
  bool done_ = true;
  std::jthread helper_;  // last: it starts once the members above exist
};

}  // namespace pto_mem::exact
