// CpuBudget: how much processor time one piece of work (a server request) may take, measured on the
// thread doing it (CLOCK_THREAD_CPUTIME_ID), so that time spent waiting for a core does not count.
//
//   const CpuBudget budget(std::chrono::milliseconds(2000));
//   for (...) { if (budget.exhausted()) return error; ... }
//
// The thread's CPU clock is a system call (no vDSO), the monotonic clock is not: a thread cannot use more
// processor time than passes on the wall, so exhausted() reads the CPU clock only once the time passed
// since its last reading could have spent what was left of the budget.
#pragma once

#include <chrono>

namespace ecocompute {

class CpuBudget {
 public:
  /// Starts counting now, on the calling thread; exhausted() must be called on that thread.
  explicit CpuBudget(std::chrono::milliseconds limit);

  /// Whether the calling thread has used more than the limit since construction.
  [[nodiscard]] bool exhausted() const noexcept;
  [[nodiscard]] std::chrono::milliseconds limit() const noexcept { return limit_; }
  /// Processor time the calling thread has used since construction.
  [[nodiscard]] std::chrono::nanoseconds used() const noexcept;

 private:
  std::chrono::milliseconds limit_;
  std::chrono::nanoseconds start_;
  // The last reading of the CPU clock (as used()) and when on the monotonic clock it was taken.
  mutable std::chrono::nanoseconds used_when_read_{0};
  mutable std::chrono::steady_clock::time_point read_at_;
};

/// Processor time used by the calling thread so far.
[[nodiscard]] std::chrono::nanoseconds thread_cpu_time() noexcept;

}  // namespace ecocompute
