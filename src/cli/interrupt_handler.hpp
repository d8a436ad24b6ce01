// How a measuring command stops on Ctrl-C (`measure`, `measure-endpoint`, and the measure step of a
// sweep job): the first SIGINT or SIGTERM sets the flag the experiment reads, so the run stops within
// one decode step (or one streamed token) and writes its finished trials; a second one quits at once
// (a TERM after a TERM, or the same signal within 250 ms, is the first one delivered again).
#pragma once

#include <signal.h>

#include <atomic>

namespace ecocompute::cli {

/// Installs the handler for SIGINT and SIGTERM while it lives (clearing the flag first), and puts the
/// old handlers back unless a signal came (then the process is stopping and the handler stays). One at
/// a time.
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
