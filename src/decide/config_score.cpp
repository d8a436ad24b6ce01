// One configuration's figures, each with its basis (see config_score.hpp).
#include "decide/config_score.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "decide/estimate.hpp"
#include "decide/prediction.hpp"
#include "decide/quality_answer.hpp"

namespace ecocompute::decide {
namespace {

struct Step {
  double seconds = 0;
  std::string bound;
};

// Decode step time (one token for each of `batch` sequences): the larger of reading every weight a token
// passes through plus the KV cache once, and 2·N·batch FLOPs at the datasheet's dense throughput (N the
// active parameters of a mixture of experts).
Step roofline_step(const data::GpuSpec& gpu, const PrecisionInfo& p, double params_b, int batch, int context) {
  const double weight_bytes = weight_gb(params_b, p) * 1e9;
  const double kv_bytes = kv_cache_gb(params_b, context, batch) * 1e9;
  const double memory_s = (weight_bytes + kv_bytes) / (gpu.memory_bandwidth_gbps * 1e9);
  const double peak = (p.name == "INT8" ? gpu.int8_tops : gpu.fp16_tflops) * 1e12;
  const double compute_s = 2.0 * params_b * 1e9 * batch / peak;
  return compute_s > memory_s ? Step{compute_s, "compute"} : Step{memory_s, "memory"};
}

// Energy figures are as good as their basis; latency is modelled, so a configuration is at most medium.
std::string configuration_confidence(data::Basis energy) {
  return energy == data::Basis::measured || energy == data::Basis::interpolated ? "medium" : "low";
}

void score_energy(const Prediction& p, std::optional<double> fp16_batch_one_mj, Candidate& c) {
  if (p.energy) {
    c.energy_mj_per_token = p.energy->value;
    c.energy_low_mj = p.energy->low;
    c.energy_high_mj = p.energy->high;
    c.energy_basis = p.energy->basis;
    if (fp16_batch_one_mj && *fp16_batch_one_mj > 0) c.relative_energy = p.energy->value / *fp16_batch_one_mj;
  } else {
    c.energy_basis = data::FigureBasis{};
    c.energy_basis.label = "no F16 energy to carry the answer to an energy per token";
  }
  c.confidence = configuration_confidence(c.energy_basis.basis);
  if (p.delta) {
    c.delta_pct = p.delta->value;
    c.delta_ci_low_pct = p.delta->low;
    c.delta_ci_high_pct = p.delta->high;
    c.recommendation = recommend(c.delta_ci_low_pct, c.delta_ci_high_pct);
  } else {
    c.delta_pct = 0.0;
    c.delta_ci_low_pct = 0.0;
    c.delta_ci_high_pct = 0.0;
    c.recommendation = "baseline";
  }
}

}  // namespace

Result<Candidate> score_config(const ConfigQuestion& question, const PrecisionInfo& precision, const std::string& engine, int batch,
                               int context, std::optional<double> fp16_batch_one_mj, const Evidence& evidence,
                               std::shared_ptr<const data::FormatQualityCost>& quality, KeptF16* kept_f16, BasisDetail detail) {
  Query q;
  q.params_b = question.params_b;
  q.active_params_b = question.active_params_b;
  q.model = question.model;
  q.arch = question.gpu.arch;
  if (question.gpu_named) q.gpu = question.gpu;
  q.engine = engine;
  q.precision = precision;
  q.batch = batch;
  q.context = context;
  q.allow_borrow = question.allow_borrow;
  auto p = predict(evidence, q, kept_f16, detail);
  if (!p) return p.error();
  Candidate c;
  c.precision = precision.name;
  c.engine = engine;
  c.batch = batch;
  c.context = context;
  score_energy(*p, fp16_batch_one_mj, c);
  if (precision.is_baseline) {
    c.delta_ppl_pct = 0.0;
    c.kld = 0.0;
  } else {
    if (!quality) quality = std::make_shared<const data::FormatQualityCost>(quality_answer(evidence, q));
    c.quality = quality;
    c.delta_ppl_pct = c.quality->delta_ppl_pct;
    c.kld = c.quality->kld;
  }
  const Step step = roofline_step(question.gpu, precision, compute_params_b(q), batch, context);
  c.latency_ms_per_token = step.seconds * 1000;
  c.throughput_tok_s = batch / step.seconds;
  c.bound = step.bound;
  c.vram_gb = p->memory.total_gb;
  c.latency_basis.basis = data::Basis::modelled;
  if (detail == BasisDetail::full) {
    c.latency_basis = data::modelled_basis(fmt::format("roofline of the {} datasheet ({:g} GB/s, {:g} TFLOP/s FP16): an ideal-kernel lower bound{}",
                                                     question.gpu.name, question.gpu.memory_bandwidth_gbps, question.gpu.fp16_tflops,
                                                     question.gpu_named ? "" : fmt::format(", {} standing for {}", question.gpu.name, question.gpu.arch)));
  }
  c.vram_basis = p->memory.basis;
  return c;
}

}  // namespace ecocompute::decide
