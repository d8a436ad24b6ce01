// The default thread count, from the core count and the load average.
#include "engine/thread_count.hpp"

#include <cstdlib>

#include <algorithm>
#include <cmath>
#include <thread>

namespace ecocompute::engine {

int default_thread_count(unsigned hardware_threads, double load_average) noexcept {
  const int cores = static_cast<int>(std::max(1U, hardware_threads));
  const double load = std::isfinite(load_average) ? std::max(0.0, load_average) : 0.0;
  const int busy = static_cast<int>(std::lround(load));
  return std::clamp(std::min(cores - 1, cores - busy), 1, cores);
}

int default_thread_count() noexcept {
  double load[1] = {0.0};
  if (::getloadavg(load, 1) != 1) load[0] = 0.0;  // unreadable: assume an idle machine
  return default_thread_count(std::thread::hardware_concurrency(), load[0]);
}

}  // namespace ecocompute::engine
