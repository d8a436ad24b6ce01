// CpuBudget: how much processor time one piece of work (a server request) may take, measured on the
// thread doing it (CLOCK_THREAD_CPUTIME_ID), so that time spent waiting for a core does not count.
//
//   const CpuBudget budget(std::chrono::milliseconds(2000));
//   for (...) { if (budget.exhausted()) return error; ... }
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
};

/// Processor time used by the calling thread so far.
[[nodiscard]] std::chrono::nanoseconds thread_cpu_time() noexcept;

}  // namespace ecocompute
