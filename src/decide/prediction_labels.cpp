// Basis labels of a prediction (see prediction_labels.hpp).
#include "decide/prediction_labels.hpp"

#include <algorithm>
#include <cmath>
#include <optional>
#include <set>
#include <string_view>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "decide/batch_regime.hpp"
#include "decide/prediction.hpp"

namespace ecocompute::decide {
namespace {

// The nearest value at or below x and at or above x (−∞ / +∞ when none).
std::pair<double, double> sides(const std::vector<double>& values, double x) {
  double below = -INFINITY, above = INFINITY;
  for (double v : values) {
    if (v <= x) below = std::max(below, v);
    if (v >= x) above = std::min(above, v);
  }
  return {below, above};
}

// The measured places an answer rests on most directly: at the nearest measured size on each side of the
// question, the nearest measured batch on each side. A measured place is its own nearest.
std::vector<const Location*> nearest_places(const std::vector<const Location*>& places, const ModelPoint& p) {
  std::vector<double> sizes;
  for (const Location* l : places) sizes.push_back(l->point.log_size);
  const auto [size_below, size_above] = sides(sizes, p.log_size);
  const double asked_batch = std::log(static_cast<double>(p.batch));
  std::vector<const Location*> out;
  for (double size : {size_below, size_above}) {
    std::vector<double> batches;
    for (const Location* l : places) {
      if (l->point.log_size == size) batches.push_back(std::log(static_cast<double>(l->point.batch)));
    }
    const auto [batch_below, batch_above] = sides(batches, asked_batch);
    for (const Location* l : places) {
      const double b = std::log(static_cast<double>(l->point.batch));
      const bool near = l->point.log_size == size && (b == batch_below || b == batch_above);
      if (near && std::find(out.begin(), out.end(), l) == out.end()) out.push_back(l);
    }
  }
  return out;
}

// The labels of those places' sessions, the first kListedSessions listed and all counted.
void list_sessions(const FamilyFit& family, const std::vector<const Location*>& places, const Evidence& evidence,
                   data::FigureBasis& f) {
  const auto merged = family.merged_sessions(places);
  std::set<std::string> labels;
  for (std::string_view id : *merged) {
    if (labels.size() >= data::kListedSessions) break;
    labels.insert(evidence.session_label(std::string(id)));
  }
  f.sessions.assign(labels.begin(), labels.end());
  f.session_count = merged->size();
}

std::string listed_sessions(const data::FigureBasis& f) {
  const std::string more = f.session_count > f.sessions.size() ? fmt::format(", and {} more", f.session_count - f.sessions.size()) : "";
  return fmt::format("{}{}", fmt::join(f.sessions, ", "), more);
}

// "8.03 B batch 1, 8.03 B batch 8" for a few places.
std::string places_text(const std::vector<const Location*>& places) {
  std::set<std::pair<double, int>> seen;
  for (const Location* l : places) seen.emplace(l->place.params_b, l->place.batch);
  std::vector<std::string> parts;
  for (const auto& [n, batch] : seen) parts.push_back(fmt::format("{:g} B batch {}", n, batch));
  return fmt::format("{}", fmt::join(parts, ", "));
}

std::string gpus_of(const std::vector<const Location*>& places) {
  std::set<std::string> gpus;
  for (const Location* l : places) gpus.insert(l->point.gpu);
  return fmt::format("{}", fmt::join(gpus, ", "));
}

std::string range_text(const PlaceBasis& b) {
  const std::string sizes = b.size_min == b.size_max ? fmt::format("{:g} B", b.size_min) : fmt::format("{:g}–{:g} B", b.size_min, b.size_max);
  const std::string batches = b.batch_min == b.batch_max ? fmt::format("batch {}", b.batch_min)
                                                         : fmt::format("batch {}–{}", b.batch_min, b.batch_max);
  return sizes + ", " + batches;
}

// The formats of the engine measured in the point's regime on its architecture (the lenders of a
// modelled regime effect).
std::string regime_lenders(const FamilyFit& family, const ModelPoint& p) {
  std::set<std::string> formats;
  for (const Location& l : family.locations()) {
    if (l.point.engine == p.engine && l.point.regime == p.regime && l.point.key != p.key) formats.insert(l.place.precision);
  }
  return fmt::format("{}", fmt::join(formats, ", "));
}

data::FigureBasis measured_or_read(const FamilyFit& family, const PlaceBasis& b, const ModelPoint& p, const Evidence& evidence,
                                   const std::string& what) {
  data::FigureBasis f;
  f.basis = b.place_kind;
  const auto& places = b.place_kind == data::Basis::measured ? b.same_place : nearest_places(b.format_places, p);
  list_sessions(family, places, evidence, f);
  f.gpu = gpus_of(places);
  f.arch = p.arch;
  if (f.basis == data::Basis::measured) {
    const std::string context = p.context > 0 ? fmt::format(" and context {}", p.context) : "";
    f.label = fmt::format("{} measured at {:g} B, batch {}{} on {} by {} session{} ({}); the value is the model's mean for a card "
                          "of this GPU model",
                          what, std::exp(p.log_size), p.batch, context, f.gpu, f.session_count, f.session_count == 1 ? "" : "s",
                          listed_sessions(f));
  } else {
    f.label = fmt::format("{} {} by the model {} the places measured for {} with {} on {} ({}; nearest measured by {} session{})", what,
                          f.basis == data::Basis::interpolated ? "read" : "extrapolated",
                          f.basis == data::Basis::interpolated ? "between" : "beyond", p.precision, p.engine, gpus_of(b.format_places),
                          range_text(b), f.session_count, f.session_count == 1 ? "" : "s");
    if (p.context > 0 && !b.context_places.empty()) {
      f.label += fmt::format("; its context {} effect from the places measured beyond context {} in this batch group (up to context {}: {})",
                             p.context, kBaselineContext, b.context_max, places_text(b.context_places));
    }
  }
  return f;
}

// A context beyond the baseline whose effect the format never had measured in the batch group.
// The place's basis is already `modelled` (place_basis judged it so); the label says why.
data::FigureBasis context_modelled(data::FigureBasis f, const ModelPoint& p) {
  f.basis = data::Basis::modelled;
  f.label += fmt::format("; context {} beyond the baseline {}: the effect of context on {} with {} at batch {} was never measured; it "
                         "is drawn from the context effects measured for other formats or engines",
                         p.context, kBaselineContext, p.precision, p.engine, p.batch);
  f.model = "context effect drawn from the measured context effects of its outcome (their mean and spread)";
  return f;
}

data::FigureBasis regime_modelled(const FamilyFit& family, const ModelPoint& p, const std::string& what) {
  data::FigureBasis f;
  f.basis = data::Basis::modelled;
  f.arch = p.arch;
  const std::string regime = regime_text(p.engine, p.precision, p.arch, p.regime);
  const std::string lenders = regime_lenders(family, p);
  if (!lenders.empty()) {
    f.label = fmt::format("{} at batch {} ({}): {} was never measured in this regime; its effect comes from {} with {} there, and "
                          "a format's own departure from it is as wide as the data show",
                          what, p.batch, regime, p.precision, lenders, p.engine);
    f.model = fmt::format("kernel-regime effect of {} (measured with {}), random per format", p.engine, lenders);
  } else {
    f.label = fmt::format("{} at batch {} ({}): no format of {} was measured in this regime; its effect is drawn from the spread of "
                          "the regime effects measured with other engines",
                          what, p.batch, regime, p.engine);
    f.model = "regime effect drawn from the regime effects of other engines (their mean and spread)";
  }
  return f;
}

}  // namespace

data::Basis basis_kind(const PlaceBasis& b, const ModelPoint& point) {
  data::Basis kind = b.regime_unmeasured ? data::Basis::modelled : b.place_kind;
  if (point.context > 0 && b.context_unmeasured) kind = data::Basis::modelled;
  if (b.other_architecture || b.other_gpu) kind = data::worse(kind, data::Basis::borrowed);
  return kind;
}

data::FigureBasis describe_basis(const FamilyFit& family, const PlaceBasis& b, const ModelPoint& point, const Query& q,
                                 const Evidence& evidence, const std::string& what) {
  data::FigureBasis f = b.regime_unmeasured ? regime_modelled(family, point, what) : measured_or_read(family, b, point, evidence, what);
  if (point.context > 0 && b.context_unmeasured) f = context_modelled(std::move(f), point);
  if (b.other_architecture) {
    const std::string archs = used_architectures(family, b, point, "");
    f.borrowed_from = fmt::format("the {} measurements", archs);
    f = f.at_most(data::Basis::borrowed, fmt::format("borrowed: {} with {} is not measured on {}; the architectures measured ({}) "
                                                     "answer, with the spread between architectures the data show",
                                                     point.precision, point.engine, q.arch, archs));
  } else if (b.other_gpu) {
    std::vector<const Location*> on_arch;
    for (const Location* l : family.places_of(point.key)) {
      if (l->point.arch == point.arch) on_arch.push_back(l);
    }
    const std::string gpus = gpus_of(on_arch);
    f.borrowed_from = fmt::format("{} (same architecture, {})", gpus, point.arch);
    f = f.at_most(data::Basis::borrowed, fmt::format("borrowed: measured on {}, not on the {} asked about; another GPU of {}, with "
                                                     "the spread between GPUs the data show",
                                                     gpus, point.gpu, point.arch));
  }
  return f;
}

std::string used_architectures(const FamilyFit& family, const PlaceBasis& b, const ModelPoint& point, const std::string& asked_arch) {
  if (!b.other_architecture) return asked_arch;
  // The places in the asked regime answer; where none is (the regime's effect is modelled), every place
  // of the format does.
  std::set<std::string> archs;
  for (const Location* l : b.format_places.empty() ? family.places_of(point.key) : b.format_places) archs.insert(l->point.arch);
  return fmt::format("{}", fmt::join(archs, ", "));
}

data::FigureBasis worse_figure(const data::FigureBasis& a, const data::FigureBasis& b) {
  const bool a_worse = data::worse(a.basis, b.basis) == a.basis;
  data::FigureBasis out = a_worse ? a : b;
  const data::FigureBasis& other = a_worse ? b : a;
  std::set<std::string> sessions(a.sessions.begin(), a.sessions.end());
  sessions.insert(b.sessions.begin(), b.sessions.end());
  out.sessions.assign(sessions.begin(), sessions.end());
  if (out.sessions.size() > data::kListedSessions) out.sessions.resize(data::kListedSessions);
  out.session_count = std::max({a.session_count, b.session_count, out.sessions.size()});
  if (out.model.empty()) out.model = other.model;
  return out;
}

}  // namespace ecocompute::decide
