// Estimator: "does quantizing a model of N billion parameters on this GPU / architecture with this
// engine save energy per token?", answered from curves and measured anchors with an honest basis
// label, a CI-based recommendation, the quality cost where measured, and an absolute J/token estimate.
// The JSON field names are those of the published /v1/estimate response.
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

/// The question. Either params_b or a model name (or free text `q`) with a size in it is required;
/// either gpu or arch. Empty engine means the precision's default engine.
struct EstimateRequest {
  std::optional<double> params_b;
  std::string model;          ///< e.g. "Qwen2.5-14B"; the size is read from it if params_b is unset
  std::string q;              ///< published free-text query ("14B on A100 NF4"): size, GPU, precision
  std::string gpu;            ///< e.g. "A100"; resolved to its architecture
  std::string arch;           ///< e.g. "ampere"
  std::string precision{defaults::estimate_precision};
  int batch = defaults::batch;
  int context = defaults::context;
  std::string engine;
};

/// A measured point shown beside an estimate.
struct Anchor {
  double params_b = 0;
  double delta_pct = 0;
  int n = 1;
  std::string model;
  std::string session;
};

/// The measured quality cost of a precision, from the closest measured size.
struct QualityCost {
  double delta_perplexity_pct = 0;
  std::optional<double> kld;
  double measured_at_b = 0;
  std::string model;
  Basis basis = Basis::measured;  ///< measured (same size) or borrowed (another size: said so)
  std::string note;
};

/// An absolute energy per token, always labelled estimated.
struct EnergyEstimate {
  double fp16_mj_per_token = 0;
  double mj_per_token = 0;   ///< fp16 × (1 + ΔE/100)
  std::string method;        ///< "log-log fit of FP16 anchors on <gpu> (<session>)"
  std::string label = "estimated";
};

/// The answer (published /v1/estimate fields plus quality_cost, energy_estimate, engine, curve).
struct EstimateResponse {
  Json input;                        ///< the resolved question
  std::optional<double> delta_pct;   ///< absent when basis is unavailable
  std::optional<double> ci_low_pct, ci_high_pct;  ///< 95 % (confidence band, or ±1.96·resid_std)
  std::string ci_kind;               ///< "confidence band" | "resid_std" | "anchor CI" | ""
  Basis basis = Basis::unavailable;
  std::string confidence;            ///< "high" | "medium" | "low" | "none"
  std::string recommendation;        ///< "quantize" | "do_not_quantize" | "depends"
  std::string verdict;               ///< one sentence
  std::optional<double> crossover_b;
  std::vector<Anchor> anchors;
  std::string arch_used;
  bool modelled = false;             ///< true when the number is read off a curve, not an anchor
  double weight_gb = 0;
  double weight_gb_fp16 = 0;
  std::vector<std::string> notes;
  std::string engine;
  std::optional<QualityCost> quality_cost;
  std::optional<EnergyEstimate> energy_estimate;
  std::optional<Curve> curve;        ///< the curve used (without points), if any
};

/// Returns the recommendation for a CI: quantize if the whole CI < 0, do_not_quantize if > 0,
/// else depends (also when there is no CI).
std::string recommend(std::optional<double> ci_low_pct, std::optional<double> ci_high_pct);

/// Answers the question. Errors (invalid_argument / not_found, naming the field): no size, a
/// negative or NaN size, an unknown GPU, architecture or precision, batch or context < 1.
Result<EstimateResponse> estimate(const EstimateRequest& request, const Evidence& evidence);

/// Reads a request from published /v1/estimate JSON (params_b or N, arch, gpu, precision, batch,
/// ctx, q, model, engine); the error names the field.
Result<EstimateRequest> estimate_request_from_json(const Json& body);

/// Estimates absolute FP16 energy per token at `params_b` on an architecture from FP16 anchors
/// of that engine (log E = a + b·log N over the session with the most FP16 sizes); absent without
/// anchors at ≥ 2 sizes.
std::optional<EnergyEstimate> estimate_fp16_energy(const Evidence& evidence, const std::string& arch,
                                                   const std::string& engine, double params_b);

/// Returns the measured quality cost of a precision nearest to `params_b`, if any row has one.
std::optional<QualityCost> find_quality_cost(const Evidence& evidence, const std::string& engine,
                                             const std::string& precision, double params_b);

void to_json(Json& j, const EstimateResponse& response);
void to_json(Json& j, const Anchor& anchor);
void to_json(Json& j, const QualityCost& cost);
void to_json(Json& j, const EnergyEstimate& energy);

}  // namespace ecocompute::data
