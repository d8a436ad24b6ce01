// Independent, deterministic jobs over indices 0…n−1 on as many threads as the machine has. Each job
// writes only its own slot, so the results do not depend on the threads or their order.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <thread>
#include <vector>

namespace ecocompute {

/// Calls job(i) once for every i in [0, n), the calling thread among the workers; returns when all are done.
template <class Job>
void parallel_for(std::size_t n, const Job& job) {
  std::atomic<std::size_t> next{0};
  const auto work = [&] {
    for (std::size_t i = next++; i < n; i = next++) job(i);
  };
  const std::size_t threads = std::min<std::size_t>(std::max(1u, std::thread::hardware_concurrency()), n);
  std::vector<std::jthread> helpers;
  for (std::size_t t = 1; t < threads; ++t) helpers.emplace_back(work);
  work();
}  // the helpers join here

}  // namespace ecocompute
