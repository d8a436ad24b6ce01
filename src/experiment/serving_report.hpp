// Serving reports: from a sweep of endpoints × concurrency levels to one energy.json per endpoint and
// level (scenario "Server"), a sweep summary (JSON and a markdown table) and a plot of J/token
// against concurrency.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "experiment/report_context.hpp"
#include "protocol/serving_requests.hpp"
#include "protocol/serving_statistics.hpp"
#include "protocol/serving_sweep.hpp"
#include "report/energy_report.hpp"
#include "util/json.hpp"
#include "util/result.hpp"

namespace ecocompute::experiment {

/// What the serving reports need beyond the sweep.
struct ServingContext {
  ReportContext report;               ///< run id, host, GPU, tool identity
  std::string meter_source;           ///< Meter::source()
  bool meter_measures_energy = false;
  std::string edges = "counter";      ///< the edge method asked for: "counter" or "corrected"
  std::optional<double> params_b;     ///< the served model's size, as the user gave it (for `data import`)
  std::string request_set;            ///< how the requests were made, in words ("seed 7: 64 requests …" or the file)
  std::string request_set_seed;       ///< decimal seed, or "0" for a file
  std::string api;                    ///< "completions" or "chat"
  bool streamed = true;
  std::string restart_cmd;            ///< --restart-cmd as given (empty: none)
  std::string level_cmd;              ///< --level-cmd as given (empty: none; then blocks interleave levels)
  std::string server_engine;          ///< --server-engine: the server's name ("" = not declared: openai-endpoint)
  std::string model_name;             ///< --model-name: the model served ("" = the name the server reports)
};

/// Returns "energy-<label>-c<C>.json".
[[nodiscard]] std::string serving_report_file_name(const std::string& label, int concurrency);

/// Returns the energy.json (1.2, scenario Server) of endpoint `endpoint` at `concurrency`.
[[nodiscard]] report::EnergyReport build_serving_report(const protocol::SweepResult& sweep,
                                                        const protocol::ServingAnalysis& analysis,
                                                        std::size_t endpoint, int concurrency,
                                                        const ServingContext& context);

/// Returns the sweep summary ("ecocompute-serving-sweep/1"): every level's figures, the paired ΔE and
/// the break-even concurrency of each candidate.
[[nodiscard]] OrderedJson serving_summary_json(const protocol::SweepResult& sweep,
                                               const protocol::ServingAnalysis& analysis,
                                               const ServingContext& context);

/// Returns the summary as a markdown table with the break-even lines under it.
[[nodiscard]] std::string serving_summary_markdown(const protocol::SweepResult& sweep,
                                                   const protocol::ServingAnalysis& analysis,
                                                   const ServingContext& context);

/// Returns the gnuplot script (data inline) of window mJ/token (mean, CI bars) against concurrency,
/// one line per endpoint, writing `svg`; nothing to plot (no energy measured) gives an empty string.
[[nodiscard]] std::string serving_plot_script(const protocol::SweepResult& sweep,
                                              const protocol::ServingAnalysis& analysis,
                                              const std::filesystem::path& svg);

}  // namespace ecocompute::experiment
