// Per-thread processor time.
#include "util/cpu_budget.hpp"

#include <ctime>

namespace ecocompute {

std::chrono::nanoseconds thread_cpu_time() noexcept {
  timespec now{};
  if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now) != 0) return std::chrono::nanoseconds{0};
  return std::chrono::seconds(now.tv_sec) + std::chrono::nanoseconds(now.tv_nsec);
}

CpuBudget::CpuBudget(std::chrono::milliseconds limit) : limit_(limit), start_(thread_cpu_time()) {}

std::chrono::nanoseconds CpuBudget::used() const noexcept { return thread_cpu_time() - start_; }

bool CpuBudget::exhausted() const noexcept { return used() > limit_; }

}  // namespace ecocompute
