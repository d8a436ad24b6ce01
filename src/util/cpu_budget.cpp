// Per-thread processor time.
#include "util/cpu_budget.hpp"

#include <ctime>

namespace ecocompute {
namespace {

// What the bound on the wall allows for: the two clocks are read from different counters, so the wall's
// time is taken 1 % long plus a microsecond before it may rule the CPU clock's reading out.
std::chrono::nanoseconds wall_bound(std::chrono::steady_clock::duration passed) {
  const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(passed);
  return ns + ns / 100 + std::chrono::microseconds(1);
}

}  // namespace

std::chrono::nanoseconds thread_cpu_time() noexcept {
  timespec now{};
  if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now) != 0) return std::chrono::nanoseconds{0};
  return std::chrono::seconds(now.tv_sec) + std::chrono::nanoseconds(now.tv_nsec);
}

CpuBudget::CpuBudget(std::chrono::milliseconds limit)
    : limit_(limit), start_(thread_cpu_time()), read_at_(std::chrono::steady_clock::now()) {}

std::chrono::nanoseconds CpuBudget::used() const noexcept { return thread_cpu_time() - start_; }

bool CpuBudget::exhausted() const noexcept {
  const auto now = std::chrono::steady_clock::now();
  if (used_when_read_ + wall_bound(now - read_at_) <= limit_) return false;  // cannot have spent it yet
  used_when_read_ = used();
  read_at_ = now;
  return used_when_read_ > limit_;
}

}  // namespace ecocompute
