// Random-effects spread between sessions.
#include "data/session_spread.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <tuple>

#include "util/precision.hpp"
#include "util/statistics.hpp"

namespace ecocompute::data {
namespace {

// Values by size: sessions with no variance of their own get the largest of the others at that size.
using BySize = std::map<double, std::vector<SessionValue>>;

std::optional<SessionSpread> pool(const CurveKey& key, BySize by_size) {
  double tau2_sum = 0;
  int shared = 0;
  std::set<std::string> ids;
  for (auto& [size, values] : by_size) {
    if (values.size() < 2) continue;
    double fallback = 0;
    for (const SessionValue& v : values) fallback = std::max(fallback, v.variance);
    if (fallback <= 0) continue;
    for (SessionValue& v : values) {
      if (v.variance <= 0) v.variance = fallback;
    }
    const auto tau2 = dersimonian_laird_tau2(values);
    if (!tau2) continue;
    tau2_sum += *tau2;
    ++shared;
    for (const SessionValue& v : values) ids.insert(v.session_id);
  }
  if (shared == 0) return std::nullopt;
  return SessionSpread{key, std::sqrt(tau2_sum / shared), shared, {ids.begin(), ids.end()}};
}

}  // namespace

std::optional<double> dersimonian_laird_tau2(std::span<const SessionValue> values) {
  if (values.size() < 2) return std::nullopt;
  double sw = 0, sw2 = 0, swy = 0;
  for (const SessionValue& v : values) {
    if (!(v.variance > 0)) return std::nullopt;
    const double w = 1.0 / v.variance;
    sw += w;
    sw2 += w * w;
    swy += w * v.value;
  }
  const double mean = swy / sw;
  double q = 0;
  for (const SessionValue& v : values) q += (v.value - mean) * (v.value - mean) / v.variance;
  const double c = sw - sw2 / sw;
  if (!(c > 0)) return std::nullopt;
  return std::max(0.0, (q - static_cast<double>(values.size() - 1)) / c);
}

std::vector<SessionSpread> delta_spreads(const std::vector<DataRow>& rows, const std::vector<Curve>& per_session_curves) {
  std::map<CurveKey, std::map<std::string, std::vector<DataRow>>> groups;
  for (const DataRow& r : rows) {
    if (r.basis != Basis::measured || r.batch_size != 1 || is_baseline_precision(r.precision)) continue;
    groups[CurveKey{r.gpu_arch, r.engine, r.precision}][r.session_id].push_back(r);
  }
  std::vector<SessionSpread> out;
  for (const auto& [key, by_session] : groups) {
    if (by_session.size() < 2) continue;
    BySize by_size;
    for (const auto& [session_id, session_rows] : by_session) {
      double resid_variance = 0;
      for (const Curve& c : per_session_curves) {
        if (c.key == key && c.session_ids.size() == 1 && c.session_ids.front() == session_id) {
          resid_variance = c.fit.resid_std_pct * c.fit.resid_std_pct;
        }
      }
      for (const FitPoint& p : summarize_points(session_rows)) {
        const double variance = p.se_pct ? *p.se_pct * *p.se_pct : resid_variance;
        by_size[p.params_b].push_back(SessionValue{session_id, p.delta_pct, variance});
      }
    }
    if (auto spread = pool(key, std::move(by_size))) out.push_back(std::move(*spread));
  }
  return out;
}

std::vector<SessionSpread> fp16_energy_spreads(const std::vector<DataRow>& rows) {
  // ln(FP16 energy) of every row, by (arch, engine) → size → session.
  std::map<CurveKey, std::map<double, std::map<std::string, std::vector<double>>>> groups;
  for (const DataRow& r : rows) {
    if (r.basis != Basis::measured || r.batch_size != 1 || !(r.fp16_energy_per_token_mj > 0)) continue;
    groups[CurveKey{r.gpu_arch, r.engine, "FP16"}][r.params_b][r.session_id].push_back(std::log(r.fp16_energy_per_token_mj));
  }
  std::vector<SessionSpread> out;
  for (const auto& [key, by_size_session] : groups) {
    BySize by_size;
    for (const auto& [size, by_session] : by_size_session) {
      for (const auto& [session_id, logs] : by_session) {
        const Summary s = summarize(logs);
        const double variance = s.sd && s.n >= 2 ? *s.sd * *s.sd / static_cast<double>(s.n) : 0.0;
        by_size[size].push_back(SessionValue{session_id, s.mean, variance});
      }
    }
    if (auto spread = pool(key, std::move(by_size))) out.push_back(std::move(*spread));
  }
  return out;
}

const SessionSpread* find_spread(const std::vector<SessionSpread>& spreads, const CurveKey& key) {
  for (const SessionSpread& s : spreads) {
    if (s.key == key) return &s;
  }
  return nullptr;
}

}  // namespace ecocompute::data
