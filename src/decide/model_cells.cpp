// Cells from stored rows (see model_cells.hpp).
#include "decide/model_cells.hpp"

#include <cmath>
#include <map>
#include <tuple>

#include "data/gpu_spec.hpp"
#include "util/precision.hpp"
#include "util/statistics.hpp"

namespace ecocompute::decide {
namespace {

using GroupKey = std::tuple<std::string, std::string, std::string, std::string, std::string, double, int, int>;

// The variance of ln(1 + ΔE/100) from a row's own paired statistics of ΔE (percentage points):
// var(ln(1 + d/100)) ≈ var(d) / (100 + d)² (delta method).
double row_log_ratio_var(const data::DataRow& r) {
  const double d = r.delta_pct();
  double se = 0;
  if (r.delta_ci95_low_pct && r.delta_ci95_high_pct && r.n_trials >= 2) {
    se = (*r.delta_ci95_high_pct - *r.delta_ci95_low_pct) / 2 /
         student_t_critical(0.95, static_cast<std::size_t>(r.n_trials - 1));
  } else if (r.delta_sd_pct && r.n_trials >= 2) {
    se = *r.delta_sd_pct / std::sqrt(static_cast<double>(r.n_trials));
  }
  return se * se / ((100 + d) * (100 + d));
}

bool usable(const data::DataRow& r) {
  return r.basis == data::Basis::measured && r.energy_per_token_mj > 0 && r.fp16_energy_per_token_mj > 0 &&
         std::isfinite(r.energy_per_token_mj) && std::isfinite(r.fp16_energy_per_token_mj);
}

// The mean of a group's values; the variance of that mean from the replicates when there are
// several, else from `single_var` of the one row.
template <class ValueOf, class VarOf>
Cell summarize_group(const std::vector<const data::DataRow*>& group, CellPlace place, ValueOf value_of, VarOf single_var) {
  Cell c;
  c.place = std::move(place);
  c.session_id = group.front()->session_id;
  c.model = group.front()->model;
  c.rows = static_cast<int>(group.size());
  double sum = 0;
  for (const data::DataRow* r : group) {
    sum += value_of(*r);
    c.trials += r->n_trials;
  }
  c.value = sum / static_cast<double>(group.size());
  if (group.size() >= 2) {
    double ss = 0;
    for (const data::DataRow* r : group) ss += (value_of(*r) - c.value) * (value_of(*r) - c.value);
    c.within_var = ss / static_cast<double>(group.size() - 1) / static_cast<double>(group.size());
  } else {
    c.within_var = single_var(*group.front());
  }
  return c;
}

template <class KeyOf>
std::map<GroupKey, std::vector<const data::DataRow*>> group_rows(const std::vector<data::DataRow>& rows, KeyOf key_of) {
  std::map<GroupKey, std::vector<const data::DataRow*>> groups;
  for (const data::DataRow& r : rows) {
    if (usable(r)) groups[key_of(r)].push_back(&r);
  }
  return groups;
}

}  // namespace

std::string gpu_model(const std::string& gpu_name) {
  auto spec = data::find_gpu(gpu_name);
  return spec ? spec->name : gpu_name;
}

double delta_pct_of(double log_ratio) { return 100.0 * std::expm1(log_ratio); }

std::vector<Cell> ratio_cells(const std::vector<data::DataRow>& rows) {
  std::map<std::string, std::string> gpus;  // a GPU name resolves once
  auto model_of = [&](const std::string& name) -> const std::string& {
    auto [it, added] = gpus.try_emplace(name);
    if (added) it->second = gpu_model(name);
    return it->second;
  };
  auto groups = group_rows(rows, [&](const data::DataRow& r) {
    const bool baseline = is_baseline_precision(r.precision);
    return GroupKey{r.session_id, r.engine, baseline ? std::string() : r.precision, r.gpu_arch, model_of(r.gpu), r.params_b,
                    r.batch_size, r.context_tokens};
  });
  std::vector<Cell> out;
  for (const auto& [key, group] : groups) {
    const auto& [session, engine, precision, arch, gpu, params_b, batch, context] = key;
    if (precision.empty()) continue;
    out.push_back(summarize_group(
        group, CellPlace{engine, precision, arch, gpu, params_b, batch, context},
        [](const data::DataRow& r) { return std::log(r.energy_per_token_mj / r.fp16_energy_per_token_mj); }, row_log_ratio_var));
  }
  return out;
}

std::vector<Cell> fp16_cells(const std::vector<data::DataRow>& rows) {
  std::map<std::string, std::string> gpus;
  auto groups = group_rows(rows, [&](const data::DataRow& r) {
    auto [it, added] = gpus.try_emplace(r.gpu);
    if (added) it->second = gpu_model(r.gpu);
    return GroupKey{r.session_id, r.engine, "F16", r.gpu_arch, it->second, r.params_b, r.batch_size, r.context_tokens};
  });
  std::vector<Cell> out;
  for (const auto& [key, group] : groups) {
    const auto& [session, engine, precision, arch, gpu, params_b, batch, context] = key;
    // Several formats of one session share one same-run baseline: a replicate only where the
    // baselines differ (the published replicate rows), else one value with no variance of its own.
    out.push_back(summarize_group(
        group, CellPlace{engine, "F16", arch, gpu, params_b, batch, context},
        [](const data::DataRow& r) { return std::log(r.fp16_energy_per_token_mj); }, [](const data::DataRow&) { return 0.0; }));
  }
  return out;
}

}  // namespace ecocompute::decide
