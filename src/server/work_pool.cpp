// The expensive routes' threads.
#include "server/work_pool.hpp"

#include <pthread.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <exception>

#include "util/log.hpp"

namespace ecocompute::server {

WorkPool::WorkPool(WorkPoolOptions options) : options_(options) {
  // The pool's threads take no signal: they start with every signal blocked (a new thread inherits the
  // mask), so SIGTERM and SIGINT still reach the thread serve() waits in, whenever the pool was made.
  sigset_t all;
  sigset_t previous;
  sigfillset(&all);
  pthread_sigmask(SIG_BLOCK, &all, &previous);
  const int count = std::max(1, options_.threads);
  for (int i = 0; i < count; ++i) threads_.emplace_back([this] { run(); });
  pthread_sigmask(SIG_SETMASK, &previous, nullptr);
}

WorkPool::~WorkPool() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
    queue_.clear();
  }
  ready_.notify_all();
  for (std::thread& t : threads_) t.join();
}

bool WorkPool::try_submit(std::function<void()> job) {
  {
    std::lock_guard lock(mutex_);
    if (stopping_ || queue_.size() >= options_.max_queued) return false;
    queue_.push_back(std::move(job));
  }
  ready_.notify_one();
  return true;
}

std::size_t WorkPool::load() const {
  std::lock_guard lock(mutex_);
  return queue_.size() + running_;
}

void WorkPool::run() {
  // Linux gives each thread its own nice value: lowering this one leaves the event loop's threads
  // first in line for a core. Failing to lower it only loses that preference.
  if (options_.nice_increment > 0) {
    const auto tid = static_cast<id_t>(syscall(SYS_gettid));
    const int current = getpriority(PRIO_PROCESS, tid);
    (void)setpriority(PRIO_PROCESS, tid, std::min(19, current + options_.nice_increment));
  }
  for (;;) {
    std::function<void()> job;
    {
      std::unique_lock lock(mutex_);
      ready_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
      if (stopping_) return;
      job = std::move(queue_.front());
      queue_.pop_front();
      ++running_;
    }
    try {
      job();
    } catch (const std::exception& e) {
      log::error("a queued request failed: {}", e.what());
    } catch (...) {
      log::error("a queued request failed");
    }
    std::lock_guard lock(mutex_);
    --running_;
  }
}

}  // namespace ecocompute::server
