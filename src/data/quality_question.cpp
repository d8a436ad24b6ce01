// The order in which the evidence answers a quality question (quality_cost.hpp): the fixture, the named
// model's own measurement, llama.cpp's published figures (named model, then the family's transferred),
// the nearest measured model's figure transferred, none. Measured figures of one model carry over to
// another with the spread the measured models themselves show: on the RTX 4090 bitsandbytes runs, NF4's
// ΔPPL ranges ×5.5 over five models of 0.5–7 B (Qwen2.5-3B +27.6 %, TinyLlama-1.1B +5.0 %).
#include <algorithm>
#include <array>
#include <tuple>
#include <cmath>

#include "data/engine_name.hpp"
#include "data/quality_cost.hpp"
#include "data/quality_cost_detail.hpp"

namespace ecocompute::data {
namespace {

using namespace quality_detail;

// "Qwen/Qwen2.5-3B" names the same model as "Qwen2.5-3B": the organisation prefix is not part of the name.
std::string model_name_key(std::string_view model) {
  const auto slash = model.rfind('/');
  return squashed_name(slash == std::string_view::npos ? model : model.substr(slash + 1));
}

bool same_size(double a, double b) { return std::abs(std::log(a / b)) <= std::log(1.15); }

std::vector<const MeasuredQuality*> measured_rows(const QualityEvidence& evidence, const std::string& engine,
                                                  const std::string& type) {
  std::vector<const MeasuredQuality*> out;
  for (const MeasuredQuality& m : evidence.measured) {
    const bool same_engine = (m.canonical_engine.empty() ? canonical_engine_name(m.engine) : m.canonical_engine) == engine;
    if (same_engine && (m.canonical_precision.empty() ? canonical_quality_precision(m.precision) : m.canonical_precision) == type) {
      out.push_back(&m);
    }
  }
  return out;
}

FormatQualityCost from_measured(const MeasuredQuality& m, QualityBasis basis, const std::string& type) {
  FormatQualityCost cost;
  cost.basis = basis;
  cost.basis_text = (basis == QualityBasis::measured ? "measured on " : "transferred from ") + m.model;
  cost.precision = type;
  cost.delta_ppl_pct = m.delta_ppl_pct;
  cost.kld = m.kld;
  cost.evidence_model = m.model;
  cost.evidence_params_b = m.params_b;
  cost.source = "our quality probe on " + m.model + "'s weights with " + m.engine + " (" + m.gpu + "): " + m.source;
  return cost;
}

// The named model's own runs (same engine, same size): their mean, the interval their range.
std::optional<FormatQualityCost> measured_cost(const std::vector<const MeasuredQuality*>& rows, const QualityQuestion& q,
                                               const std::string& type) {
  const std::string wanted = model_name_key(q.model);
  if (wanted.empty()) return std::nullopt;
  std::vector<const MeasuredQuality*> runs;
  for (const MeasuredQuality* m : rows) {
    if (same_size(m->params_b, q.size_b) && wanted == model_name_key(m->model)) runs.push_back(m);
  }
  if (runs.empty()) return std::nullopt;
  FormatQualityCost cost = from_measured(*runs.front(), QualityBasis::measured, type);
  std::vector<double> figures;
  for (const MeasuredQuality* m : runs) figures.push_back(m->delta_ppl_pct);
  set_mean_and_range(cost, figures);
  cost.uncertainty = runs.size() == 1 ? "one run: no interval of its own (the figure as measured)"
                                      : "the range of " + std::to_string(runs.size()) + " runs";
  if (runs.size() > 1) cost.source += " and " + std::to_string(runs.size() - 1) + " more runs";
  return cost;
}

// The largest ratio between two measured models' figures of this engine and format: how far one model's
// figure may be from another's, as these data show it; the published rule's model factor when there is
// only one model.
double measured_model_factor(const std::vector<const MeasuredQuality*>& rows, const std::string& type,
                             const QualityTransferRule& rule) {
  double low = 0, high = 0;
  for (const MeasuredQuality* m : rows) {
    if (!(m->delta_ppl_pct > 0)) continue;
    low = low == 0 ? m->delta_ppl_pct : std::min(low, m->delta_ppl_pct);
    high = std::max(high, m->delta_ppl_pct);
  }
  const double fallback = is_low_bit(type) ? rule.low_bit_model_factor : rule.model_factor;
  return low > 0 && high > low ? std::max(high / low, fallback) : fallback;
}

// The nearest measured model's figure (log size), ×/÷ the measured models' factor × the size factor per
// decade; none outside the measured sizes widened by the rule's margin.
FormatQualityCost measured_transfer(const std::vector<const MeasuredQuality*>& rows, const QualityQuestion& q,
                                    const std::string& type, const QualityTransferRule& rule) {
  const MeasuredQuality* nearest = nullptr;
  double low = rows.front()->params_b, high = low;
  for (const MeasuredQuality* m : rows) {
    low = std::min(low, m->params_b);
    high = std::max(high, m->params_b);
    if (nearest == nullptr || std::abs(std::log(q.size_b / m->params_b)) < std::abs(std::log(q.size_b / nearest->params_b))) nearest = m;
  }
  if (q.size_b < low / rule.size_margin || q.size_b > high * rule.size_margin) {
    return unknown_cost(type, number_text(q.size_b) + " B is outside " + number_text(low / rule.size_margin) + "–" +
                                  number_text(high * rule.size_margin) + " B, the sizes " + type + " was measured at with " +
                                  nearest->engine + " (×" + number_text(rule.size_margin) + " either side)");
  }
  FormatQualityCost cost = from_measured(*nearest, QualityBasis::transferred, type);
  const double decades = std::abs(std::log10(q.size_b / nearest->params_b));
  const double model_factor = measured_model_factor(rows, type, rule);
  const double factor = model_factor * std::pow(rule.size_factor_per_decade, decades);
  std::tie(cost.delta_ppl_pct_low, cost.delta_ppl_pct_high) = times_or_divided(*cost.delta_ppl_pct, factor);
  if (cost.kld) std::tie(cost.kld_low, cost.kld_high) = times_or_divided(*cost.kld, factor);
  cost.uncertainty = "×/÷ " + number_text(factor) + " (another model: ×" + number_text(model_factor) + ", the largest ratio between the " +
                     std::to_string(rows.size()) + " measured models' figures; " + number_text(decades) + " decades of size: ×" +
                     number_text(rule.size_factor_per_decade) + " per decade)";
  return cost;
}

}  // namespace

std::string model_arch_family(std::string_view model_name) {
  const std::string name = model_name_key(model_name);
  static constexpr std::array<std::pair<const char*, const char*>, 10> kFamilies{{
      {"qwen", "qwen2"}, {"llama", "llama"}, {"mistral", "llama"}, {"mixtral", "llama"}, {"vicuna", "llama"},
      {"phi", "phi3"}, {"gemma", "gemma"}, {"falcon", "falcon"}, {"deepseek", "deepseek2"}, {"gpt", "gpt"}}};
  for (const auto& [marker, family] : kFamilies) {
    if (name.find(marker) != std::string::npos) return family;
  }
  return "";
}

FormatQualityCost quality_cost_for(const QualityEvidence& evidence, const QualityQuestion& q, const QualityTransferRule& rule) {
  const std::string type = canonical_quality_precision(q.precision);
  if (!(q.size_b > 0) || !std::isfinite(q.size_b)) return unknown_cost(type, "no model size");
  const std::string named_family = squashed_name(q.arch.empty() ? model_arch_family(q.model) : q.arch);
  // A model whose name says no architecture is answered as the llama family, and the answer says so.
  const std::string family = named_family.empty() ? "llama" : named_family;
  if (auto fixture = fixture_cost(evidence, q.size_b, family, type)) return *fixture;
  const std::string engine = canonical_engine_name(q.engine);
  const std::vector<const MeasuredQuality*> rows = measured_rows(evidence, engine, type);
  if (auto own = measured_cost(rows, q, type)) return *own;
  std::optional<FormatQualityCost> published;
  if (engine == "llama.cpp") {
    published = published_quality_cost(evidence, q.size_b, family, type, q.model, rule);
    if (published->basis != QualityBasis::none) {
      if (named_family.empty() && published->basis == QualityBasis::transferred) {
        published->note = (q.model.empty() ? std::string("the model is not named") : "the architecture of " + q.model + " is not known") +
                          ": the llama family's figure, assuming a llama-family model";
      }
      return *published;
    }
  }
  if (!rows.empty()) return measured_transfer(rows, q, type, rule);
  if (published) return *published;
  return unknown_cost(type, "no published or measured quality figure for " + type + " with " + engine);
}

void add_measured_quality(QualityEvidence& evidence, const std::vector<DataRow>& rows) {
  for (const DataRow& r : rows) {
    auto delta = r.delta_perplexity_pct();
    if (!delta) continue;
    const std::string source = "session " + r.session_id + ", row " + r.row_key;
    if (r.weights == "trained-fixture") {
      evidence.fixture.push_back(FixtureQuality{r.model, r.params_b, "llama", r.precision, *delta, r.kld, source});
    } else if (r.weights == "real") {
      evidence.measured.push_back(MeasuredQuality{r.model, r.params_b, r.engine, r.precision, *delta, r.kld, r.gpu, source,
                                                  canonical_engine_name(r.engine), canonical_quality_precision(r.precision)});
    }
  }
}

}  // namespace ecocompute::data
