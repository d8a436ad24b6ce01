// Comparison: pairs two sides' rows by (size, precision) and computes paired differences.
#include "data/comparison.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include <fmt/format.h>

#include "data/dataset_import.hpp"
#include "util/statistics.hpp"

namespace ecocompute::data {
namespace {

struct SideSummary {
  double delta = 0, energy = 0;
  int n = 0;
  std::string model;
};

// Replicates of one (size, precision) averaged: ΔE from each row's energies, then the mean.
std::map<std::pair<double, std::string>, SideSummary> summarize_side(const std::vector<DataRow>& rows) {
  std::map<std::pair<double, std::string>, std::vector<const DataRow*>> groups;
  for (const DataRow& r : rows) groups[{r.params_b, r.precision}].push_back(&r);
  std::map<std::pair<double, std::string>, SideSummary> out;
  for (const auto& [key, members] : groups) {
    SideSummary s;
    s.model = members.front()->model;
    for (const DataRow* r : members) {
      s.delta += r->delta_pct() / static_cast<double>(members.size());
      s.energy += r->energy_per_token_mj / static_cast<double>(members.size());
      s.n += members.size() == 1 ? r->n_trials : 1;
    }
    out[key] = s;
  }
  return out;
}

std::vector<std::string> fingerprints(const ComparisonSide& side) {
  std::vector<std::string> out;
  for (const Session& s : side.sessions) {
    if (std::find(out.begin(), out.end(), s.fingerprint) == out.end()) out.push_back(s.fingerprint);
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

ComparisonSide side_from_batch(const ImportBatch& batch, std::string label) {
  return ComparisonSide{std::move(label), batch.sessions, batch.rows};
}

Result<ComparisonSide> load_comparison_side(const std::string& spec, const DatasetStore& store) {
  std::error_code ec;
  if (std::filesystem::exists(spec, ec)) {
    auto batch = read_import_source(spec);
    if (!batch) return batch.error();
    return side_from_batch(*batch, spec);
  }
  auto session = store.find_session(spec);
  if (!session) {
    return Error{ErrorCode::not_found, "'" + spec + "' is neither a file nor a session in the store", session.error()};
  }
  RowQuery query;
  query.session_id = session->id;
  auto rows = store.rows(query);
  if (!rows) return rows.error();
  return ComparisonSide{session->label, {*session}, std::move(*rows)};
}

Comparison compare(const ComparisonSide& a, const ComparisonSide& b) {
  Comparison c;
  c.label_a = a.label;
  c.label_b = b.label;
  c.fingerprints_a = fingerprints(a);
  c.fingerprints_b = fingerprints(b);
  c.same_stack = !c.fingerprints_a.empty() && c.fingerprints_a == c.fingerprints_b;
  if (!c.same_stack) {
    c.warnings.push_back(std::string(kDifferentStackWarning) + ": the environment fingerprints differ");
  }
  const auto sa = summarize_side(a.rows);
  const auto sb = summarize_side(b.rows);
  std::vector<double> differences;
  for (const auto& [key, x] : sa) {
    auto it = sb.find(key);
    if (it == sb.end()) {
      c.unmatched.push_back(fmt::format("{} {:g} B {} only in {}", x.model, key.first, key.second, a.label));
      continue;
    }
    const SideSummary& y = it->second;
    PairedRow p;
    p.params_b = key.first;
    p.precision = key.second;
    p.model = x.model;
    p.delta_a_pct = x.delta;
    p.delta_b_pct = y.delta;
    p.difference_pp = y.delta - x.delta;
    p.n_a = x.n;
    p.n_b = y.n;
    p.energy_a_mj = x.energy;
    p.energy_b_mj = y.energy;
    p.energy_difference_pct = (y.energy - x.energy) / x.energy * 100;
    differences.push_back(p.difference_pp);
    c.pairs.push_back(std::move(p));
  }
  for (const auto& [key, y] : sb) {
    if (!sa.contains(key)) c.unmatched.push_back(fmt::format("{} {:g} B {} only in {}", y.model, key.first, key.second, b.label));
  }
  if (!differences.empty()) {
    // Paired t interval: mean ± t(n−1) · sd/√n.
    const Summary s = summarize(differences);
    c.mean_difference_pp = s.mean;
    c.sd_difference_pp = s.sd;
    c.ci95_low_pp = s.ci_low;
    c.ci95_high_pp = s.ci_high;
  }
  return c;
}

void to_json(Json& j, const PairedRow& p) {
  j = Json{{"params_b", p.params_b},       {"precision", p.precision},         {"model", p.model},
           {"delta_a_pct", p.delta_a_pct}, {"delta_b_pct", p.delta_b_pct},     {"difference_pp", p.difference_pp},
           {"n_a", p.n_a},                 {"n_b", p.n_b},                     {"energy_a_mj", p.energy_a_mj},
           {"energy_b_mj", p.energy_b_mj}, {"energy_difference_pct", p.energy_difference_pct}};
}

void to_json(Json& j, const Comparison& c) {
  auto opt = [](const std::optional<double>& v) { return v ? Json(*v) : Json(nullptr); };
  j = Json{{"a", c.label_a},
           {"b", c.label_b},
           {"fingerprints_a", c.fingerprints_a},
           {"fingerprints_b", c.fingerprints_b},
           {"same_stack", c.same_stack},
           {"warnings", c.warnings},
           {"pairs", c.pairs},
           {"unmatched", c.unmatched},
           {"mean_difference_pp", opt(c.mean_difference_pp)},
           {"sd_difference_pp", opt(c.sd_difference_pp)},
           {"ci95_pp", c.ci95_low_pp ? Json::array({*c.ci95_low_pp, *c.ci95_high_pp}) : Json(nullptr)}};
}

}  // namespace ecocompute::data
