// Estimate: "does quantizing a model of N billion parameters on this GPU (or architecture) with this
// engine save energy per token?" — the prediction of the decision model (prediction.hpp) in the
// published /v1/estimate shape: ΔE with its 95 % predictive interval for the user's card, a
// recommendation from that interval, the basis of every figure, the energy per token, the memory it
// needs, the quality cost with its own basis (quality_answer.hpp) and the measured points of the format. The JSON field names are a
// superset of the published ones.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "data/basis.hpp"
#include "data/quality_cost.hpp"
#include "decide/evidence.hpp"
#include "decide/prediction.hpp"
#include "util/defaults.hpp"
#include "util/json.hpp"
#include "util/json_sink.hpp"
#include "util/result.hpp"

namespace ecocompute::decide {

/// The question. Either params_b or a model name (or free text `q`) with a size in it is required;
/// either gpu or arch. Empty engine means the precision's default engine.
struct EstimateRequest {
  std::optional<double> params_b;
  std::string model;  ///< e.g. "Qwen2.5-14B"; the size is read from it if params_b is unset
  std::string q;      ///< free text ("13B on A100 int8 batch 32 ctx 8k"): what it says overrides the fields
  std::string gpu;
  std::string arch;
  std::string precision{defaults::estimate_precision};
  int batch = defaults::batch;
  int context = defaults::context;
  std::string engine;
  /// Answer for an architecture none of whose cards measured the format (otherwise an error, as in
  /// the published API, but for its hopper → ampere borrow). The answer says what it borrowed.
  bool allow_borrow = false;
};

/// A measured place shown beside an estimate (the published anchor fields N, dE, gpu, n, model, plus
/// ours): ΔE the geometric mean of its sessions', n the number of sessions.
struct Anchor {
  double params_b = 0;
  double delta_pct = 0;
  int n = 1;
  int batch = 1;
  std::string model;
  std::string session;  ///< the session's label, or "3 sessions"
  std::string gpu;
  int context = 0;      ///< the context measured beyond the baseline; 0 at or below it
};

struct EstimateResponse {
  Json input;
  Prediction prediction;             ///< the answer behind every figure below
  std::optional<double> delta_pct;
  std::optional<double> ci_low_pct, ci_high_pct;  ///< the 95 % predictive interval for a new card
  data::Basis basis = data::Basis::unavailable;
  std::string confidence;            ///< high (measured), medium (interpolated), low (otherwise)
  std::string recommendation;        ///< "quantize" | "do_not_quantize" | "depends"
  std::string verdict;
  std::optional<double> crossover_b; ///< where the model's ΔE crosses 0 inside the measured sizes
  std::vector<Anchor> anchors;
  std::vector<std::string> notes;
  data::FormatQualityCost quality_cost;  ///< always present: basis none (with the reason) when unknown
};

/// quantize if the whole interval < 0, do_not_quantize if > 0, else depends (also with no interval).
std::string recommend(std::optional<double> ci_low_pct, std::optional<double> ci_high_pct);

/// The checked question (free text read, size from a model name, GPU and architecture resolved).
Result<Query> resolve_estimate_request(const EstimateRequest& request);

/// Answers the question. Errors (invalid_argument / not_found, naming the field): no size, a size
/// outside the physical range, an unknown GPU, architecture or precision, batch or context < 1, the
/// baseline asked about, and what predict() refuses.
Result<EstimateResponse> estimate(const EstimateRequest& request, const Evidence& evidence);

/// Reads a request from /v1/estimate JSON; the error names the field.
Result<EstimateRequest> estimate_request_from_json(const Json& body);

/// The size where the model's mean ΔE crosses 0 inside the format's measured sizes there, if it does.
std::optional<double> crossover_size(const Evidence& evidence, const Query& q);

/// The answer as JSON: write_json straight into text (util/json_sink.hpp), to_json into a document;
/// the same keys and values either way.
void write_json(JsonSink& sink, const EstimateResponse& response);
void write_json(JsonSink& sink, const Anchor& anchor);
void to_json(Json& j, const EstimateResponse& response);
void to_json(Json& j, const Anchor& anchor);
/// The terminal text of `ecocompute estimate`.
std::string to_text(const EstimateResponse& response);

}  // namespace ecocompute::decide
