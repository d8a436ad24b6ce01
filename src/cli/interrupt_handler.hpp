// How a measuring command stops on Ctrl-C (`measure`, and the measure step of a sweep job): the first
// SIGINT or SIGTERM sets the flag the experiment reads, so the run stops within one decode step and
// writes its finished trials; a second one quits at once.
#pragma once

#include <signal.h>

#include <atomic>

namespace ecocompute::cli {

/// Installs the handler for SIGINT and SIGTERM while it lives (clearing the flag first), and puts the
/// old handlers back. One at a time.
class InterruptHandler {
 public:
  InterruptHandler();
  ~InterruptHandler();
  InterruptHandler(const InterruptHandler&) = delete;
  InterruptHandler& operator=(const InterruptHandler&) = delete;

  /// The flag set by the first signal; stays set after the handler is gone, until the next one.
  static const std::atomic<bool>& interrupted() noexcept;

 private:
  struct sigaction previous_int_ {};
  struct sigaction previous_term_ {};
};

}  // namespace ecocompute::cli
