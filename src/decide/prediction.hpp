// predict(evidence, query): the one answer behind estimate, optimize, check, compare, the REST API,
// the MCP tools and the site. For a question (model size, GPU or architecture, engine, precision,
// batch, context) it gives ΔE vs F16, the F16 energy and the format's energy per token, each with its
// 95 % predictive interval for a new card of that GPU model and its basis, and whether weights and
// KV cache fit in the GPU's memory. Continuous in size, batch (within a kernel regime) and context.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "data/gpu_spec.hpp"
#include "decide/basis_detail.hpp"
#include "decide/evidence.hpp"
#include "decide/figure.hpp"
#include "decide/memory_fit.hpp"
#include "util/defaults.hpp"
#include "util/kept_answers.hpp"
#include "util/precision.hpp"
#include "util/result.hpp"

namespace ecocompute::decide {

/// A checked question.
struct Query {
  double params_b = 0;              ///< every parameter: what the weights take in memory
  /// A mixture of experts: the parameters one token passes through, which set the compute and the KV
  /// cache per token (the model is asked at this size); absent for a dense model.
  std::optional<double> active_params_b;
  std::string model;                ///< as asked, for the answer's text ("" when a size was given)
  std::string arch;
  std::optional<data::GpuSpec> gpu; ///< the GPU named, if any
  std::string engine;
  PrecisionInfo precision;          ///< a quantized format, or the baseline (F16) for its energy alone
  int batch = 1;
  int context = 2048;
  bool allow_borrow = false;        ///< answer for an architecture none of whose cards measured the format
};

struct Prediction {
  Query query;
  std::string gpu;                  ///< the GPU model the answer is for (the one named, else the architecture's measured one)
  std::string arch_used;            ///< the architectures whose measurements answer (with BasisDetail::kind_only: the one asked)
  std::optional<Figure> delta;      ///< ΔE % vs F16 (quantized formats)
  std::optional<Figure> fp16_energy;  ///< F16 energy per token at this batch and context, mJ
  std::optional<Figure> energy;     ///< the format's energy per token, mJ (F16's for the baseline)
  MemoryFit memory;
  bool modelled = false;            ///< a part of the answer rests on a model no measurement here checks
  std::vector<std::string> notes;
};

/// The size the model is asked at: the active parameters of a mixture of experts, else every parameter.
inline double compute_params_b(const Query& q) { return q.active_params_b.value_or(q.params_b); }

/// F16's figure at one question's engine, size, batch and context, with the architectures that answer.
struct F16Part {
  Result<Figure> figure;
  std::string arch_used;
};
/// F16's figures for predictions that differ in their format only (an optimize grid): F16 depends on the
/// engine, architecture, GPU, size, batch and context, not on the format asked about, so a grid works
/// each out once per batch and context instead of once per format. For one evidence and one BasisDetail.
using KeptF16 = util::KeptAnswers<F16Part>;

/// Answers a question. Errors: not_found when the format was never measured with the engine, or not
/// on the architecture and no borrow applies (the published hopper → ampere, or allow_borrow), or a
/// borrow needs a spread no data measured; invalid_argument for a batch or context below 1.
Result<Prediction> predict(const Evidence& evidence, const Query& query, KeptF16* kept_f16 = nullptr,
                           BasisDetail detail = BasisDetail::full);

/// The GPU model a question is answered for: the one named, else the one of its architecture that
/// measured the format at the most places, else the architecture's representative GPU.
std::string answer_gpu(const Evidence& evidence, const Query& query);

/// The baseline context: contexts up to it are one place (the published convention: short prompts);
/// beyond it the model adds its fitted context effect per ln(context / baseline) (fixed_effects.hpp).
inline constexpr int kBaselineContext = defaults::baseline_context;

void to_json(Json& j, const Prediction& p);

}  // namespace ecocompute::decide
