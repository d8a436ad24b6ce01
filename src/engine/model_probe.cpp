// Loading a model's metadata in-process (for the child) and in a child process (for everyone else).
#include "engine/model_probe.hpp"

#include <ggml.h>
#include <llama.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "engine/llama_backend.hpp"

extern char** environ;

namespace ecocompute::engine {
namespace {

// The child says why before abort() ends it; its last such line is the parent's reason.
void report_abort(const char* message) {
  std::fprintf(stderr, "llama.cpp aborted: %s\n", message);
  std::fflush(stderr);
}

std::filesystem::path own_executable() {
  std::error_code ec;
  return std::filesystem::read_symlink("/proc/self/exe", ec);
}

// The child's environment: ours, with the GPUs hidden (the probe is CPU-only: a CUDA start-up costs
// seconds and a GPU the parent measures must see no other context) and no debugger backtrace.
std::vector<std::string> child_environment() {
  std::vector<std::string> out;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    const std::string_view entry(*e);
    if (entry.starts_with("CUDA_VISIBLE_DEVICES=") || entry.starts_with("GGML_NO_BACKTRACE=")) continue;
    out.emplace_back(entry);
  }
  out.emplace_back("CUDA_VISIBLE_DEVICES=");
  out.emplace_back("GGML_NO_BACKTRACE=1");
  return out;
}

// llama.cpp's reason from the child's stderr: its "llama.cpp aborted:" line, else its last line.
std::string reason_from(const std::string& err) {
  std::string last;
  std::size_t start = 0;
  while (start < err.size()) {
    std::size_t end = err.find('\n', start);
    if (end == std::string::npos) end = err.size();
    const std::string line = err.substr(start, end - start);
    if (line.rfind("llama.cpp aborted: ", 0) == 0) return line.substr(19);
    constexpr std::string_view kOurError = "ecocompute: error: ";
    if (!line.empty()) last = line.rfind(kOurError, 0) == 0 ? line.substr(kOurError.size()) : line;
    start = end + 1;
  }
  return last;
}

}  // namespace

Result<void> dry_load(const std::filesystem::path& model) {
  ensure_llama_backend();
  ggml_set_abort_callback(report_abort);
  llama_model_params params = llama_model_default_params();
  params.n_gpu_layers = 0;
  params.no_alloc = true;         // metadata and shapes; no weight is read or allocated
  params.use_extra_bufts = false;  // no repacking of weights that are not there
  params.load_mode = LLAMA_LOAD_MODE_NONE;  // no mapping: llama.cpp maps nothing when it allocates nothing
  take_last_llama_error();
  llama_model* loaded = llama_model_load_from_file(model.c_str(), params);
  if (loaded == nullptr) {
    const std::string reason = take_last_llama_error();
    return unexpected(ErrorCode::invalid_input,
                      fmt::format("{}: llama.cpp cannot load it{}", model.string(), reason.empty() ? "" : ": " + reason));
  }
  llama_model_free(loaded);
  return {};
}

Result<void> check_model_loads(const std::filesystem::path& model, std::filesystem::path program,
                               std::chrono::seconds timeout) {
  if (program.empty()) program = own_executable();
  if (program.empty()) return unexpected(ErrorCode::internal, "cannot find this program's own file to check a model");
  int err_pipe[2];
  if (::pipe2(err_pipe, O_CLOEXEC) != 0) return unexpected(ErrorCode::internal, "cannot make a pipe for the model check");
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, err_pipe[1], STDERR_FILENO);
  const std::string program_text = program.string();
  const std::string model_text = model.string();
  std::vector<std::string> args{program_text, "--log-level", "error", "inspect", "--in-process", "--quiet", model_text};
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::vector<std::string> env = child_environment();
  std::vector<char*> envp;
  for (std::string& e : env) envp.push_back(e.data());
  envp.push_back(nullptr);
  pid_t pid = 0;
  const int spawned = posix_spawn(&pid, program_text.c_str(), &actions, nullptr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  ::close(err_pipe[1]);
  if (spawned != 0) {
    ::close(err_pipe[0]);
    return unexpected(ErrorCode::internal, fmt::format("cannot start {} to check {}: {}", program_text, model_text,
                                                       std::strerror(spawned)));
  }
  // Read the child's stderr until it closes it or the time is up.
  std::string err;
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  bool timed_out = false;
  char buffer[4096];
  while (true) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      timed_out = true;
      break;
    }
    pollfd p{err_pipe[0], POLLIN, 0};
    if (::poll(&p, 1, static_cast<int>(std::min<long long>(left.count(), 1000))) <= 0) continue;
    const ssize_t n = ::read(err_pipe[0], buffer, sizeof buffer);
    if (n <= 0) break;
    if (err.size() < 65536) err.append(buffer, static_cast<std::size_t>(n));
  }
  ::close(err_pipe[0]);
  if (timed_out) ::kill(pid, SIGKILL);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (timed_out) {
    return unexpected(ErrorCode::invalid_input, fmt::format("{}: llama.cpp did not finish reading it within {} s",
                                                            model_text, timeout.count()));
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return {};
  const std::string reason = reason_from(err);
  if (WIFSIGNALED(status)) {
    return unexpected(ErrorCode::invalid_input,
                      fmt::format("{}: llama.cpp's loader {} on this file ({}){}", model_text,
                                  WTERMSIG(status) == SIGABRT ? "aborts" : "crashes", strsignal(WTERMSIG(status)),
                                  reason.empty() ? "" : ": " + reason));
  }
  return unexpected(ErrorCode::invalid_input, reason.empty() ? fmt::format("{}: llama.cpp cannot load it", model_text)
                                                             : reason);
}

}  // namespace ecocompute::engine
