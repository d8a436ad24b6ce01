// Absolute energies from one session's rows.
#include "data/session_energy.hpp"

#include <cmath>
#include <map>
#include <set>
#include <tuple>

#include <fmt/format.h>

#include "data/model_size.hpp"

namespace ecocompute::data {
namespace {

bool in_session(const DataRow& r, const SessionRows& which) {
  return r.session_id == which.session_id && r.engine == which.engine && r.basis == Basis::measured &&
         r.batch_size == which.batch && r.fp16_energy_per_token_mj > 0;
}

// Mean FP16 baseline per size over the session's rows (of `precision` when given).
std::map<double, std::vector<double>> baselines_by_size(const std::vector<DataRow>& rows, const SessionRows& which,
                                                        bool this_precision_only) {
  std::map<double, std::vector<double>> out;
  for (const DataRow& r : rows) {
    if (!in_session(r, which) || (this_precision_only && r.precision != which.precision)) continue;
    out[r.params_b].push_back(r.fp16_energy_per_token_mj);
  }
  return out;
}

double mean(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += x;
  return s / static_cast<double>(v.size());
}

std::string gpu_of(const std::vector<DataRow>& rows, const std::string& session_id) {
  for (const DataRow& r : rows) {
    if (r.session_id == session_id) return r.gpu;
  }
  return {};
}

}  // namespace

std::optional<SessionEnergy> session_fp16_energy(const std::vector<DataRow>& rows, const SessionRows& which, double params_b) {
  auto sizes = baselines_by_size(rows, which, true);
  const bool own_at_size = std::any_of(sizes.begin(), sizes.end(), [&](const auto& s) { return same_model_size(s.first, params_b); });
  if (!own_at_size && sizes.size() < 2) sizes = baselines_by_size(rows, which, false);
  if (sizes.empty()) return std::nullopt;
  SessionEnergy e;
  e.session_id = which.session_id;
  e.gpu = gpu_of(rows, which.session_id);
  for (const auto& [size, energies] : sizes) {
    if (!same_model_size(size, params_b)) continue;
    e.mj_per_token = mean(energies);
    e.basis = Basis::measured;
    e.rows = static_cast<int>(energies.size());
    e.method = fmt::format("mean of {} measured same-run FP16 baseline{}", energies.size(), energies.size() == 1 ? "" : "s");
    return e;
  }
  if (sizes.size() < 2) return std::nullopt;
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  const double n = static_cast<double>(sizes.size());
  for (const auto& [size, energies] : sizes) {
    const double x = std::log(size), y = std::log(mean(energies));
    sx += x;
    sy += y;
    sxx += x * x;
    sxy += x * y;
    e.rows += static_cast<int>(energies.size());
  }
  const double b = (n * sxy - sx * sy) / (n * sxx - sx * sx);
  const double a = (sy - b * sx) / n;
  e.mj_per_token = std::exp(a + b * std::log(params_b));
  const bool inside = params_b >= sizes.begin()->first && params_b <= sizes.rbegin()->first;
  e.basis = inside ? Basis::interpolated : Basis::extrapolated;
  e.method = fmt::format("log-log fit of {} measured FP16 sizes ({:g}–{:g} B): E = {:.1f} mJ × N^{:.3f}", sizes.size(),
                         sizes.begin()->first, sizes.rbegin()->first, std::exp(a), b);
  return e;
}

std::optional<SessionEnergy> session_quantized_energy(const std::vector<DataRow>& rows, const SessionRows& which,
                                                      double params_b) {
  std::vector<double> energies;
  for (const DataRow& r : rows) {
    if (in_session(r, which) && r.precision == which.precision && same_model_size(r.params_b, params_b)) {
      energies.push_back(r.energy_per_token_mj);
    }
  }
  if (energies.empty()) return std::nullopt;
  SessionEnergy e;
  e.mj_per_token = mean(energies);
  e.basis = Basis::measured;
  e.session_id = which.session_id;
  e.gpu = gpu_of(rows, which.session_id);
  e.rows = static_cast<int>(energies.size());
  e.method = fmt::format("mean of {} measured row{}", energies.size(), energies.size() == 1 ? "" : "s");
  return e;
}

std::optional<std::string> fp16_reference_session(const std::vector<DataRow>& rows, const std::vector<Session>& sessions,
                                                  const std::string& arch, const std::string& engine, int batch) {
  std::map<std::string, std::pair<std::set<double>, int>> by_session;
  for (const DataRow& r : rows) {
    if (r.gpu_arch != arch || r.engine != engine || r.basis != Basis::measured || r.batch_size != batch ||
        !(r.fp16_energy_per_token_mj > 0)) {
      continue;
    }
    auto& [sizes, count] = by_session[r.session_id];
    sizes.insert(r.params_b);
    ++count;
  }
  std::optional<std::string> best;
  std::tuple<std::size_t, int, std::string> best_rank{0, 0, ""};
  for (const auto& [id, sizes_count] : by_session) {
    const Session* s = find_session(sessions, id);
    const std::string date = s != nullptr ? s->date : std::string();
    const std::tuple<std::size_t, int, std::string> rank{sizes_count.first.size(), sizes_count.second, date};
    if (!best || rank > best_rank) {
      best = id;
      best_rank = rank;
    }
  }
  return best;
}

}  // namespace ecocompute::data
