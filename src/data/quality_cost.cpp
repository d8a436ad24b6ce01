// The transfer rule. A quantization's relative perplexity change depends on the model: the published
// tables show another model of the same family and size losing up to twice as much (LLaMA 3 8B vs
// LLaMA 2 7B) and a ten times larger one up to 1.5 times less (LLaMA 2 70B vs 7B). So a figure carries
// over inside a family, near the sizes it was published for, with an interval of ×/÷ those factors;
// outside that the answer is "unknown for this model".
#include "data/quality_cost.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <tuple>

#include "data/quality_cost_detail.hpp"
#include "util/precision.hpp"

namespace ecocompute::data {
namespace quality_detail {

std::string squashed_name(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (std::isalnum(static_cast<unsigned char>(c))) out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return out;
}

std::string canonical_quality_precision(std::string_view precision) {
  if (auto name = project_precision_name(precision)) return *name;
  std::string out(precision);
  for (char& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

// Below 4 bits a model's sensitivity differs much more between models (Q2_K: ×5.2 between LLaMA 2 7B and
// LLaMA 3 8B), so those types get the wider factor.
bool is_low_bit(std::string_view precision) {
  auto info = parse_precision(precision);
  if (!info) return true;  // a type outside the table: the wider factor, to be safe
  return info->precision_class == "3-bit" || info->precision_class == "2-bit";
}

std::string number_text(double v) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.3g", v);
  return buffer;
}

std::pair<double, double> times_or_divided(double v, double factor) {
  return {std::min(v / factor, v * factor), std::max(v / factor, v * factor)};
}

void set_mean_and_range(FormatQualityCost& cost, const std::vector<double>& runs) {
  if (runs.empty()) return;
  double sum = 0;
  for (double v : runs) sum += v;
  cost.delta_ppl_pct = sum / static_cast<double>(runs.size());
  cost.delta_ppl_pct_low = *std::min_element(runs.begin(), runs.end());
  cost.delta_ppl_pct_high = *std::max_element(runs.begin(), runs.end());
}

}  // namespace quality_detail

using namespace quality_detail;

namespace {

// The row a model's figure is read from: no importance matrix first (what `quantize` makes), then one
// that does not say, then the first with one.
const PublishedQualityRow* preferred_row(const std::vector<const PublishedQualityRow*>& rows) {
  for (std::string_view wanted : {"none", "not stated"}) {
    for (const PublishedQualityRow* r : rows) {
      if (r->imatrix == wanted) return r;
    }
  }
  return rows.empty() ? nullptr : rows.front();
}

FormatQualityCost from_row(const PublishedQualityRow& row, QualityBasis basis, const std::string& precision) {
  FormatQualityCost cost;
  cost.basis = basis;
  cost.basis_text = std::string(basis == QualityBasis::published ? "published for " : "transferred from ") + row.model;
  cost.precision = precision;
  cost.source = row.provenance() + "; " + row.corpus + ", backend " + row.backend + ", imatrix " + row.imatrix;
  cost.delta_ppl_pct = row.delta_ppl_pct->value;
  auto value = [](const std::optional<QualityFigure>& f) { return f ? std::optional<double>(f->value) : std::nullopt; };
  cost.kld = value(row.kld);
  cost.mean_dp_pct = value(row.mean_dp_pct);
  cost.rms_dp_pct = value(row.rms_dp_pct);
  cost.same_top_p_pct = value(row.same_top_p_pct);
  cost.imatrix = row.imatrix;
  cost.evidence_model = row.model;
  cost.evidence_params_b = row.params_b;
  return cost;
}

}  // namespace

FormatQualityCost quality_detail::unknown_cost(const std::string& precision, std::string reason) {
  FormatQualityCost cost;
  cost.basis_text = "none";
  cost.precision = precision;
  cost.reason = "unknown for this model: " + std::move(reason);
  return cost;
}

// Our probe's figure when the question is the fixture itself (its size and family): the mean of the runs,
// the interval their range.
std::optional<FormatQualityCost> quality_detail::fixture_cost(const QualityEvidence& evidence, double size_b,
                                                              std::string_view family, const std::string& precision) {
  std::vector<const FixtureQuality*> runs;
  for (const FixtureQuality& f : evidence.fixture) {
    const bool same_size = std::abs(f.params_b - size_b) <= 0.15 * std::max(f.params_b, size_b);
    if (same_size && f.arch_family == family && canonical_quality_precision(f.precision) == precision) runs.push_back(&f);
  }
  if (runs.empty()) return std::nullopt;
  FormatQualityCost cost;
  cost.basis = QualityBasis::measured_on_fixture;
  cost.basis_text = "measured on the fixture";
  cost.precision = precision;
  std::vector<double> figures;
  for (const FixtureQuality* f : runs) figures.push_back(f->delta_ppl_pct);
  set_mean_and_range(cost, figures);
  cost.kld = runs.front()->kld;
  cost.evidence_model = runs.front()->model;
  cost.evidence_params_b = runs.front()->params_b;
  cost.source = "our quality probe on " + runs.front()->model + ": " + runs.front()->source +
                (runs.size() > 1 ? " and " + std::to_string(runs.size() - 1) + " more runs" : "");
  cost.uncertainty = "the range of " + std::to_string(runs.size()) + " measured run(s)";
  return cost;
}

namespace {

// The published figure with its own interval: ± z printed standard errors.
FormatQualityCost published_cost(const PublishedQualityRow& row, const std::string& precision, const QualityTransferRule& rule) {
  FormatQualityCost cost = from_row(row, QualityBasis::published, precision);
  const double v = *cost.delta_ppl_pct;
  const double u = row.delta_ppl_pct->uncertainty.value_or(0.0);
  cost.delta_ppl_pct_low = v - rule.published_z * u;
  cost.delta_ppl_pct_high = v + rule.published_z * u;
  cost.uncertainty = row.delta_ppl_pct->uncertainty
                         ? "± " + number_text(rule.published_z) + " published standard errors"
                         : "none printed: the figure as published";
  if (row.kld && row.kld->uncertainty) {
    cost.kld_low = std::max(0.0, row.kld->value - rule.published_z * *row.kld->uncertainty);
    cost.kld_high = row.kld->value + rule.published_z * *row.kld->uncertainty;
  }
  return cost;
}

// Another model's figure: the same central value, the interval ×/÷ F with F = model factor × size factor
// ^ (decades between the sizes).
FormatQualityCost transferred_cost(const PublishedQualityRow& row, double size_b, const std::string& precision,
                             const QualityTransferRule& rule) {
  FormatQualityCost cost = from_row(row, QualityBasis::transferred, precision);
  const double decades = std::abs(std::log10(size_b / row.params_b));
  const double model_factor = is_low_bit(precision) ? rule.low_bit_model_factor : rule.model_factor;
  const double factor = model_factor * std::pow(rule.size_factor_per_decade, decades);
  std::tie(cost.delta_ppl_pct_low, cost.delta_ppl_pct_high) = times_or_divided(*cost.delta_ppl_pct, factor);
  if (cost.kld) std::tie(cost.kld_low, cost.kld_high) = times_or_divided(*cost.kld, factor);
  cost.uncertainty = "×/÷ " + number_text(factor) + " (another " + row.arch_family + " model: ×" +
                     number_text(model_factor) + ", " + number_text(decades) + " decades of size: ×" +
                     number_text(rule.size_factor_per_decade) + " per decade)";
  return cost;
}

// Among the family's rows of this type, the model nearest in size (log scale); first in source order on a tie.
std::vector<const PublishedQualityRow*> nearest_model_rows(const std::vector<const PublishedQualityRow*>& rows,
                                                           double size_b) {
  const PublishedQualityRow* nearest = nullptr;
  for (const PublishedQualityRow* r : rows) {
    if (nearest == nullptr ||
        std::abs(std::log(size_b / r->params_b)) < std::abs(std::log(size_b / nearest->params_b))) {
      nearest = r;
    }
  }
  std::vector<const PublishedQualityRow*> out;
  for (const PublishedQualityRow* r : rows) {
    if (nearest != nullptr && r->model == nearest->model) out.push_back(r);
  }
  return out;
}

std::string sizes_text(double low, double high) { return number_text(low) + "–" + number_text(high) + " B"; }

}  // namespace

FormatQualityCost quality_detail::published_quality_cost(const QualityEvidence& evidence, double size_b, std::string_view arch,
                                                         const std::string& type, std::string_view model,
                                                         const QualityTransferRule& rule) {
  const std::string family = squashed_name(arch);
  std::vector<const PublishedQualityRow*> family_rows, rows;
  for (const PublishedQualityRow& r : evidence.published) {
    if (r.arch_family != family || r.baseline != "F16") continue;
    family_rows.push_back(&r);
    if (r.precision == type && r.delta_ppl_pct) rows.push_back(&r);
  }
  if (family_rows.empty()) {
    return unknown_cost(type, "no published quality figure for the " + std::string(arch) +
                                  " architecture, and figures do not transfer between architectures");
  }
  if (rows.empty()) return unknown_cost(type, "no published quality figure for " + type);
  const std::string wanted = squashed_name(model);
  std::vector<const PublishedQualityRow*> same_model;
  for (const PublishedQualityRow* r : rows) {
    // The name decides, the size confirms it (a "Llama-3-8B" asked about at 70 B is a mistake, not that model).
    const bool same_size = std::abs(std::log(size_b / r->params_b)) <= std::log(1.15);
    if (!wanted.empty() && same_size && wanted.find(squashed_name(r->model)) != std::string::npos) same_model.push_back(r);
  }
  if (!same_model.empty()) return published_cost(*preferred_row(same_model), type, rule);
  double low = family_rows.front()->params_b, high = low;
  for (const PublishedQualityRow* r : family_rows) {
    low = std::min(low, r->params_b);
    high = std::max(high, r->params_b);
  }
  low /= rule.size_margin;
  high *= rule.size_margin;
  if (size_b < low || size_b > high) {
    return unknown_cost(type, number_text(size_b) + " B is outside " + sizes_text(low, high) +
                                  ", the sizes the published " + family_rows.front()->arch_family +
                                  " figures span (×" + number_text(rule.size_margin) + " either side)");
  }
  return transferred_cost(*preferred_row(nearest_model_rows(rows, size_b)), size_b, type, rule);
}

FormatQualityCost quality_cost_for(const QualityEvidence& evidence, double size_b, std::string_view arch,
                                   std::string_view precision, std::string_view model, const QualityTransferRule& rule) {
  return quality_cost_for(evidence,
                          QualityQuestion{.size_b = size_b, .model = std::string(model), .engine = "llama.cpp",
                                          .precision = std::string(precision), .arch = std::string(arch)},
                          rule);
}

Result<QualityEvidence> quality_evidence(const DatasetStore& store) {
  QualityEvidence evidence;
  auto published = store.quality_rows();
  if (!published) return published.error();
  evidence.published = std::move(*published);
  auto rows = store.rows(RowQuery{});
  if (!rows) return rows.error();
  add_measured_quality(evidence, *rows);
  return evidence;
}

std::string_view to_string(QualityBasis basis) noexcept {
  switch (basis) {
    case QualityBasis::measured: return "measured";
    case QualityBasis::published: return "published";
    case QualityBasis::transferred: return "transferred";
    case QualityBasis::measured_on_fixture: return "measured_on_fixture";
    case QualityBasis::none: return "none";
  }
  return "none";
}

std::string_view to_string(QualityCheck check) noexcept {
  switch (check) {
    case QualityCheck::within: return "within";
    case QualityCheck::exceeds: return "exceeds";
    case QualityCheck::uncertain: return "uncertain";
    case QualityCheck::unknown: return "unknown";
  }
  return "unknown";
}

QualityCheck check_delta_ppl_pct(const FormatQualityCost& cost, double max_delta_ppl_pct) {
  if (!cost.delta_ppl_pct) return QualityCheck::unknown;
  const double low = cost.delta_ppl_pct_low.value_or(*cost.delta_ppl_pct);
  const double high = cost.delta_ppl_pct_high.value_or(*cost.delta_ppl_pct);
  if (high <= max_delta_ppl_pct) return QualityCheck::within;
  if (low > max_delta_ppl_pct) return QualityCheck::exceeds;
  return QualityCheck::uncertain;
}

QualityCheck check_kld(const FormatQualityCost& cost, double max_kld) {
  if (!cost.kld) return QualityCheck::unknown;
  if (cost.kld_high.value_or(*cost.kld) <= max_kld) return QualityCheck::within;
  if (cost.kld_low.value_or(*cost.kld) > max_kld) return QualityCheck::exceeds;
  return QualityCheck::uncertain;
}

void write_json(JsonSink& sink, const FormatQualityCost& c) {
  // Figures the evidence does not give, and texts it has none of, are left out (not null).
  auto number = [&sink](const char* name, const std::optional<double>& v) {
    if (v) sink.field(name, *v);
  };
  auto text = [&sink](const char* name, const std::string& v) {
    if (!v.empty()) sink.field(name, v);
  };
  sink.begin_object();
  sink.field("basis", to_string(c.basis));
  sink.field("basis_text", c.basis_text);
  number("delta_ppl_pct", c.delta_ppl_pct);
  number("delta_ppl_pct_high", c.delta_ppl_pct_high);
  number("delta_ppl_pct_low", c.delta_ppl_pct_low);
  text("evidence_model", c.evidence_model);
  number("evidence_params_b", c.evidence_params_b);
  text("imatrix", c.imatrix);
  number("kld", c.kld);
  number("kld_high", c.kld_high);
  number("kld_low", c.kld_low);
  number("mean_dp_pct", c.mean_dp_pct);
  text("note", c.note);
  sink.field("precision", c.precision);
  text("reason", c.reason);
  number("rms_dp_pct", c.rms_dp_pct);
  number("same_top_p_pct", c.same_top_p_pct);
  text("source", c.source);
  text("uncertainty", c.uncertainty);
  sink.end_object();
}

void to_json(Json& j, const FormatQualityCost& c) { to_document(j, c); }

}  // namespace ecocompute::data
