// The sweep's children on util's ChildProcess: a log file for their output, SIGINT once on stop.
#include "sweep/child_process.hpp"

#include <signal.h>

#include <chrono>
#include <thread>

namespace ecocompute::sweep {

Result<ChildProcess> start_child(const std::filesystem::path& binary, const std::vector<std::string>& args,
                                 const std::vector<std::pair<std::string, std::string>>& environment,
                                 const std::filesystem::path& log) {
  std::vector<std::string> argv{binary.string()};
  argv.insert(argv.end(), args.begin(), args.end());
  ChildProcess::Options options;
  options.environment = environment;
  options.own_process_group = false;
  options.output_log = log;
  return ChildProcess::start(argv, options);
}

ChildExit wait_child(ChildProcess& child, const std::atomic<bool>* stop) {
  bool stop_sent = false;
  while (true) {
    if (const auto status = child.poll_exit()) {
      if (status->code) return ChildExit{*status->code, 0};
      if (status->signal) return ChildExit{-1, *status->signal};
      return ChildExit{};
    }
    if (stop != nullptr && stop->load() && !stop_sent) {
      ::kill(child.pid(), SIGINT);
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
