// From a RunResult to the EnergyReport of each condition: which trial values enter which field.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "experiment/report_context.hpp"
#include "meter/measurement.hpp"
#include "protocol/run_result.hpp"
#include "report/energy_report.hpp"
#include "util/result.hpp"

namespace ecocompute::experiment {

/// Returns the file name of a condition's report: "energy-Q4_K_M.json", or "energy-F16-p512.json" when
/// the prompt length is a level of its own.
[[nodiscard]] std::string report_file_name(const protocol::Condition& condition);

/// Returns the energy.json (1.2) of condition `condition` of `run`: every ok trial's windows enter the
/// results and statistics; every trial of the condition (failed and not-run ones too) is listed with
/// its status and reason. Basis is "measured" only when a real energy source read the valid windows,
/// else "unavailable" with every energy figure absent (throughput and quality are still given).
/// Fails with invalid_argument when the condition's engine never loaded (run.json records why), and
/// with the hashing error when a model file cannot be read. Does not validate.
[[nodiscard]] Result<report::EnergyReport> build_energy_report(const protocol::RunResult& run, std::size_t condition,
                                                               const ReportContext& context);

/// Returns each GPU's own reading of a window read over several GPUs (`--gpus`); empty for one GPU.
[[nodiscard]] std::vector<report::GpuWindowShare> gpu_shares(const meter::Measurement& measurement);

/// Returns the system-under-test section: the GPU read (the first of several) and how many were read.
[[nodiscard]] report::SystemUnderTest system_under_test(const ReportContext& context);

/// Returns the environment section of the run's reports (fingerprint computed).
[[nodiscard]] report::Environment build_environment(const ReportContext& context, const std::string& engine_commit);

}  // namespace ecocompute::experiment
