// `ecocompute info`: the environment fingerprint (GPU, driver, energy sources, llama.cpp, this build).
#include <cstdio>
#include <string>

#include <fmt/format.h>

#include "cli/command.hpp"
#include "cli/exit_code.hpp"
#include "ecocompute/build_info.hpp"
#include "engine/llama_backend.hpp"
#include "meter/gpu_info.hpp"

namespace ecocompute::cli {
namespace {

struct InfoArgs {
  std::string gpu;
  bool json = false;
};

OrderedJson info_json(const meter::EnergySources& sources, const engine::LlamaBuildInfo& llama) {
  OrderedJson out;
  out["ecocompute"] = {{"version", build_info::version}, {"commit", build_info::git_commit()},
                       {"build_type", build_info::build_type}, {"compiler", build_info::compiler},
                       {"selftest_cuda", build_info::selftest_cuda}};
  out["engine"] = {{"name", llama.engine}, {"version", llama.version}, {"commit", llama.commit},
                   {"ggml_version", llama.ggml_version}, {"ggml_commit", llama.ggml_commit},
                   {"gpu_offload", llama.gpu_offload}, {"system_info", llama.system_info}};
  out["energy"] = meter::to_json(sources);
  return out;
}

std::string info_text(const meter::EnergySources& s, const engine::LlamaBuildInfo& llama) {
  std::string out = fmt::format("ecocompute {} (commit {}, {} build, {})\n", build_info::version, build_info::git_commit(),
                                build_info::build_type, build_info::compiler);
  if (s.gpu) {
    const meter::GpuInfo& g = *s.gpu;
    out += fmt::format("GPU:           {} ({})\n", g.name, g.arch.empty() ? "arch unknown" : g.arch);
    out += fmt::format("  UUID:        {}\n  PCI bus id:  {}\n  selected by: {}\n", g.uuid, g.pci_bus_id, g.selected_by);
    out += fmt::format("  power limit: {}\n", g.power_limit ? fmt::format("{:.0f} W", g.power_limit->value) : "unknown");
    out += fmt::format("  VBIOS:       {}\n  ECC:         {}\n", g.vbios.empty() ? "unknown" : g.vbios,
                       g.ecc_enabled ? (*g.ecc_enabled ? "on" : "off") : "unknown");
    if (g.sm_clock_mhz && g.memory_clock_mhz) out += fmt::format("  clocks:      SM {} MHz, memory {} MHz\n", *g.sm_clock_mhz, *g.memory_clock_mhz);
    if (!g.other_processes.empty()) out += fmt::format("  other compute processes: {}\n", g.other_processes.size());
  } else {
    out += "GPU:           none found\n";
  }
  out += fmt::format("NVIDIA driver: {}\nCUDA driver:   {}\n", s.driver_version.empty() ? "none" : s.driver_version,
                     s.cuda_driver_version.empty() ? "none" : s.cuda_driver_version);
  out += fmt::format("GPU energy:    {}\n", s.nvml_available ? "NVML energy counter (" + s.nvml_library + ")" : s.nvml_status);
  out += fmt::format("CPU energy:    {}\n", s.rapl_available ? "RAPL " + s.rapl_status.substr(4) : s.rapl_status);
  out += fmt::format("engine:        {} {} (commit {}, ggml {}), GPU offload {}\n", llama.engine, llama.version, llama.commit,
                     llama.ggml_version, llama.gpu_offload ? "yes" : "no");
  out += fmt::format("  system info: {}\n", llama.system_info);
  out += fmt::format("selftest:      {}\n", build_info::selftest_cuda ? "CUDA load generator built in" : "not built (no CUDA)");
  return out;
}

}  // namespace

Command make_info_command(CLI::App& root) {
  auto args = std::make_shared<InfoArgs>();
  CLI::App* app = root.add_subcommand("info", "Print the environment: GPU, driver, energy sources, llama.cpp, this build");
  app->add_option("--gpu", args->gpu, "GPU to describe: GPU-<uuid>, a PCI bus id (0000:19:00.0) or cuda:N "
                                      "(default: the first visible CUDA device)");
  app->add_flag("--json", args->json, "Print JSON instead of text");
  return {app, [args] {
            const meter::EnergySources sources = meter::describe_energy_sources(args->gpu);
            const engine::LlamaBuildInfo llama = engine::llama_build_info();
            const std::string text = args->json ? info_json(sources, llama).dump(2) + "\n" : info_text(sources, llama);
            std::fputs(text.c_str(), stdout);
            return static_cast<int>(exit_ok);
          }};
}

}  // namespace ecocompute::cli
