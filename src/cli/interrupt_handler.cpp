// The signal handler behind InterruptHandler.
#include "cli/interrupt_handler.hpp"

#include <time.h>
#include <unistd.h>

#include <cstdint>

#include "cli/exit_code.hpp"

namespace ecocompute::cli {
namespace {

std::atomic<bool> interrupted_flag{false};
std::atomic<int> first_signal{0};
std::atomic<std::int64_t> first_signal_ns{0};

// `timeout` and supervisors that signal a whole process group deliver one stop request twice, the
// same signal microseconds apart (or, when the handler ran between the two, later); a person's second
// Ctrl-C comes much later.
constexpr std::int64_t kSameRequestNs = 250'000'000;

std::int64_t monotonic_ns() {
  timespec now{};
  ::clock_gettime(CLOCK_MONOTONIC, &now);
  return static_cast<std::int64_t>(now.tv_sec) * 1'000'000'000 + now.tv_nsec;
}

// The first Ctrl-C is acknowledged at once and stops the run within one decode step (the runner and
// the engine read the flag); the finished trials are written. A second one quits at once, unless it
// is the same signal within 250 ms (one request delivered twice) or a TERM after a TERM: `timeout` and
// supervisors send TERM, to the process and to its group, and escalate with KILL, so a repeated TERM
// is never a person asking to quit (on the H200, `timeout`'s second TERM once came after the handler
// had run for the first, and a sweep lost its finished trials). Only async-signal-safe calls here:
// clock_gettime(2), write(2) and _exit(2); the handler masks both signals, so calls never overlap.
extern "C" void on_interrupt(int signal) {
  const std::int64_t now = monotonic_ns();
  if (interrupted_flag.load()) {
    const bool same_signal = signal == first_signal.load();
    if (same_signal && (signal == SIGTERM || now - first_signal_ns.load() < kSameRequestNs)) return;
    static constexpr char quit[] = "\necocompute: interrupted again: quitting now, nothing more is written\n";
    (void)!::write(STDERR_FILENO, quit, sizeof quit - 1);
    ::_exit(exit_interrupted);
  }
  first_signal.store(signal);
  first_signal_ns.store(now);
  interrupted_flag.store(true);
  static constexpr char ack[] =
      "\necocompute: interrupted: stopping now (the unfinished window is discarded); the finished trials are "
      "written. Ctrl-C again quits at once.\n";
  (void)!::write(STDERR_FILENO, ack, sizeof ack - 1);
}

}  // namespace

InterruptHandler::InterruptHandler() {
  interrupted_flag.store(false);
  struct sigaction action {};
  action.sa_handler = on_interrupt;
  sigemptyset(&action.sa_mask);
  sigaddset(&action.sa_mask, SIGINT);
  sigaddset(&action.sa_mask, SIGTERM);
  sigaction(SIGINT, &action, &previous_int_);
  sigaction(SIGTERM, &action, &previous_term_);
}

InterruptHandler::~InterruptHandler() {
  // After a stop request the process is on its way out: a copy of that request still in flight (the
  // group's TERM from `timeout`) must not meet the default action and end it by the signal before it
  // returns its exit status, so the handler stays.
  if (interrupted_flag.load()) return;
  sigaction(SIGINT, &previous_int_, nullptr);
  sigaction(SIGTERM, &previous_term_, nullptr);
}

const std::atomic<bool>& InterruptHandler::interrupted() noexcept { return interrupted_flag; }

}  // namespace ecocompute::cli
