// open_meter: NVML GPU → RAPL → none, with a reason for each step down.
#include "meter/open_meter.hpp"

#include <unistd.h>

#include <cstdlib>

#include <fmt/format.h>

#include "meter/host_energy_meter.hpp"
#include "meter/multi_gpu_meter.hpp"
#include "meter/rapl_meter.hpp"
#include "util/log.hpp"

namespace ecocompute::meter {

Result<std::vector<GpuProcess>> other_compute_processes(const NvmlLibrary& nvml, const GpuDevice& gpu) {
  auto all = nvml.compute_processes(gpu.handle);
  if (!all) return all.error();
  const auto self = static_cast<std::uint32_t>(getpid());
  std::vector<GpuProcess> others;
  for (const GpuProcess& p : *all) {
    if (p.pid != self) others.push_back(p);
  }
  return others;
}

namespace {

// Refuses a GPU that other compute processes use, unless allowed: their energy would be counted as ours.
Result<void> check_not_shared(const NvmlLibrary& nvml, const GpuDevice& gpu, bool allow_shared) {
  auto others = other_compute_processes(nvml, gpu);
  if (!others) {
    log::warn("cannot list compute processes on {}: {}", gpu.uuid, others.error().describe());
  } else if (!others->empty() && !allow_shared) {
    std::string pids;
    for (const GpuProcess& p : *others) pids += (pids.empty() ? "" : ", ") + std::to_string(p.pid);
    return unexpected(ErrorCode::unavailable,
                      fmt::format("GPU {} ({}) is used by other compute processes (pid {}); their energy would "
                                  "be counted as ours. Stop them or pass --allow-shared",
                                  gpu.name, gpu.uuid, pids));
  } else if (!others->empty()) {
    log::warn("GPU {} is shared with {} other compute process(es) (--allow-shared)", gpu.uuid, others->size());
  }
  return {};
}

Result<std::unique_ptr<Meter>> open_split_meter(const MeterOptions& options) {
  if (!options.use_gpu) {
    return unexpected(ErrorCode::unavailable, "--gpus: the measured work runs on the CPU, not on the GPUs named");
  }
  auto nvml = NvmlLibrary::open(options.nvml_library);
  if (!nvml) return unexpected(Error{ErrorCode::unavailable, "--gpus cannot be measured", nvml.error()});
  const NvmlLibrary& library = **nvml;
  return open_gpus_meter(*nvml, options.gpus, options.clock, options.nvml, [&](const GpuDevice& gpu) {
    return check_not_shared(library, gpu, options.allow_shared);
  });
}

// A GPU meter reads the host's CPU and DRAM energy beside it where powercap is readable.
std::unique_ptr<Meter> with_host_energy(std::unique_ptr<Meter> gpu_meter, const MeterOptions& options) {
  return options.host_energy ? HostEnergyMeter::wrap(std::move(gpu_meter), options.rapl_root) : std::move(gpu_meter);
}

}  // namespace

std::filesystem::path default_powercap_root() {
  if (const char* env = std::getenv("ECOCOMPUTE_POWERCAP_ROOT"); env != nullptr && *env != '\0') return env;
  return "/sys/class/powercap";
}

void name_gpus(MeterOptions& options, const std::string& gpu, const std::vector<std::string>& gpus) {
  options.gpu = gpus.size() == 1 ? gpus.front() : gpu;
  options.gpus = gpus.size() > 1 ? gpus : std::vector<std::string>{};
}

Result<std::unique_ptr<Meter>> open_meter(const MeterOptions& options) {
  if (!options.gpus.empty()) {
    auto split = open_split_meter(options);
    if (!split) return split.error();
    return with_host_energy(std::move(*split), options);
  }
  auto spec = parse_gpu_spec(options.gpu);
  if (!spec) return spec.error();
  std::vector<std::string> reasons;

  auto nvml = options.use_gpu ? NvmlLibrary::open(options.nvml_library)
                              : Result<std::shared_ptr<NvmlLibrary>>(unexpected(
                                    ErrorCode::unavailable, "no GPU energy source: the measured work runs on the CPU"));
  if (nvml) {
    auto gpu = select_gpu(**nvml, *spec);
    if (gpu) {
      if (auto shared = check_not_shared(**nvml, *gpu, options.allow_shared); !shared) return shared.error();
      return with_host_energy(std::make_unique<NvmlMeter>(*nvml, *gpu, options.clock, options.nvml), options);
    }
    if (spec->kind != GpuSpec::Kind::default_cuda) {
      return unexpected(Error{gpu.error().code(), fmt::format("--gpu '{}' cannot be measured", options.gpu), gpu.error()});
    }
    reasons.push_back("no GPU energy source: " + gpu.error().describe());
  } else {
    if (spec->kind != GpuSpec::Kind::default_cuda && options.use_gpu) {
      return unexpected(Error{ErrorCode::unavailable, fmt::format("--gpu '{}' cannot be measured", options.gpu),
                              nvml.error()});
    }
    reasons.push_back(nvml.error().describe());
  }
  if (!options.allow_fallback) return unexpected(ErrorCode::unavailable, reasons.back());
  log::warn("{}; trying RAPL", reasons.back());

  auto rapl = RaplMeter::open(options.rapl_root, options.clock);
  if (rapl) return std::unique_ptr<Meter>(std::move(*rapl));
  reasons.push_back("no CPU energy source: " + rapl.error().describe());
  log::warn("{}; windows will carry durations only", reasons.back());

  std::string reason;
  for (const std::string& r : reasons) reason += (reason.empty() ? "" : "; ") + r;
  return std::unique_ptr<Meter>(std::make_unique<NullMeter>(reason, options.clock));
}

}  // namespace ecocompute::meter
