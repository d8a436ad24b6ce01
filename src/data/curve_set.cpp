// CurveSet: grouping rows into points, choosing the session behind each curve, and the published
// curves and their reproduction.
#include "data/curve_set.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <tuple>

#include "data/csv_table.hpp"
#include "data/model_size.hpp"
#include "util/precision.hpp"
#include "util/statistics.hpp"

namespace ecocompute::data {
namespace {

// Measured, quantized rows grouped by key and then by session.
std::map<CurveKey, std::map<std::string, std::vector<DataRow>>> group(const std::vector<DataRow>& rows) {
  std::map<CurveKey, std::map<std::string, std::vector<DataRow>>> groups;
  for (const DataRow& r : rows) {
    if (r.basis != Basis::measured || r.batch_size != 1 || r.context_tokens > 0 || is_baseline_precision(r.precision)) continue;
    groups[CurveKey{r.gpu_arch, r.engine, r.precision}][r.session_id].push_back(r);
  }
  return groups;
}

int distinct_sizes(const std::vector<FitPoint>& points) {
  std::set<double> sizes;
  for (const FitPoint& p : points) sizes.insert(p.params_b);
  return static_cast<int>(sizes.size());
}

int total_trials(const std::vector<FitPoint>& points) {
  int n = 0;
  for (const FitPoint& p : points) n += p.n;
  return n;
}

Result<Curve> fit_group(const CurveKey& key, const std::vector<FitPoint>& points, std::vector<std::string> session_ids,
                        std::string label, FitWeighting weighting) {
  FitOptions options;
  options.weighting = weighting;
  options.s_cap = published_s_cap(key.precision);
  auto fit = fit_curve(points, options);
  if (!fit) return fit.error();
  return Curve{key, "fit", std::move(session_ids), std::move(label), std::move(*fit)};
}

// A campaign: sessions of one GPU model with one engine build (same name and version), each on its own
// card or day, that together cover more sizes than any one of them. Their points are fitted together;
// the card-to-card spread then shows in the fit's residual instead of being hidden by one session's
// tight CI. Published sessions carry no engine version and never form a campaign.
struct Campaign {
  std::vector<FitPoint> points;
  std::vector<std::string> session_ids;
  std::string label;
};

std::optional<Campaign> campaign_points(const std::map<std::string, std::vector<DataRow>>& by_session,
                                        const std::vector<Session>& sessions) {
  std::map<std::tuple<std::string, std::string, std::string>, Campaign> campaigns;
  for (const auto& [session_id, session_rows] : by_session) {
    const Session* s = find_session(sessions, session_id);
    if (s == nullptr || s->engine_version.empty()) continue;
    Campaign& c = campaigns[{s->gpu, s->engine, s->engine_version}];
    const auto points = summarize_points(session_rows);
    c.points.insert(c.points.end(), points.begin(), points.end());
    c.session_ids.push_back(session_id);
  }
  std::optional<Campaign> best;
  for (auto& [stack, c] : campaigns) {
    // Sessions that all measured one size make no curve (they still answer at that size, from their cells).
    if (c.session_ids.size() < 2 || distinct_sizes(c.points) < 2 ||
        (best && distinct_sizes(c.points) <= distinct_sizes(best->points))) {
      continue;
    }
    // The release tag without the commit that follows it in parentheses: the label is a legend entry.
    const std::string& version = std::get<2>(stack);
    c.label = "campaign: " + std::to_string(c.session_ids.size()) + " sessions of " + std::get<0>(stack) + " " +
              std::get<1>(stack) + " " + version.substr(0, version.find(" (")) + " (" +
              std::to_string(distinct_sizes(c.points)) + " sizes)";
    best = std::move(c);
  }
  return best;
}

// Returns the first error among several field reads, or nullptr when all succeeded.
template <typename... Results>
const Error* first_error(const Results&... results) {
  const Error* found = nullptr;
  ((found = found != nullptr ? found : (results.has_value() ? nullptr : &results.error())), ...);
  return found;
}

}  // namespace

const Curve* CurveSet::find(const CurveKey& key) const {
  for (const Curve& c : curves) {
    if (c.key == key) return &c;
  }
  return nullptr;
}

std::vector<const Curve*> CurveSet::for_precision(const std::string& engine, const std::string& precision) const {
  std::vector<const Curve*> out;
  for (const Curve& c : curves) {
    if (c.key.engine == engine && c.key.precision == precision) out.push_back(&c);
  }
  return out;
}

std::vector<FitPoint> summarize_points(const std::vector<DataRow>& rows) {
  std::map<std::tuple<std::string, double, std::string>, std::vector<const DataRow*>> groups;
  std::vector<std::tuple<std::string, double, std::string>> order;
  for (const DataRow& r : rows) {
    auto key = std::make_tuple(r.session_id, r.params_b, r.precision);
    if (!groups.contains(key)) order.push_back(key);
    groups[key].push_back(&r);
  }
  std::vector<FitPoint> points;
  for (const auto& key : order) {
    const auto& members = groups[key];
    FitPoint p;
    p.params_b = std::get<1>(key);
    p.session_id = std::get<0>(key);
    p.model = members.front()->model;
    if (members.size() == 1) {
      const DataRow& r = *members.front();
      p.delta_pct = r.delta_pct();
      p.n = r.n_trials;
      if (r.delta_sd_pct && r.n_trials >= 2) {
        p.se_pct = *r.delta_sd_pct / std::sqrt(static_cast<double>(r.n_trials));
      } else if (r.delta_ci95_low_pct && r.delta_ci95_high_pct && r.n_trials >= 2) {
        p.se_pct = (*r.delta_ci95_high_pct - *r.delta_ci95_low_pct) / (2 * student_t_critical(0.95, static_cast<std::size_t>(r.n_trials - 1)));
      }
    } else {
      // Replicates: ΔE of each recomputed from its own energies, then mean and SD (ddof 1).
      std::vector<double> deltas;
      for (const DataRow* r : members) deltas.push_back(r->delta_pct());
      const Summary s = summarize(deltas);
      p.delta_pct = s.mean;
      p.n = static_cast<int>(s.n);
      if (s.sd) p.se_pct = *s.sd / std::sqrt(static_cast<double>(s.n));
    }
    points.push_back(std::move(p));
  }
  return points;
}

Result<std::vector<Curve>> fit_per_session(const std::vector<DataRow>& rows, const std::vector<Session>& sessions,
                                          FitWeighting weighting) {
  std::vector<Curve> curves;
  for (const auto& [key, by_session] : group(rows)) {
    for (const auto& [session_id, session_rows] : by_session) {
      const auto points = summarize_points(session_rows);
      if (distinct_sizes(points) < 2) continue;
      const Session* s = find_session(sessions, session_id);
      auto curve = fit_group(key, points, {session_id}, s != nullptr ? s->label : session_id, weighting);
      if (!curve) return curve.error();
      curves.push_back(std::move(*curve));
    }
  }
  return curves;
}

Result<CurveSet> fit_curve_set(const std::vector<DataRow>& rows, const std::vector<Session>& sessions,
                               const CurveSetOptions& options) {
  CurveSet set;
  std::optional<std::string> wanted_id;
  if (options.session) {
    for (const Session& s : sessions) {
      if (s.id == *options.session || s.label == *options.session || s.id.starts_with(*options.session)) wanted_id = s.id;
    }
    if (!wanted_id) return unexpected(ErrorCode::not_found, "no session '" + *options.session + "'");
  }
  for (const auto& [key, by_session] : group(rows)) {
    if (options.pool_sessions) {
      std::vector<FitPoint> points;
      std::vector<std::string> ids;
      std::string label = "pooled:";
      for (const auto& [session_id, session_rows] : by_session) {
        const auto p = summarize_points(session_rows);
        points.insert(points.end(), p.begin(), p.end());
        ids.push_back(session_id);
        const Session* s = find_session(sessions, session_id);
        label += " " + (s != nullptr ? s->label : session_id);
      }
      if (distinct_sizes(points) < 2) continue;
      auto curve = fit_group(key, points, ids, label, options.weighting);
      if (!curve) return curve.error();
      set.curves.push_back(std::move(*curve));
      continue;
    }
    // One session per curve: the requested one, else the most distinct sizes, then the most trials,
    // then the newest.
    const std::string* chosen = nullptr;
    std::vector<FitPoint> chosen_points;
    std::tuple<int, int, std::string> best{-1, -1, ""};
    for (const auto& [session_id, session_rows] : by_session) {
      if (wanted_id && session_id != *wanted_id) continue;
      auto points = summarize_points(session_rows);
      if (distinct_sizes(points) < 2) continue;
      const Session* s = find_session(sessions, session_id);
      std::tuple<int, int, std::string> rank{distinct_sizes(points), total_trials(points), s != nullptr ? s->date : ""};
      if (rank > best) {
        best = rank;
        chosen = &session_id;
        chosen_points = std::move(points);
      }
    }
    if (!wanted_id) {
      if (auto campaign = campaign_points(by_session, sessions); campaign && distinct_sizes(campaign->points) > std::get<0>(best)) {
        auto curve = fit_group(key, campaign->points, campaign->session_ids, campaign->label, options.weighting);
        if (!curve) return curve.error();
        set.curves.push_back(std::move(*curve));
        continue;
      }
    }
    if (chosen == nullptr) continue;
    const Session* s = find_session(sessions, *chosen);
    auto curve = fit_group(key, chosen_points, {*chosen}, s != nullptr ? s->label : *chosen, options.weighting);
    if (!curve) return curve.error();
    set.curves.push_back(std::move(*curve));
  }
  return set;
}

Result<CurveSet> read_published_curves(const std::filesystem::path& path) {
  auto table = CsvTable::read(path);
  if (!table) return table.error();
  CurveSet set;
  for (std::size_t i = 0; i < table->size(); ++i) {
    auto arch = table->text(i, "gpu_arch");
    auto precision = table->text(i, "precision");
    auto a = table->number(i, "A");
    auto s = table->number(i, "S");
    auto n_star = table->number(i, "n_star_b");
    auto resid = table->number(i, "resid_std");
    auto lo = table->number(i, "range_min_b");
    auto hi = table->number(i, "range_max_b");
    auto crossover = table->optional_number(i, "crossover_b");
    auto loo = table->optional_number(i, "loo_mae");
    if (const Error* e = first_error(arch, precision, a, s, n_star, resid, lo, hi, crossover, loo)) return *e;
    if (*n_star <= 0 || *lo <= 0 || *hi < *lo) {
      return unexpected(ErrorCode::invalid_input, table->where(i) + ": N* and the size range must be > 0");
    }
    CurveFit fit;
    fit.params = {*a, *s, *n_star};
    fit.weighting = FitWeighting::unweighted;
    fit.resid_std_pct = *resid;
    fit.range_min_b = *lo;
    fit.range_max_b = *hi;
    fit.crossover_b = *crossover;
    fit.loo_mae_pct = *loo;
    set.curves.push_back(Curve{{*arch, std::string(published_engine), *precision}, "published", {}, "published curves.json (2026-08)",
                               std::move(fit)});
  }
  return set;
}

Result<std::vector<Curve>> reproduce_published_curves(const std::filesystem::path& fit_input_csv) {
  auto table = CsvTable::read(fit_input_csv);
  if (!table) return table.error();
  std::vector<std::pair<CurveKey, std::vector<FitPoint>>> groups;
  for (std::size_t i = 0; i < table->size(); ++i) {
    auto arch = table->text(i, "arch");
    auto precision = table->text(i, "precision");
    auto model = table->text(i, "model");
    auto size = table->number(i, "params_b");
    auto fp16 = table->number(i, "energy_fp16_j1k");
    auto quant = table->number(i, "energy_quant_j1k");
    if (const Error* e = first_error(arch, precision, model, size, fp16, quant)) return *e;
    if (*fp16 <= 0 || *size <= 0) return unexpected(ErrorCode::invalid_input, table->where(i) + ": sizes and energies must be > 0");
    const CurveKey key{*arch, std::string(published_engine), *precision};
    auto it = std::find_if(groups.begin(), groups.end(), [&](const auto& g) { return g.first == key; });
    if (it == groups.end()) {
      groups.emplace_back(key, std::vector<FitPoint>{});
      it = std::prev(groups.end());
    }
    FitPoint p;
    p.params_b = *size;
    p.delta_pct = (*quant - *fp16) / *fp16 * 100.0;
    p.model = *model;
    p.session_id = "site-fit-input";
    it->second.push_back(std::move(p));
  }
  std::vector<Curve> curves;
  for (const auto& [key, points] : groups) {
    auto curve = fit_group(key, points, {"site-fit-input"}, "site fit input (sessions pooled, as published)",
                           FitWeighting::unweighted);
    if (!curve) return curve.error();
    curves.push_back(std::move(*curve));
  }
  return curves;
}

void to_json(Json& j, const CurveKey& key) {
  j = Json{{"gpu_arch", key.gpu_arch}, {"engine", key.engine}, {"precision", key.precision}};
}

void to_json(Json& j, const Curve& curve) {
  Json fit;
  to_json(fit, curve.fit);
  j = Json{{"gpu_arch", curve.key.gpu_arch}, {"engine", curve.key.engine}, {"precision", curve.key.precision},
           {"source", curve.source}, {"session_ids", curve.session_ids}, {"session_label", curve.session_label}};
  for (auto& [k, v] : fit.items()) j[k] = v;
}

}  // namespace ecocompute::data
