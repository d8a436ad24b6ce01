#include "decide/quality_answer.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "util/precision.hpp"
#include "util/statistics.hpp"

namespace ecocompute::decide {

namespace {

// A report's own probe, with its 95 % interval (± kZ95 standard errors where the report gives one).
std::optional<data::FormatQualityCost> own_probe(const report::EnergyReport& r) {
  const auto& quality = r.quality;
  const auto weights = r.workload.weights;
  if (!quality || !quality->delta_vs_fp16_pct || !weights || *weights == report::WeightsKind::synthetic) return std::nullopt;
  data::FormatQualityCost cost;
  const bool real = *weights == report::WeightsKind::real;
  cost.basis = real ? data::QualityBasis::measured : data::QualityBasis::measured_on_fixture;
  cost.basis_text = real ? "measured on this run's weights (" + r.workload.model_name + ")" : "measured on the fixture in this run";
  cost.precision = r.workload.precision;
  cost.delta_ppl_pct = quality->delta_vs_fp16_pct;
  if (quality->delta_vs_fp16_pct_se) {
    cost.delta_ppl_pct_low = *quality->delta_vs_fp16_pct - kZ95 * *quality->delta_vs_fp16_pct_se;
    cost.delta_ppl_pct_high = *quality->delta_vs_fp16_pct + kZ95 * *quality->delta_vs_fp16_pct_se;
    cost.uncertainty = fmt::format("± {} standard errors of the run's own probe", kZ95);
  } else {
    cost.uncertainty = "the run's probe gives no standard error";
  }
  cost.kld = quality->kld;
  if (quality->kld && quality->kld_se) {
    cost.kld_low = std::max(0.0, *quality->kld - kZ95 * *quality->kld_se);
    cost.kld_high = *quality->kld + kZ95 * *quality->kld_se;
  }
  cost.same_top_p_pct = quality->top1_agreement_pct;
  cost.evidence_model = r.workload.model_name;
  cost.evidence_params_b = r.workload.params_b;
  cost.source = "the report's quality section (" + quality->metric + (quality->tokens_evaluated ? fmt::format(", {} tokens", *quality->tokens_evaluated) : "") + ")";
  return cost;
}

}  // namespace

data::FormatQualityCost quality_answer(const Evidence& evidence, const Query& q, const std::string& model_arch) {
  const std::string precision(q.precision.name);
  return data::quality_cost_for(evidence.quality_evidence(q.engine, precision),
                                data::QualityQuestion{.size_b = q.params_b, .model = q.model, .engine = q.engine, .precision = precision, .arch = model_arch});
}

data::FormatQualityCost quality_answer(const Evidence& evidence, const Query& q) { return quality_answer(evidence, q, ""); }

data::FormatQualityCost report_quality(const report::EnergyReport& r, const Evidence& evidence, const Query& q) {
  if (auto own = own_probe(r)) return *own;
  return quality_answer(evidence, q, r.workload.architecture.value_or(""));
}

std::optional<data::FormatQualityCost> row_quality(const Evidence& evidence, const data::DataRow& row) {
  const auto precision = parse_precision(row.precision);
  if (row.delta_perplexity_pct() || !precision || precision->is_baseline) return std::nullopt;
  return data::quality_cost_for(evidence.quality_evidence(row.engine, row.precision),
                                data::QualityQuestion{.size_b = row.params_b, .model = row.model, .engine = row.engine,
                                                      .precision = row.precision, .arch = {}});
}

std::string quality_sentence(const data::FormatQualityCost& cost) {
  if (!cost.delta_ppl_pct) return "Quality: " + cost.reason + ".";
  std::string interval;
  if (cost.delta_ppl_pct_low && cost.delta_ppl_pct_high) {
    interval = fmt::format(" (interval {:+.3g} … {:+.3g} %)", *cost.delta_ppl_pct_low, *cost.delta_ppl_pct_high);
  }
  return fmt::format("Quality: perplexity {:+.3g} % vs F16{}, {}{}.", *cost.delta_ppl_pct, interval, cost.basis_text,
                     cost.note.empty() ? "" : " (" + cost.note + ")");
}

}  // namespace ecocompute::decide
