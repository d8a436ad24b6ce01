// The host's identity and the measurement_source spelling.
#include "experiment/report_context.hpp"

#include <sys/utsname.h>

#include <fstream>

#include <fmt/format.h>

namespace ecocompute::experiment {

std::string_view measurement_source(std::string_view meter_source) noexcept {
  if (meter_source == "nvml-energy-counter") return "direct-nvml";
  if (meter_source == "rapl") return "rapl";
  return "none";
}

std::string describe_host() {
  struct utsname name {};
  if (::uname(&name) != 0) return "unknown";
  return fmt::format("{}-{}-{}", name.sysname, name.release, name.machine);
}

std::string cpu_model_name() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("model name", 0) == 0) {
      const auto colon = line.find(':');
      if (colon == std::string::npos) break;
      std::string value = line.substr(colon + 1);
      value.erase(0, value.find_first_not_of(" \t"));
      return value;
    }
  }
  return "";
}

}  // namespace ecocompute::experiment
