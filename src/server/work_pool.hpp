// WorkPool: a few threads, at a lower scheduling priority, for the routes whose work grows with the
// request (optimize grids, grading uploads), with a bounded queue. The event loop's threads only read
// and write sockets and answer the cheap routes, so /healthz and estimates keep answering while the
// pool is busy; a request that finds the queue full is answered 503 at once instead of waiting.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace ecocompute::server {

struct WorkPoolOptions {
  int threads = 2;               ///< threads running expensive requests
  std::size_t max_queued = 16;   ///< requests waiting for a thread; more are refused
  int nice_increment = 10;       ///< added to each thread's nice value (Linux: per thread), so cheap requests win a core
};

class WorkPool {
 public:
  explicit WorkPool(WorkPoolOptions options);
  /// Drops the jobs still queued and waits for the running ones.
  ~WorkPool();
  WorkPool(const WorkPool&) = delete;
  WorkPool& operator=(const WorkPool&) = delete;

  /// Queues `job`; false (and `job` dropped) when max_queued jobs are already waiting or the pool stops.
  [[nodiscard]] bool try_submit(std::function<void()> job);

  /// Jobs queued or running now.
  [[nodiscard]] std::size_t load() const;
  [[nodiscard]] const WorkPoolOptions& options() const noexcept { return options_; }

 private:
  void run();

  WorkPoolOptions options_;
  mutable std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<std::function<void()>> queue_;
  std::size_t running_ = 0;
  bool stopping_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace ecocompute::server
