// fork/execve with the environment built before fork: a multi-threaded parent may only call
// async-signal-safe functions in the child, so nothing is allocated after fork.
#include "sweep/child_process.hpp"

#include <fcntl.h>
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

namespace ecocompute::sweep {

Result<long> start_child(const std::filesystem::path& binary, const std::vector<std::string>& args,
                         const std::vector<std::pair<std::string, std::string>>& environment,
                         const std::filesystem::path& log) {
  std::vector<std::string> env_strings;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    const std::string_view entry(*e);
    const std::string_view name = entry.substr(0, entry.find('='));
    bool replaced = false;
    for (const auto& [n, v] : environment) replaced = replaced || n == name;
    if (!replaced) env_strings.emplace_back(entry);
  }
  for (const auto& [name, value] : environment) env_strings.push_back(name + "=" + value);
  std::vector<char*> envp;
  for (std::string& s : env_strings) envp.push_back(s.data());
  envp.push_back(nullptr);
  std::vector<std::string> argv_strings{binary.string()};
  argv_strings.insert(argv_strings.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& s : argv_strings) argv.push_back(s.data());
  argv.push_back(nullptr);

  const int log_fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (log_fd < 0) return unexpected(ErrorCode::io, fmt::format("cannot open {}: {}", log.string(), std::strerror(errno)));
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid < 0) {
    ::close(log_fd);
    return unexpected(ErrorCode::io, fmt::format("cannot start {}: {}", binary.string(), std::strerror(errno)));
  }
  if (pid == 0) {
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(127);  // the parent died before prctl took effect
    ::dup2(log_fd, STDOUT_FILENO);
    ::dup2(log_fd, STDERR_FILENO);
    const int null_fd = ::open("/dev/null", O_RDONLY);
    if (null_fd >= 0) ::dup2(null_fd, STDIN_FILENO);
    ::execve(argv[0], argv.data(), envp.data());
    static constexpr char failed[] = "ecocompute sweep: cannot execute the child binary\n";
    (void)!::write(STDERR_FILENO, failed, sizeof failed - 1);
    ::_exit(127);
  }
  ::close(log_fd);
  return static_cast<long>(pid);
}

ChildExit wait_child(long pid, const std::atomic<bool>* stop) {
  bool stop_sent = false;
  while (true) {
    int status = 0;
    const pid_t done = ::waitpid(static_cast<pid_t>(pid), &status, WNOHANG);
    if (done == static_cast<pid_t>(pid)) {
      if (WIFEXITED(status)) return ChildExit{WEXITSTATUS(status), 0};
      if (WIFSIGNALED(status)) return ChildExit{-1, WTERMSIG(status)};
      continue;
    }
    if (done < 0 && errno != EINTR) return ChildExit{-1, 0};
    if (stop != nullptr && stop->load() && !stop_sent) {
      ::kill(static_cast<pid_t>(pid), SIGINT);
      stop_sent = true;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
}

std::filesystem::path own_binary() {
  std::error_code ec;
  const auto path = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::filesystem::path("ecocompute") : path;
}

}  // namespace ecocompute::sweep
