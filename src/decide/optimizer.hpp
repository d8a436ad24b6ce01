// Optimizer: the best (precision, batch, context) for a model on a GPU under an objective and
// constraints (latency, memory, throughput, quality), over an explicit grid, with the Pareto front of
// energy vs latency and the closest infeasible candidate. Every figure of a configuration is a function
// of that configuration alone (never of the other candidates in the grid), and says its basis: energy
// from the decision model's prediction (the same figure estimate gives), latency from a roofline of
// the GPU's datasheet and memory from weights and KV cache (modelled). Field names are a superset of
// the published /v1/optimize.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "data/basis.hpp"
#include "data/quality_cost.hpp"
#include "decide/evidence.hpp"
#include "util/cpu_budget.hpp"
#include "util/defaults.hpp"
#include "util/json.hpp"
#include "util/json_sink.hpp"
#include "util/result.hpp"

namespace ecocompute::decide {

enum class Objective { min_energy, min_latency, max_throughput, min_vram };
std::string_view to_string(Objective objective) noexcept;
Result<Objective> parse_objective(std::string_view text);

struct OptimizeRequest {
  std::optional<double> params_b;
  std::string model;                 ///< size read from the name when params_b is unset
  std::string gpu;                   ///< a GPU name (preferred: the roofline needs its datasheet)
  std::string arch;                  ///< or an architecture (its representative GPU is used)
  std::string engine;                ///< "" = each precision's default engine
  Objective objective = Objective::min_energy;
  std::optional<double> max_latency_ms;       ///< per generated token
  std::optional<double> max_vram_gb;
  std::optional<double> min_throughput;       ///< tokens/s over the batch
  std::optional<double> max_delta_ppl_pct;    ///< quality: perplexity increase vs FP16, %
  std::optional<double> max_kld;              ///< quality: KL divergence vs FP16
  std::optional<int> batch;                   ///< pin
  std::optional<int> context;                 ///< pin
  std::vector<std::string> precisions{defaults::optimize_precisions.begin(), defaults::optimize_precisions.end()};
  std::vector<int> batches{defaults::optimize_batches.begin(), defaults::optimize_batches.end()};
  std::vector<int> contexts{defaults::optimize_contexts.begin(), defaults::optimize_contexts.end()};
  bool allow_borrow = false;                  ///< as in estimate: answer from another architecture's curve
};

/// The most distinct values one list of the grid (precisions, batches, contexts) may hold, and the
/// most configurations one request scores. The published grid is 3 × 6 × 5 = 90; the bounds keep the
/// worst request to a fraction of a second of one core (bench/RESULTS.md).
inline constexpr std::size_t kMaxGridValues = 32;
inline constexpr std::size_t kMaxGridCandidates = 512;

/// One configuration, scored.
struct Candidate {
  std::string precision;
  std::string engine;
  int batch = defaults::batch;
  int context = defaults::context;
  std::optional<double> delta_pct;              ///< ΔE vs FP16 at this batch and context
  std::optional<double> delta_ci_low_pct, delta_ci_high_pct;
  std::optional<double> energy_mj_per_token;    ///< absolute (mJ per token = J per 1000 tokens)
  std::optional<double> energy_low_mj, energy_high_mj;
  std::optional<double> relative_energy;        ///< energy per token vs F16 at batch 1 and this context on the GPU: the ranking key
  double latency_ms_per_token = 0;              ///< roofline decode step time (per sequence)
  double throughput_tok_s = 0;                  ///< batch / step time
  std::string bound;                            ///< "memory" or "compute": the roof that binds
  double vram_gb = 0;                           ///< weights + KV cache (runtime buffers not included)
  std::optional<double> delta_ppl_pct;          ///< the quality cost's central figure (0 for FP16)
  std::optional<double> kld;
  /// With its basis, interval and source; absent for FP16. One format's configurations share it.
  std::shared_ptr<const data::FormatQualityCost> quality;
  data::FigureBasis energy_basis, latency_basis, vram_basis;
  std::string confidence;                       ///< of the energy, at most "medium" (latency is modelled)
  std::string recommendation;                   ///< the estimator's for this precision; "baseline" for FP16
  bool feasible = true;
  std::vector<std::string> violations;          ///< "latency 31.2 ms > 20 ms", "quality unknown" …
};

struct OptimizeResponse {
  Json input;
  int feasible_count = 0;
  std::vector<std::string> notes;
  std::optional<Candidate> recommended;
  std::optional<Candidate> closest_infeasible;
  std::vector<Candidate> alternatives;           ///< the next feasible candidates, best first
  /// Every scored candidate not dominated in (energy, latency), by energy. The figures' bases of these
  /// and of `candidates` are their kinds alone (BasisDetail::kind_only); the candidates above have theirs in full.
  std::vector<Candidate> pareto_energy_latency;
  std::vector<Candidate> candidates;             ///< every scored candidate, in grid order, its bases their kinds alone (BasisDetail::kind_only)
  /// When the recommended energy is modelled: the best feasible candidate whose energy is not.
  std::optional<Candidate> best_unmodelled;
  std::map<std::string, std::string> skipped;    ///< precision → why it could not be scored
};

/// Runs the grid. A quality constraint excludes candidates whose measured quality cost exceeds it
/// and those with no quality data (FP16 always passes). A precision the estimator cannot answer for
/// (no curve, no borrow) is skipped with its reason; none left is an error. Errors name the field.
/// Repeated grid values are searched once; a grid past kMaxGridValues or kMaxGridCandidates is an
/// invalid_argument error that names the cap. With a `budget`, a grid still being scored when the
/// budget is spent is an invalid_argument error that says how far it got.
Result<OptimizeResponse> optimize(const OptimizeRequest& request, const Evidence& evidence,
                                  const CpuBudget* budget = nullptr);

/// Reads a request from /v1/optimize JSON (the published fields, plus gpu, engine, quality limits and
/// allow_borrow); the error names the field.
Result<OptimizeRequest> optimize_request_from_json(const Json& body);

/// The answer as JSON: write_json straight into text (util/json_sink.hpp), to_json into a document;
/// the same keys and values either way.
void write_json(JsonSink& sink, const Candidate& candidate);
void write_json(JsonSink& sink, const OptimizeResponse& response);
void to_json(Json& j, const Candidate& candidate);
void to_json(Json& j, const OptimizeResponse& response);
/// The lines printed by `ecocompute optimize`.
std::string to_text(const OptimizeResponse& response);

}  // namespace ecocompute::decide
