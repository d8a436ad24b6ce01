// Estimator: "does quantizing a model of N billion parameters on this GPU / architecture with this
// engine save energy per token?", answered from measured anchors and curves, every figure with its
// basis (measured where, by which session; interpolated; extrapolated; borrowed from what; modelled),
// a band that widens with the distance from the evidence, a CI-based recommendation, the quality cost
// where measured, and the absolute energy per token from the same session as the ΔE.
// The JSON field names are a superset of the published /v1/estimate response.
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
  std::string q;              ///< free text ("13B on A100 int8 batch 32 ctx 8k"): what it says overrides the fields
  std::string gpu;            ///< e.g. "A100"; resolved to its architecture
  std::string arch;           ///< e.g. "ampere"
  std::string precision{defaults::estimate_precision};
  int batch = defaults::batch;
  int context = defaults::context;
  std::string engine;
  /// Answer from another architecture's curve when this one has none and no default borrow exists
  /// (otherwise that is an error, as in the published API). The answer says what it borrowed.
  bool allow_borrow = false;
};

/// A measured point shown beside an estimate (the published anchor fields N, dE, gpu, n, model, plus ours).
struct Anchor {
  double params_b = 0;
  double delta_pct = 0;
  int n = 1;
  std::string model;
  std::string session;
  std::string gpu;
};

/// The measured quality cost of a precision, from the closest measured size.
struct QualityCost {
  double delta_perplexity_pct = 0;
  std::optional<double> kld;
  double measured_at_b = 0;
  std::string model;
  FigureBasis basis;  ///< measured (that size) or borrowed (the nearest measured size: said so)
  std::string note;
};

/// An absolute energy per token: the FP16 baseline and ΔE of the same session.
struct EnergyEstimate {
  double fp16_mj_per_token = 0;
  double mj_per_token = 0;   ///< measured, or fp16 × (1 + ΔE/100) [× batch amortization]
  std::optional<double> low_mj_per_token, high_mj_per_token;  ///< from the ΔE band, the FP16 spread and the model range
  std::string method;
  std::string session_id;    ///< the session both energies come from
  FigureBasis basis;         ///< of mj_per_token
  FigureBasis fp16_basis;    ///< of fp16_mj_per_token
  /// FP16 energy at the batch over batch 1, applied to both energies; empty where the batch was measured
  std::optional<double> batch_factor;
};

/// The parts of a band's half-width (95 %, percentage points), combined in quadrature.
struct BandTerms {
  std::optional<double> within_session;    ///< the anchor's CI, else the curve's confidence band (or ±1.96·resid)
  std::optional<double> between_sessions;  ///< 1.96·τ, τ the random-effects spread of sessions measuring this key
  double extrapolation = 0;                ///< 1.96·1.2·(max(resid, 2) + 4)·|ln(N / nearest measured size)|
  double borrowing = 0;                    ///< 1.96·10 for another architecture's curve, 1.96·5 for another GPU
  double batch_model = 0;                  ///< 1.96·σ of the batch / context model
  double half_width = 0;                   ///< √(sum of squares); 0 when nothing supports a band
  std::string between_sessions_note;       ///< why the between-session term is what it is
};

/// The answer (published /v1/estimate fields plus figure bases, band terms, quality, energy, curve).
struct EstimateResponse {
  Json input;                        ///< the resolved question
  std::optional<double> delta_pct;   ///< absent when basis is unavailable
  std::optional<double> ci_low_pct, ci_high_pct;  ///< 95 %: delta_pct ± band.half_width (low end ≥ −100)
  std::string ci_kind;               ///< where the within-session part comes from
  Basis basis = Basis::unavailable;  ///< of delta_pct (the published `basis`)
  FigureBasis delta_basis;           ///< the same, with sessions, GPU and what was borrowed or modelled
  BandTerms band;
  std::string confidence;            ///< "high" | "medium" | "low" | "none"
  std::string recommendation;        ///< "quantize" | "do_not_quantize" | "depends"
  std::string verdict;               ///< one sentence
  std::optional<double> crossover_b;
  std::vector<Anchor> anchors;
  std::string arch_used;
  bool modelled = false;             ///< batch / context outside the measured baseline: the published meaning
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

/// Answers the question. Errors (invalid_argument / not_found, naming the field): no size, a size
/// outside the physical range, an unknown GPU, architecture or precision, batch or context < 1, and no
/// curve for the architecture (nor a default borrow, nor allow_borrow) — as the published API does.
Result<EstimateResponse> estimate(const EstimateRequest& request, const Evidence& evidence);

/// Reads a request from /v1/estimate JSON (params_b or N, arch, gpu, precision, batch, ctx or context,
/// q or query, model, engine, allow_borrow); the error names the field.
Result<EstimateRequest> estimate_request_from_json(const Json& body);

/// Returns the measured quality cost of a precision nearest to `params_b`, if any row has one.
std::optional<QualityCost> find_quality_cost(const Evidence& evidence, const std::string& engine,
                                             const std::string& precision, double params_b);

void to_json(Json& j, const EstimateResponse& response);
void to_json(Json& j, const Anchor& anchor);
void to_json(Json& j, const QualityCost& cost);
void to_json(Json& j, const EnergyEstimate& energy);
void to_json(Json& j, const BandTerms& band);

}  // namespace ecocompute::data
