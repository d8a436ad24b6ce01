// ReportContext: what the reports need beyond the RunResult — provenance, environment, model
// identity, quality — gathered by the experiment before and after the run.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "ecocompute/build_info.hpp"
#include "meter/gpu_info.hpp"
#include "quality/quality_result.hpp"
#include "report/energy_report.hpp"

namespace ecocompute::experiment {

struct ReportContext {
  std::string run_id;                ///< names the run in every report, e.g. "20261129T170203Z"
  std::string host;                  ///< e.g. describe_host()
  std::string cpu;                   ///< CPU model name; empty when unknown (left out)
  meter::EnergySources sources;      ///< GPU and drivers as found at the start of the run
  report::WeightsKind weights = report::WeightsKind::real;
  std::string model_name;            ///< empty: each model's general.name
  /// sha256 of each precision's measured GGUF file; a precision missing here is hashed from its file.
  std::map<std::string, std::string, std::less<>> model_sha256;
  /// The quality probe's results, matched to conditions by precision (baseline's included); empty when
  /// the probe did not run. Ignored for synthetic weights.
  std::vector<quality::QualityResult> quality;
  /// This tool's identity, from the build by default (tests pin them to get stable golden files).
  std::string ecocompute_version = build_info::version;
  std::string ecocompute_commit = build_info::git_commit();
  std::string compiler = build_info::compiler;
};

/// Returns the spelling of measurement_source for a meter source: "nvml-energy-counter" →
/// "direct-nvml", "rapl" → "rapl", anything else → "none".
[[nodiscard]] std::string_view measurement_source(std::string_view meter_source) noexcept;

/// Returns "<system>-<release>-<machine>" from uname(2), e.g. "Linux-6.1.0-18-amd64-x86_64".
[[nodiscard]] std::string describe_host();

/// Returns the first "model name" of /proc/cpuinfo, or "" when unreadable.
[[nodiscard]] std::string cpu_model_name();

}  // namespace ecocompute::experiment
