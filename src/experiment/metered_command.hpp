// run_metered_command: `ecocompute meter -- CMD …`, the command protocol's marked mode. The program runs
// once and marks its own windows (`begin <label>` … `end <label> tokens=<n>`), each edge acknowledged
// only after the meter was read; a program that marks nothing is measured as one window, start to exit.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "meter/measurement.hpp"
#include "meter/open_meter.hpp"
#include "util/child_process.hpp"
#include "util/result.hpp"

namespace ecocompute::experiment {

/// One window of a metered run.
struct MeteredWindow {
  std::string label;
  std::optional<meter::Measurement> measurement;  ///< absent when the window never closed
  std::optional<std::int64_t> tokens;             ///< from the end marker, when it gave tokens=
  std::string failure;                            ///< why the window is not a measurement; empty when it is
  /// Returns energy / tokens, when the window measured energy and counted at least one token.
  [[nodiscard]] std::optional<double> joules_per_token() const;
};

/// What a metered run found.
struct MeteredRun {
  std::string source;   ///< the meter's source: "nvml-energy-counter", "rapl" or "none"
  std::string device;
  bool measures_energy = false;
  bool marked = false;  ///< the program marked its windows; false: one window, start to exit
  std::vector<MeteredWindow> windows;
  std::vector<std::string> protocol_errors;  ///< markers refused (each also answered `error …`)
  ExitStatus exit;                           ///< how the program ended

  /// Returns the program's status when it failed; else 4 when a window or marker failed; else 0.
  [[nodiscard]] int exit_code() const;
};

/// Runs `argv` with the protocol's pipes in the tool's process group (the terminal's Ctrl-C reaches the
/// program, which ends; the tool, ignoring SIGINT and SIGQUIT meanwhile, reports what was measured).
/// The program also gets ECOCOMPUTE_GPU_UUID and CUDA_VISIBLE_DEVICES for the GPU the meter reads.
/// Errors: the meter cannot be opened as asked (invalid_argument, unavailable); the program cannot be
/// started (not_found).
[[nodiscard]] Result<MeteredRun> run_metered_command(const std::vector<std::string>& argv,
                                                     const meter::MeterOptions& options);

/// Returns the run as JSON: source, device, windows (label, status, duration_s, energy_j,
/// edge_uncertainty_j, tokens, j_per_token, avg_power_w, reason), exit.
[[nodiscard]] nlohmann::ordered_json to_json(const MeteredRun& run);

/// Returns the run as a table for people, one row per window, then the source and the exit status.
[[nodiscard]] std::string format_metered_run(const MeteredRun& run);

/// Returns the windows as CSV, one row each: CodeCarbon's column names for duration (s), gpu_power and
/// cpu_power (W), gpu_energy, cpu_energy and energy_consumed (kWh), then ours (edge uncertainty in kWh,
/// tokens, J/token, tokens per kWh, the source and device, and the window's status), then ram_power (W)
/// and ram_energy (kWh). A GPU window fills the gpu_ columns, and the cpu_ and ram_ ones where the host's
/// RAPL counters were read beside it (energy_consumed is then their sum, as CodeCarbon's is; J/token
/// stays the GPU's); a RAPL window fills the cpu_ ones; a window without energy leaves them empty.
[[nodiscard]] std::string format_metered_csv(const MeteredRun& run);

}  // namespace ecocompute::experiment
