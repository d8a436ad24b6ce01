// Optimizer: the best (precision, batch, context) for a model on a GPU under an objective and
// constraints (latency, memory, throughput, quality), over an explicit grid, with the Pareto front of
// energy vs latency and the closest infeasible candidate. Latency comes from a roofline model of the
// GPU's datasheet; energy from the estimator. Field names are those of the published /v1/optimize.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "data/basis.hpp"
#include "data/evidence.hpp"
#include "util/defaults.hpp"
#include "util/json.hpp"
#include "util/result.hpp"

namespace ecocompute::data {

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
  std::vector<int> batches{1, 4, 8, 16, 32};
  std::vector<int> contexts{defaults::context};
};

/// One grid point, estimated.
struct Candidate {
  std::string precision;
  int batch = defaults::batch;
  int context = defaults::context;
  std::optional<double> delta_pct;              ///< ΔE vs FP16 at batch 1 (from the estimator)
  std::optional<double> energy_per_token_mj;    ///< estimated, absolute (needs FP16 anchors)
  std::optional<double> relative_energy;        ///< energy per token vs FP16 batch 1 (= 1.0)
  double latency_ms_per_token = 0;              ///< roofline decode step time (per sequence)
  double throughput_tokens_per_s = 0;           ///< batch / step time
  double vram_gb = 0;                           ///< weights + KV cache + 10 % runtime overhead
  std::optional<double> delta_ppl_pct;
  std::optional<double> kld;
  Basis basis = Basis::unavailable;
  bool feasible = true;
  std::vector<std::string> violations;          ///< "latency 31.2 ms > 20 ms", "quality unknown" …
};

struct OptimizeResponse {
  Json input;
  std::string basis;  ///< the recommended candidate's basis ("unavailable" when none is feasible)
  int feasible_count = 0;
  std::vector<std::string> notes;
  std::optional<Candidate> recommended;
  std::optional<Candidate> closest_infeasible;
  std::vector<Candidate> alternatives;           ///< the next feasible candidates, best first
  std::vector<Candidate> pareto_energy_latency;  ///< feasible, non-dominated in (energy, latency)
};

/// Runs the grid. A quality constraint excludes candidates whose measured quality cost exceeds it
/// and those with no quality data (FP16 always passes). Errors name the field.
Result<OptimizeResponse> optimize(const OptimizeRequest& request, const Evidence& evidence);

/// Reads a request from published /v1/optimize JSON; the error names the field.
Result<OptimizeRequest> optimize_request_from_json(const Json& body);

void to_json(Json& j, const Candidate& candidate);
void to_json(Json& j, const OptimizeResponse& response);

}  // namespace ecocompute::data
