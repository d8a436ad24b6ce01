// The order in which the evidence answers a quality question (quality_cost.hpp): the fixture, the named
// model's own measurement, llama.cpp's published figures (named model, then the family's transferred),
// the nearest measured model's figure transferred, none. Measured figures of one model carry over to
// another with the spread the measured models themselves show: on the RTX 4090 bitsandbytes runs, NF4's
// ΔPPL ranges ×5.5 over five models of 0.5–7 B (Qwen2.5-3B +27.6 %, TinyLlama-1.1B +5.0 %).
#include <algorithm>
#include <array>
#include <map>
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

std::string row_engine(const MeasuredQuality& m) { return m.canonical_engine.empty() ? canonical_engine_name(m.engine) : m.canonical_engine; }
std::string row_type(const MeasuredQuality& m) {
  return m.canonical_precision.empty() ? canonical_quality_precision(m.precision) : m.canonical_precision;
}

// The group of the engine and format: the evidence's own when it is current, else one made here.
const MeasuredGroup* group_of(const QualityEvidence& evidence, const std::string& engine, const std::string& type,
                              std::vector<MeasuredGroup>& made) {
  const std::vector<MeasuredGroup>* groups = &evidence.measured_groups;
  if (evidence.grouped_rows != evidence.measured.size()) {
    made = group_measured(evidence.measured);
    groups = &made;
  }
  for (const MeasuredGroup& g : *groups) {
    if (g.engine == engine && g.type == type) return &g;
  }
  return nullptr;
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
std::optional<FormatQualityCost> measured_cost(const QualityEvidence& evidence, const MeasuredGroup& g, const QualityQuestion& q,
                                               const std::string& type) {
  const std::string wanted = model_name_key(q.model);
  if (wanted.empty()) return std::nullopt;
  const auto model = std::lower_bound(g.models.begin(), g.models.end(), wanted,
                                      [](const MeasuredGroup::ModelRuns& m, const std::string& key) { return m.key < key; });
  if (model == g.models.end() || model->key != wanted) return std::nullopt;
  // Only runs within the size tolerance can match: those around q's size in the model's order.
  auto size_of = [&](std::size_t i) { return evidence.measured[i].params_b; };
  const auto first = std::lower_bound(model->by_size.begin(), model->by_size.end(), q.size_b / 1.16,
                                      [&](std::size_t i, double size) { return size_of(i) < size; });
  std::vector<std::size_t> matching;
  for (auto it = first; it != model->by_size.end() && size_of(*it) <= q.size_b * 1.16; ++it) {
    if (same_size(size_of(*it), q.size_b)) matching.push_back(*it);
  }
  if (matching.empty()) return std::nullopt;
  std::sort(matching.begin(), matching.end());  // row order: the first run names the source, the mean adds in order
  std::vector<const MeasuredQuality*> runs;
  for (std::size_t i : matching) runs.push_back(&evidence.measured[i]);
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
double measured_model_factor(const MeasuredGroup& g, const std::string& type, const QualityTransferRule& rule) {
  const double fallback = is_low_bit(type) ? rule.low_bit_model_factor : rule.model_factor;
  return g.low_delta > 0 && g.high_delta > g.low_delta ? std::max(g.high_delta / g.low_delta, fallback) : fallback;
}

// The row nearest q's size in log size; of rows equally near, the first in row order.
const MeasuredQuality& nearest_row(const QualityEvidence& evidence, const MeasuredGroup& g, double size_b) {
  auto distance = [&](std::size_t k) { return std::abs(std::log(size_b / evidence.measured[g.by_size[k]].params_b)); };
  const std::size_t n = g.by_size.size();
  const auto above = std::lower_bound(g.by_size.begin(), g.by_size.end(), size_b,
                                      [&](std::size_t i, double size) { return evidence.measured[i].params_b < size; });
  const std::size_t right = static_cast<std::size_t>(above - g.by_size.begin());
  double best = right < n ? distance(right) : HUGE_VAL;
  if (right > 0) best = std::min(best, distance(right - 1));
  std::size_t chosen = evidence.measured.size();
  for (std::size_t k = right; k < n && distance(k) == best; ++k) chosen = std::min(chosen, g.by_size[k]);
  for (std::size_t k = right; k > 0 && distance(k - 1) == best; --k) chosen = std::min(chosen, g.by_size[k - 1]);
  return evidence.measured[chosen];
}

// The nearest measured model's figure (log size), ×/÷ the measured models' factor × the size factor per
// decade; none outside the measured sizes widened by the rule's margin.
FormatQualityCost measured_transfer(const QualityEvidence& evidence, const MeasuredGroup& g, const QualityQuestion& q,
                                    const std::string& type, const QualityTransferRule& rule) {
  const double low = evidence.measured[g.by_size.front()].params_b, high = evidence.measured[g.by_size.back()].params_b;
  const MeasuredQuality* nearest = &nearest_row(evidence, g, q.size_b);
  if (q.size_b < low / rule.size_margin || q.size_b > high * rule.size_margin) {
    return unknown_cost(type, number_text(q.size_b) + " B is outside " + number_text(low / rule.size_margin) + "–" +
                                  number_text(high * rule.size_margin) + " B, the sizes " + type + " was measured at with " +
                                  nearest->engine + " (×" + number_text(rule.size_margin) + " either side)");
  }
  FormatQualityCost cost = from_measured(*nearest, QualityBasis::transferred, type);
  const double decades = std::abs(std::log10(q.size_b / nearest->params_b));
  const double model_factor = measured_model_factor(g, type, rule);
  const double factor = model_factor * std::pow(rule.size_factor_per_decade, decades);
  std::tie(cost.delta_ppl_pct_low, cost.delta_ppl_pct_high) = times_or_divided(*cost.delta_ppl_pct, factor);
  if (cost.kld) std::tie(cost.kld_low, cost.kld_high) = times_or_divided(*cost.kld, factor);
  cost.uncertainty = "×/÷ " + number_text(factor) + " (another model: ×" + number_text(model_factor) + ", the largest ratio between the " +
                     std::to_string(g.by_size.size()) + " measured models' figures; " + number_text(decades) + " decades of size: ×" +
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
  std::vector<MeasuredGroup> made;
  const MeasuredGroup* group = group_of(evidence, engine, type, made);
  if (group != nullptr) {
    if (auto own = measured_cost(evidence, *group, q, type)) return *own;
  }
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
  if (group != nullptr) return measured_transfer(evidence, *group, q, type, rule);
  if (published) return *published;
  return unknown_cost(type, "no published or measured quality figure for " + type + " with " + engine);
}

std::vector<MeasuredGroup> group_measured(const std::vector<MeasuredQuality>& measured) {
  std::vector<MeasuredGroup> groups;
  for (std::size_t i = 0; i < measured.size(); ++i) {
    const MeasuredQuality& m = measured[i];
    if (!(m.params_b > 0) || !std::isfinite(m.params_b)) continue;  // no size: near no question's
    std::string engine = row_engine(m), type = row_type(m);
    auto g = std::find_if(groups.begin(), groups.end(), [&](const MeasuredGroup& x) { return x.engine == engine && x.type == type; });
    if (g == groups.end()) g = groups.insert(groups.end(), MeasuredGroup{std::move(engine), std::move(type), {}, 0, 0, {}});
    g->by_size.push_back(i);
    if (m.delta_ppl_pct > 0) {
      g->low_delta = g->low_delta == 0 ? m.delta_ppl_pct : std::min(g->low_delta, m.delta_ppl_pct);
      g->high_delta = std::max(g->high_delta, m.delta_ppl_pct);
    }
  }
  for (MeasuredGroup& g : groups) {
    std::stable_sort(g.by_size.begin(), g.by_size.end(),
                     [&](std::size_t a, std::size_t b) { return measured[a].params_b < measured[b].params_b; });
    std::map<std::string, std::vector<std::size_t>> runs;
    for (std::size_t i : g.by_size) runs[model_name_key(measured[i].model)].push_back(i);
    for (auto& [key, rows] : runs) g.models.push_back(MeasuredGroup::ModelRuns{key, std::move(rows)});
  }
  return groups;
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
  evidence.measured_groups = group_measured(evidence.measured);
  evidence.grouped_rows = evidence.measured.size();
}

}  // namespace ecocompute::data
