// energy.json (ecocompute-energy/1.2) per condition and run.json per run, built from a RunResult and
// the quality probe's results, validated against the shipped schema and written atomically.
//
//   report::RunContext context;
//   context.run_id = "20261129T170203Z";
//   context.host = report::describe_host();
//   context.sources = meter::describe_energy_sources(gpu_spec);
//   context.weights = report::WeightsKind::trained_fixture;
//   context.quality = *probe_quality(...);              // empty when the probe did not run
//   auto written = report::write_run_reports(run, context, out_dir);
#pragma once

#include <cstddef>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ecocompute/build_info.hpp"
#include "meter/gpu_info.hpp"
#include "protocol/run_result.hpp"
#include "quality/quality_result.hpp"
#include "util/json.hpp"
#include "util/result.hpp"

namespace ecocompute::report {

/// Where the measured weights come from; synthetic weights make quality meaningless.
enum class WeightsKind { synthetic, trained_fixture, real };

/// Returns "synthetic", "trained-fixture" or "real".
[[nodiscard]] std::string_view to_string(WeightsKind kind) noexcept;
/// Parses the spellings above; anything else is an invalid_argument error naming the text.
[[nodiscard]] Result<WeightsKind> parse_weights_kind(std::string_view text);

/// What the reports need beyond the RunResult: provenance, environment, model identity, quality.
struct RunContext {
  std::string run_id;                ///< names the run in every report, e.g. "20261129T170203Z"
  std::string host;                  ///< e.g. describe_host()
  std::string cpu;                   ///< CPU model name; empty when unknown (left out)
  meter::EnergySources sources;      ///< GPU and drivers as found at the start of the run
  WeightsKind weights = WeightsKind::real;
  std::string model_name;            ///< empty: each model's general.name
  /// sha256 of each precision's measured GGUF file; a precision missing here is hashed from its file.
  std::map<std::string, std::string, std::less<>> model_sha256;
  /// The quality probe's results, matched to conditions by precision (baseline's included); empty when
  /// the probe did not run. Ignored for synthetic weights.
  std::vector<quality::QualityResult> quality;
  /// This tool's identity, from the build by default (tests pin them to get stable golden files).
  std::string ecocompute_version = build_info::version;
  std::string ecocompute_commit = build_info::git_commit;
  std::string compiler = build_info::compiler;
};

/// Returns the spelling of measurement_source for a meter source: "nvml-energy-counter" →
/// "direct-nvml", "rapl" → "rapl", anything else → "none".
[[nodiscard]] std::string_view measurement_source(std::string_view meter_source) noexcept;

/// Returns the file name of a condition's report: "energy-Q4_K_M.json", or "energy-F16-p512.json" when
/// the prompt length is a level of its own.
[[nodiscard]] std::string report_file_name(const protocol::Condition& condition);

/// Returns the energy.json (1.2) of condition `condition` of `run`: every ok trial's windows enter the
/// results and statistics; every trial of the condition (failed and not-run ones too) is listed with
/// its status and reason. Basis is "measured" only when a real energy source read the valid windows,
/// else "unavailable" with every energy figure null (throughput and quality are still given).
/// Fails with invalid_argument when the condition's engine never loaded (run.json records why), and
/// with the hashing error when a model file cannot be read. Does not validate.
[[nodiscard]] Result<OrderedJson> build_energy_json(const protocol::RunResult& run, std::size_t condition,
                                                    const RunContext& context);

/// One condition's outcome of write_run_reports.
struct WrittenReport {
  std::size_t condition = 0;
  std::string label;                 ///< Condition::label()
  std::filesystem::path path;        ///< empty when no report was written
  std::string failure;               ///< why not (never loaded, invalid document); empty when written
  std::optional<OrderedJson> document;  ///< the report as written
};

/// Returns the run summary: design, order and seed, every trial's status, the idle power, each
/// condition's report file (or why there is none) and headline numbers, and the warnings.
[[nodiscard]] OrderedJson build_run_summary(const protocol::RunResult& run, const RunContext& context,
                                            const std::vector<WrittenReport>& reports);

/// Validates `document` against the shipped schema, then writes it atomically (2-space indent). A
/// document with problems is not written: the error (internal) lists every problem with its pointer.
[[nodiscard]] Result<void> write_validated_energy_json(const std::filesystem::path& path,
                                                       const OrderedJson& document);

/// Builds, validates and writes energy-<label>.json for every condition, then run.json, into `out_dir`.
/// A condition whose report cannot be built or validated is recorded in run.json with its reason and
/// in the returned list; the others are still written. Fails only when a file cannot be written.
[[nodiscard]] Result<std::vector<WrittenReport>> write_run_reports(const protocol::RunResult& run,
                                                                   const RunContext& context,
                                                                   const std::filesystem::path& out_dir);

/// Returns "<system>-<release>-<machine>" from uname(2), e.g. "Linux-6.1.0-18-amd64-x86_64".
[[nodiscard]] std::string describe_host();

/// Returns the first "model name" of /proc/cpuinfo, or "" when unreadable.
[[nodiscard]] std::string cpu_model_name();

}  // namespace ecocompute::report
