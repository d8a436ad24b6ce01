// Starting a program with a control pipe and a reply pipe, reading its lines with a time limit, and
// stopping its whole process group.
#include "util/child_process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <thread>

#include <fmt/format.h>

extern char** environ;

namespace ecocompute {
namespace {

using SteadyClock = std::chrono::steady_clock;

constexpr int kPollMs = 50;

void close_fd(int& fd) noexcept {
  if (fd >= 0) ::close(fd);
  fd = -1;
}

// The environment the program gets: the tool's, with `extra` added or replacing same-named entries.
std::vector<std::string> child_environment(const std::vector<std::pair<std::string, std::string>>& extra) {
  std::vector<std::string> out;
  for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
    const std::string_view text(*entry);
    bool replaced = false;
    for (const auto& [name, value] : extra) {
      if (text.size() > name.size() && text.substr(0, name.size()) == name && text[name.size()] == '=') replaced = true;
    }
    if (!replaced) out.emplace_back(text);
  }
  for (const auto& [name, value] : extra) out.push_back(name + "=" + value);
  return out;
}

std::vector<char*> pointers(std::vector<std::string>& strings) {
  std::vector<char*> out;
  out.reserve(strings.size() + 1);
  for (std::string& s : strings) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

}  // namespace

std::string ExitStatus::describe() const {
  if (code) return fmt::format("exit status {}", *code);
  if (signal) return fmt::format("killed by signal {} ({})", *signal, ::strsignal(*signal));
  return "still running";
}

int ExitStatus::shell_status() const {
  if (code) return *code;
  if (signal) return 128 + *signal;
  return 1;
}

Result<ChildProcess> ChildProcess::start(const std::vector<std::string>& argv, const Options& options) {
  if (argv.empty() || argv.front().empty()) return unexpected(ErrorCode::invalid_argument, "no program to start");
  int log_fd = -1;
  if (!options.output_log.empty()) {
    log_fd = ::open(options.output_log.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (log_fd < 0) {
      return unexpected(ErrorCode::io, fmt::format("cannot open {}: {}", options.output_log.string(), std::strerror(errno)));
    }
  }
  int control[2] = {-1, -1};
  int reply[2] = {-1, -1};
  int exec_error[2] = {-1, -1};  // carries exec's errno; closed by a successful exec
  if (::pipe2(control, O_CLOEXEC) != 0 || ::pipe2(reply, O_CLOEXEC) != 0 || ::pipe2(exec_error, O_CLOEXEC) != 0) {
    const int error = errno;
    for (int* fd : {&control[0], &control[1], &reply[0], &reply[1], &exec_error[0], &exec_error[1], &log_fd}) close_fd(*fd);
    return unexpected(ErrorCode::io, std::string("cannot create the program's pipes: ") + std::strerror(error));
  }
  // Everything the child needs is made before fork: between fork and exec only async-signal-safe calls.
  auto extra = options.environment;
  extra.emplace_back(kControlFdVariable, std::to_string(control[0]));
  extra.emplace_back(kReplyFdVariable, std::to_string(reply[1]));
  std::vector<std::string> env = child_environment(extra);
  std::vector<std::string> args = argv;
  std::vector<char*> env_pointers = pointers(env);
  std::vector<char*> arg_pointers = pointers(args);
  const int dev_null = options.stdin_null ? ::open("/dev/null", O_RDONLY | O_CLOEXEC) : -1;
  const pid_t parent = ::getpid();

  const pid_t pid = ::fork();
  if (pid == 0) {
    if (options.own_process_group) ::setpgid(0, 0);
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(127);  // the tool died before prctl
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    ::signal(SIGINT, SIG_DFL);  // the tool may be ignoring them while the program runs
    ::signal(SIGQUIT, SIG_DFL);
    ::signal(SIGPIPE, SIG_DFL);
    if (dev_null >= 0) ::dup2(dev_null, STDIN_FILENO);
    if (log_fd >= 0) {
      ::dup2(log_fd, STDOUT_FILENO);
      ::dup2(log_fd, STDERR_FILENO);
    }
    ::fcntl(control[0], F_SETFD, 0);  // the two ends the program keeps across exec
    ::fcntl(reply[1], F_SETFD, 0);
    ::execvpe(arg_pointers[0], arg_pointers.data(), env_pointers.data());
    const int error = errno;
    (void)!::write(exec_error[1], &error, sizeof error);
    ::_exit(127);
  }
  const int fork_error = errno;
  if (dev_null >= 0) ::close(dev_null);
  close_fd(log_fd);
  close_fd(control[0]);
  close_fd(reply[1]);
  close_fd(exec_error[1]);
  if (pid < 0) {
    for (int* fd : {&control[1], &reply[0], &exec_error[0]}) close_fd(*fd);
    return unexpected(ErrorCode::io, std::string("cannot start a process: ") + std::strerror(fork_error));
  }
  if (options.own_process_group) ::setpgid(pid, pid);  // also here: no race with the child's own call
  ChildProcess child(pid, control[1], reply[0], options.own_process_group);
  int error = 0;
  ssize_t got = 0;
  do {
    got = ::read(exec_error[0], &error, sizeof error);
  } while (got < 0 && errno == EINTR);
  close_fd(exec_error[0]);
  if (got == static_cast<ssize_t>(sizeof error)) {
    child.wait();
    return unexpected(ErrorCode::not_found,
                      fmt::format("cannot run '{}': {}", argv.front(), std::strerror(error)));
  }
  return child;
}

ChildProcess::ChildProcess(ChildProcess&& other) noexcept
    : pid_(other.pid_),
      control_fd_(other.control_fd_),
      reply_fd_(other.reply_fd_),
      buffer_(std::move(other.buffer_)),
      own_group_(other.own_group_),
      exited_(other.exited_),
      status_(other.status_) {
  other.pid_ = -1;
  other.control_fd_ = -1;
  other.reply_fd_ = -1;
}

ChildProcess& ChildProcess::operator=(ChildProcess&& other) noexcept {
  if (this != &other) {
    if (running()) stop(Seconds{2.0});
    close_pipes();
    pid_ = other.pid_;
    control_fd_ = other.control_fd_;
    reply_fd_ = other.reply_fd_;
    buffer_ = std::move(other.buffer_);
    own_group_ = other.own_group_;
    exited_ = other.exited_;
    status_ = other.status_;
    other.pid_ = -1;
    other.control_fd_ = -1;
    other.reply_fd_ = -1;
  }
  return *this;
}

ChildProcess::~ChildProcess() {
  if (running()) stop(Seconds{2.0});
  close_pipes();
}

void ChildProcess::close_pipes() noexcept {
  close_fd(control_fd_);
  close_fd(reply_fd_);
}

ExitStatus ChildProcess::reaped(int status) {
  exited_ = true;
  status_ = ExitStatus{};
  if (WIFEXITED(status)) status_.code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) status_.signal = WTERMSIG(status);
  return status_;
}

std::optional<ExitStatus> ChildProcess::poll_exit() {
  if (pid_ <= 0) return std::nullopt;
  if (exited_) return status_;
  int status = 0;
  const pid_t got = ::waitpid(pid_, &status, WNOHANG);
  if (got == pid_) return reaped(status);
  return std::nullopt;
}

ExitStatus ChildProcess::wait() {
  if (pid_ <= 0 || exited_) return status_;
  int status = 0;
  pid_t got = 0;
  do {
    got = ::waitpid(pid_, &status, 0);
  } while (got < 0 && errno == EINTR);
  if (got == pid_) return reaped(status);
  exited_ = true;  // not our child any more (cannot happen for a pid we forked and did not reap)
  return status_;
}

bool ChildProcess::wait_exited(Seconds limit) {
  const auto deadline = SteadyClock::now() + std::chrono::duration<double>(limit.value);
  while (true) {
    siginfo_t info{};
    // WNOWAIT: the leader stays a zombie, so its pid (the group id) cannot be reused while we signal it.
    if (::waitid(P_PID, static_cast<id_t>(pid_), &info, WEXITED | WNOHANG | WNOWAIT) == 0 && info.si_pid == pid_) {
      return true;
    }
    if (SteadyClock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

void ChildProcess::signal_group(int signal) const noexcept {
  if (pid_ <= 0) return;
  if (own_group_) {
    ::kill(-pid_, signal);
  } else {
    ::kill(pid_, signal);
  }
}

ExitStatus ChildProcess::stop(Seconds grace) {
  if (pid_ <= 0 || exited_) return status_;
  close_fd(control_fd_);  // end of input: a program reading requests exits by itself
  if (!wait_exited(grace)) {
    signal_group(SIGTERM);
    if (!wait_exited(grace)) signal_group(SIGKILL);
  }
  // Whatever the leader left behind in its group goes with it.
  if (own_group_) signal_group(SIGKILL);
  return wait();
}

Result<std::string> ChildProcess::read_line(Seconds timeout, const std::function<bool()>& cancelled) {
  if (pid_ <= 0 || reply_fd_ < 0) return unexpected(ErrorCode::engine, "the program is not running");
  const auto deadline = SteadyClock::now() + std::chrono::duration<double>(timeout.value);
  while (true) {
    if (const std::size_t newline = buffer_.find('\n'); newline != std::string::npos) {
      if (newline > kMaxProtocolLine) break;
      std::string line = buffer_.substr(0, newline);
      buffer_.erase(0, newline + 1);
      if (!line.empty() && line.back() == '\r') line.pop_back();
      return line;
    }
    if (buffer_.size() > kMaxProtocolLine) break;
    if (cancelled && cancelled()) return unexpected(ErrorCode::cancelled, "waiting for the program's reply interrupted");
    const auto now = SteadyClock::now();
    if (now >= deadline) {
      return unexpected(ErrorCode::unavailable, fmt::format("no reply from the program within {:g} s", timeout.value));
    }
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now).count();
    pollfd fd{reply_fd_, POLLIN, 0};
    const int ready = ::poll(&fd, 1, static_cast<int>(std::min<long long>(kPollMs, left + 1)));
    if (ready < 0 && errno != EINTR) {
      return unexpected(ErrorCode::io, std::string("cannot wait for the program: ") + std::strerror(errno));
    }
    if (ready <= 0) continue;
    char chunk[4096];
    const ssize_t got = ::read(reply_fd_, chunk, sizeof chunk);
    if (got < 0) {
      if (errno == EINTR || errno == EAGAIN) continue;
      return unexpected(ErrorCode::io, std::string("cannot read the program's reply: ") + std::strerror(errno));
    }
    if (got == 0) {
      // The program closed its end: usually it exited. Give it a moment to finish dying for its status.
      close_fd(reply_fd_);
      std::string how = "closed its reply pipe";
      if (wait_exited(Seconds{1.0})) how = "ended (" + wait().describe() + ")";
      if (!buffer_.empty()) how += fmt::format(" after an unterminated line '{}'", buffer_.substr(0, 80));
      return unexpected(ErrorCode::engine, "the program " + how + " before replying");
    }
    buffer_.append(chunk, static_cast<std::size_t>(got));
  }
  return unexpected(ErrorCode::invalid_input,
                    fmt::format("the program sent a line longer than {} bytes", kMaxProtocolLine));
}

Result<void> ChildProcess::write_line(std::string_view line) {
  if (pid_ <= 0 || control_fd_ < 0) return unexpected(ErrorCode::engine, "the program is not running");
  std::string text(line);
  text += '\n';
  // A program that closed its control pipe would make write(2) raise SIGPIPE and end the tool: the
  // signal is blocked on this thread for the write, and a pending one taken back before unblocking.
  sigset_t pipe_only;
  sigset_t previous;
  sigemptyset(&pipe_only);
  sigaddset(&pipe_only, SIGPIPE);
  ::pthread_sigmask(SIG_BLOCK, &pipe_only, &previous);
  std::size_t written = 0;
  int error = 0;
  while (written < text.size()) {
    const ssize_t n = ::write(control_fd_, text.data() + written, text.size() - written);
    if (n < 0) {
      if (errno == EINTR) continue;
      error = errno;
      break;
    }
    written += static_cast<std::size_t>(n);
  }
  if (error == EPIPE) {
    const timespec zero{};
    ::sigtimedwait(&pipe_only, nullptr, &zero);
  }
  ::pthread_sigmask(SIG_SETMASK, &previous, nullptr);
  if (error != 0) {
    return unexpected(ErrorCode::engine,
                      std::string("the program no longer reads its requests: ") + std::strerror(error));
  }
  return {};
}

}  // namespace ecocompute
