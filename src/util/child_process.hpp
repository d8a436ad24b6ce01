// ChildProcess: a program started with two extra pipes (a control pipe it reads and a reply pipe it
// writes) whose numbers it finds in its environment, in a process group of its own, read line by line
// with a time limit and stopped (the whole group) when the owner is done with it.
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "util/result.hpp"
#include "util/units.hpp"

namespace ecocompute {

/// The environment variables that carry the pipes' descriptor numbers to the program.
inline constexpr std::string_view kControlFdVariable = "ECOCOMPUTE_CONTROL_FD";  ///< the program reads requests here
inline constexpr std::string_view kReplyFdVariable = "ECOCOMPUTE_REPLY_FD";      ///< the program writes replies here

/// The longest line either side may send (newline excluded); a longer one is an error, not a hang.
inline constexpr std::size_t kMaxProtocolLine = 4096;

/// How a program ended.
struct ExitStatus {
  std::optional<int> code;    ///< exit(2) status, when it exited
  std::optional<int> signal;  ///< the signal that ended it, when one did
  /// Returns "exit status 3", "killed by signal 9 (Killed)" …
  [[nodiscard]] std::string describe() const;
  /// Returns the status a shell would report: the code, or 128 + signal.
  [[nodiscard]] int shell_status() const;
};

class ChildProcess {
 public:
  struct Options {
    /// Variables added to (or replacing those of) the tool's environment.
    std::vector<std::pair<std::string, std::string>> environment;
    /// A process group of its own: a terminal's Ctrl-C then reaches only the tool, which stops the
    /// group. Without it the program shares the tool's group and gets the terminal's signals itself.
    bool own_process_group = true;
    bool stdin_null = true;  ///< stdin from /dev/null (else inherited)
    /// Where stdout and stderr go, appended (created if missing); empty: inherited.
    std::filesystem::path output_log;
  };

  /// Starts `argv` (argv[0] looked up on PATH) with the two pipes; stdout and stderr are inherited
  /// unless Options::output_log names a file.
  /// The program is killed if the tool dies first (PR_SET_PDEATHSIG), so none outlives a run.
  /// Errors: an empty argv (invalid_argument); a program that cannot be started (not_found); an
  /// output log that cannot be opened (io).
  [[nodiscard]] static Result<ChildProcess> start(const std::vector<std::string>& argv, const Options& options);

  ChildProcess(ChildProcess&& other) noexcept;
  ChildProcess& operator=(ChildProcess&& other) noexcept;
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;
  /// Stops the program's group if it still runs (stop(Seconds{2})) and reaps it.
  ~ChildProcess();

  /// Reads one line from the reply pipe, without its newline. Errors: nothing within `timeout`
  /// (unavailable, "no reply within …"); the program closed the pipe or exited (engine, with its exit
  /// status when known); a line over kMaxProtocolLine (invalid_input); `cancelled()` true (cancelled,
  /// asked every 50 ms). An empty function: never cancelled.
  [[nodiscard]] Result<std::string> read_line(Seconds timeout, const std::function<bool()>& cancelled = {});
  /// Writes `line` and a newline to the control pipe. Error: the program no longer reads it (engine).
  [[nodiscard]] Result<void> write_line(std::string_view line);

  /// Waits up to `grace` for the program to exit by itself, then sends SIGTERM to its group, waits
  /// up to `grace` again, then SIGKILL; reaps it and returns how it ended. Idempotent.
  ExitStatus stop(Seconds grace);
  /// Waits for the program to exit (no time limit, no signal) and returns how it ended.
  ExitStatus wait();
  /// Returns how the program ended if it has, without waiting.
  [[nodiscard]] std::optional<ExitStatus> poll_exit();

  [[nodiscard]] pid_t pid() const noexcept { return pid_; }
  [[nodiscard]] bool running() const noexcept { return pid_ > 0 && !exited_; }

 private:
  ChildProcess(pid_t pid, int control_fd, int reply_fd, bool own_group)
      : pid_(pid), control_fd_(control_fd), reply_fd_(reply_fd), own_group_(own_group) {}
  /// Returns whether the program has exited (reaping nothing), waiting up to `limit`.
  bool wait_exited(Seconds limit);
  void signal_group(int signal) const noexcept;
  void close_pipes() noexcept;
  ExitStatus reaped(int status);

  pid_t pid_ = -1;
  int control_fd_ = -1;  ///< our write end
  int reply_fd_ = -1;    ///< our read end
  std::string buffer_;   ///< bytes read past the last returned line
  bool own_group_ = true;
  bool exited_ = false;
  ExitStatus status_;
};

}  // namespace ecocompute
