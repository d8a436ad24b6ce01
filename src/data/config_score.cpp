// One configuration's figures, each with its basis.
#include "data/config_score.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "data/batch_model.hpp"
#include "data/batch_scaling.hpp"
#include "data/estimator.hpp"
#include "data/session_energy.hpp"
#include "util/statistics.hpp"

namespace ecocompute::data {
namespace {

constexpr double kRuntimeOverhead = 1.10;

struct Step {
  double seconds = 0;
  std::string bound;
};

// Decode step time (one token for each of `batch` sequences): the larger of reading every weight plus
// the KV cache once, and 2·N·batch FLOPs at the datasheet's dense throughput.
Step roofline_step(const GpuSpec& gpu, const PrecisionInfo& p, double params_b, int batch, int context) {
  const double weight_bytes = weight_gb(params_b, p) * 1e9;
  const double kv_bytes = kKvBytesPerTokenPerBillion * params_b * context * batch;
  const double memory_s = (weight_bytes + kv_bytes) / (gpu.memory_bandwidth_gbps * 1e9);
  const double peak = (p.name == "INT8" ? gpu.int8_tops : gpu.fp16_tflops) * 1e12;
  const double compute_s = 2.0 * params_b * 1e9 * batch / peak;
  return compute_s > memory_s ? Step{compute_s, "compute"} : Step{memory_s, "memory"};
}

// The FP16 baseline's own energy for the FP16 candidate: the reference session of the architecture
// (or of the one it borrows from, said so), measured at that batch where measured, else batch 1 ×
// the batch model.
void score_baseline_energy(const ConfigQuestion& q, const std::string& engine, int batch, int context, const Evidence& evidence,
                           Candidate& c) {
  std::string arch = q.gpu.arch;
  std::string borrowed_from;
  auto session = fp16_reference_session(evidence.rows, evidence.sessions, arch, engine);
  if (!session) {
    std::vector<std::string> tries;
    if (auto b = default_borrow(arch)) tries.push_back(*b);
    if (q.allow_borrow) {
      for (const std::string& a : architectures_nearest_to(arch)) tries.push_back(a);
    }
    for (const std::string& a : tries) {
      if ((session = fp16_reference_session(evidence.rows, evidence.sessions, a, engine))) {
        borrowed_from = a;
        break;
      }
    }
  }
  c.delta_pct = 0.0;
  c.delta_ci_low_pct = 0.0;
  c.delta_ci_high_pct = 0.0;
  c.recommendation = "baseline";
  // The FP16 batch scaling of the architecture whose session gives the baseline (the asked one when none does).
  auto scaling = [&] { return batch_scaling(evidence.rows, borrowed_from.empty() ? arch : borrowed_from, engine, q.params_b, batch); };
  if (!session) {
    c.relative_energy = scaling().value;
    c.energy_basis = modelled_basis("energy relative to FP16 only: no FP16 energies for " + arch + " with " + engine);
    c.energy_basis.basis = batch > 1 ? Basis::modelled : Basis::unavailable;
    c.confidence = "low";
    return;
  }
  // At a batch size the session measured at this size, its own baseline; else batch 1 and the model.
  std::optional<SessionEnergy> fp16;
  if (batch > 1) {
    fp16 = session_fp16_energy(evidence.rows, SessionRows{*session, engine, "", batch}, q.params_b);
    if (fp16 && fp16->basis != Basis::measured) fp16.reset();
  }
  const bool batch_measured = fp16.has_value();
  const auto at_batch_one = session_fp16_energy(evidence.rows, SessionRows{*session, engine, "", 1}, q.params_b);
  if (!fp16) fp16 = at_batch_one;
  if (!fp16 || !at_batch_one) {
    c.relative_energy = scaling().value;
    c.energy_basis = modelled_basis("energy relative to FP16 only: the session has FP16 energies at fewer than two sizes");
    c.confidence = "low";
    return;
  }
  FigureBasis& b = c.energy_basis;
  b.basis = fp16->basis;
  b.sessions = {session_label(evidence, *session)};
  b.gpu = fp16->gpu;
  b.arch = borrowed_from.empty() ? arch : borrowed_from;
  b.label = fmt::format("FP16 {} on {} (session {}): {}", to_string(fp16->basis), fp16->gpu, b.sessions.front(), fp16->method);
  if (!borrowed_from.empty()) {
    b.borrowed_from = fmt::format("the {} baseline ({})", borrowed_from, fp16->gpu);
    b = b.at_most(Basis::borrowed, fmt::format("borrowed: no FP16 energies for {}", arch));
  } else if (q.gpu_named) {
    auto measured_on = find_gpu(fp16->gpu);
    if (!measured_on || measured_on->name != q.gpu.name) {
      b.borrowed_from = fmt::format("{} (same architecture, {})", fp16->gpu, arch);
      b = b.at_most(Basis::borrowed, fmt::format("borrowed: measured on {}, not on the {} asked about", fp16->gpu, q.gpu.name));
    }
  }
  double value = fp16->mj_per_token, low = value, high = value;
  c.relative_energy = fp16->mj_per_token / at_batch_one->mj_per_token;
  if (batch > 1 && !batch_measured) {
    // The session's own sweep, else another session's at this size, another size's, or the model.
    const BatchScaling a = scaling();
    low = value * a.low;
    high = value * a.high;
    value *= a.value;
    c.relative_energy = a.value;
    b = scaled_basis(b, a, batch);
  }
  if (context > kBaselineContext) {
    b = b.at_most(Basis::modelled, fmt::format("context {} not measured: taken as the baseline context's energy", context));
    if (b.model.empty()) b.model = "energy per token independent of context beyond 2048";
  }
  double spread = 0;
  if (const SessionSpread* s = find_spread(evidence.fp16_spreads, CurveKey{b.arch, engine, "FP16"})) spread = s->tau;
  c.energy_mj_per_token = value;
  c.energy_low_mj = low * std::exp(-kZ95 * spread);
  c.energy_high_mj = high * std::exp(kZ95 * spread);
  c.confidence = b.basis == Basis::measured || b.basis == Basis::interpolated ? "medium" : "low";
}

void score_quantized_energy(const EstimateResponse& e, const Evidence& evidence, Candidate& c) {
  c.delta_pct = e.delta_pct;
  c.delta_ci_low_pct = e.ci_low_pct;
  c.delta_ci_high_pct = e.ci_high_pct;
  c.recommendation = e.recommendation;
  c.confidence = e.confidence == "high" ? "medium" : e.confidence;  // latency is modelled: never high overall
  if (e.quality_cost) {
    c.delta_ppl_pct = e.quality_cost->delta_perplexity_pct;
    c.kld = e.quality_cost->kld;
  }
  if (e.energy_estimate) {
    c.energy_mj_per_token = e.energy_estimate->mj_per_token;
    c.energy_low_mj = e.energy_estimate->low_mj_per_token;
    c.energy_high_mj = e.energy_estimate->high_mj_per_token;
    c.energy_basis = e.energy_estimate->basis;
    // Relative to the same session's FP16 at batch 1. A modelled batch scales both energies alike; a
    // measured one is divided by that session's own batch-1 baseline.
    const EnergyEstimate& energy = *e.energy_estimate;
    c.relative_energy = energy.mj_per_token / energy.fp16_mj_per_token;
    if (energy.batch_factor) {
      *c.relative_energy *= *energy.batch_factor;
    } else if (c.batch > 1) {
      const auto one = session_fp16_energy(evidence.rows, SessionRows{energy.session_id, c.engine, c.precision, 1}, e.input.value("params_b", 0.0));
      if (one) c.relative_energy = energy.mj_per_token / one->mj_per_token;
    }
  } else if (e.delta_pct) {
    c.energy_basis = e.delta_basis;
    const double params_b = e.input.value("params_b", 0.0);
    c.relative_energy = (1 + *e.delta_pct / 100) * batch_scaling(evidence.rows, e.delta_basis.arch, c.engine, params_b, c.batch).value;
  }
}

}  // namespace

Result<Candidate> score_config(const ConfigQuestion& q, const PrecisionInfo& p, const std::string& engine, int batch, int context,
                               const Evidence& evidence) {
  Candidate c;
  c.precision = p.name;
  c.engine = engine;
  c.batch = batch;
  c.context = context;
  if (p.is_baseline) {
    score_baseline_energy(q, engine, batch, context, evidence, c);
    c.delta_ppl_pct = 0.0;
    c.kld = 0.0;
  } else {
    EstimateRequest er;
    er.params_b = q.params_b;
    if (q.gpu_named) {
      er.gpu = q.gpu.name;
    } else {
      er.arch = q.gpu.arch;
    }
    er.precision = p.name;
    er.engine = engine;
    er.batch = batch;
    er.context = context;
    er.allow_borrow = q.allow_borrow;
    auto e = estimate(er, evidence);
    if (!e) return e.error();
    score_quantized_energy(*e, evidence, c);
  }
  const Step step = roofline_step(q.gpu, p, q.params_b, batch, context);
  c.latency_ms_per_token = step.seconds * 1000;
  c.throughput_tok_s = batch / step.seconds;
  c.bound = step.bound;
  c.vram_gb = (weight_gb(q.params_b, p) + kKvBytesPerTokenPerBillion * q.params_b * context * batch / 1e9) * kRuntimeOverhead;
  c.latency_basis = modelled_basis(fmt::format("roofline of the {} datasheet ({:g} GB/s, {:g} TFLOP/s FP16): an ideal-kernel lower bound{}",
                                               q.gpu.name, q.gpu.memory_bandwidth_gbps, q.gpu.fp16_tflops,
                                               q.gpu_named ? "" : fmt::format(", {} standing for {}", q.gpu.name, q.gpu.arch)));
  c.vram_basis = modelled_basis(fmt::format("weights ({:g} bits per weight) + KV cache ({:g} KiB per token per billion parameters) "
                                            "+ {:.0f} % runtime overhead",
                                            p.bits_per_weight, kKvBytesPerTokenPerBillion / 1024, (kRuntimeOverhead - 1) * 100));
  return c;
}

}  // namespace ecocompute::data
