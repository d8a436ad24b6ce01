// The evidence's coverage from the model (see architectures.hpp).
#include "decide/architectures.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <tuple>

#include "data/gpu_spec.hpp"
#include "decide/estimate.hpp"
#include "util/precision.hpp"

namespace ecocompute::decide {
namespace {

// Points drawn along a curve of the site.
constexpr int kCurveSamples = 41;

struct Coverage {
  std::set<double> sizes, batch_one_sizes;
  std::set<int> batches;
  std::set<std::string> gpus, sessions;
  std::map<int, std::set<double>> sizes_at;  // per batch level
  std::map<int, std::set<std::string>> sessions_at;
};

using FormatKey = std::tuple<std::string, std::string, std::string>;  // arch, engine, precision

std::map<FormatKey, Coverage> coverage(const Evidence& evidence) {
  std::map<FormatKey, Coverage> out;
  for (const auto& [name, family] : evidence.model->ratio.families()) {
    for (const Location& l : family.locations()) {
      if (l.point.context > 0) continue;  // the coverage is of the baseline context
      Coverage& c = out[{l.place.arch, l.place.engine, l.place.precision}];
      c.sizes.insert(l.place.params_b);
      if (l.place.batch == 1) c.batch_one_sizes.insert(l.place.params_b);
      c.batches.insert(l.place.batch);
      c.gpus.insert(l.place.gpu);
      c.sessions.insert(l.sessions.begin(), l.sessions.end());
      c.sizes_at[l.place.batch].insert(l.place.params_b);
      c.sessions_at[l.place.batch].insert(l.sessions.begin(), l.sessions.end());
    }
  }
  return out;
}

Query batch_question(const FormatKey& key, double params_b, int batch) {
  const auto& [arch, engine, precision] = key;
  Query q;
  q.params_b = params_b;
  q.batch = batch;
  q.arch = arch;
  q.engine = engine;
  if (auto p = parse_precision(precision)) q.precision = *p;
  q.allow_borrow = true;
  return q;
}

Query batch_one_question(const FormatKey& key, double params_b) { return batch_question(key, params_b, 1); }

Json range_of(const Coverage& c) {
  const std::set<double>& sizes = c.batch_one_sizes.empty() ? c.sizes : c.batch_one_sizes;
  return Json::array({*sizes.begin(), *sizes.rbegin()});
}

// The sizes a curve at `batch` rests on: at batch 1 those measured at batch 1 (all of them where none
// was), at another batch those measured at it.
Json range_at(const Coverage& c, int batch) {
  if (batch == 1) return range_of(c);
  const std::set<double>& sizes = c.sizes_at.at(batch);
  return Json::array({*sizes.begin(), *sizes.rbegin()});
}

Json sample(const Evidence& evidence, const FormatKey& key, double n, const Json& range, int batch) {
  auto p = predict(evidence, batch_question(key, n, batch));
  if (!p || !p->delta) return nullptr;
  return Json{{"params_b", n},
              {"delta_pct", p->delta->value},
              {"ci_low_pct", p->delta->low},
              {"ci_high_pct", p->delta->high},
              // The published curves' prediction band: the model's interval already is one (for a new card).
              {"pi_low_pct", p->delta->low},
              {"pi_high_pct", p->delta->high},
              {"basis", to_string(p->delta->basis.basis)},
              {"in_range", n >= range[0].get<double>() * (1 - 1e-12) && n <= range[1].get<double>() * (1 + 1e-12)}};
}

}  // namespace

std::string architecture_label(std::string_view arch) {
  if (arch == "turing") return "Turing (T4)";
  if (arch == "ada") return "Ada (RTX 4090/4090D)";
  if (arch == "blackwell") return "Blackwell (RTX 5090)";
  if (arch == "ampere") return "Ampere (A100/A800)";
  if (arch == "hopper") return "Hopper (H100/H200)";
  return std::string(arch);
}

Json published_architectures_json(const Evidence& evidence) {
  Json out = Json::object();
  for (const auto& [key, c] : coverage(evidence)) {
    const auto& [arch, engine, precision] = key;
    Json& a = out[arch];
    if (!a.contains("label")) a = Json{{"label", architecture_label(arch)}, {"precisions", Json::object()}};
    const Json range = range_of(c);
    const Json crossover = json_or_null(crossover_size(evidence, batch_one_question(key, range[0].get<double>())));
    Json& entry = a["precisions"][precision];
    const auto info = parse_precision(precision);
    const bool usual = info && info->default_engine == engine;
    if (!entry.contains("measured_range_b") || usual) {
      Json engines = entry.contains("engines") ? entry["engines"] : Json::object();
      entry = Json{{"measured_range_b", range}, {"crossover_b", crossover}, {"engine", engine}};
      entry["engines"] = std::move(engines);
    }
    entry["engines"][engine] = Json{{"measured_range_b", range}, {"crossover_b", crossover}};
  }
  for (const std::string& arch : data::known_architectures()) {
    if (out.contains(arch)) continue;
    if (auto borrow = data::default_borrow(arch)) {
      out[arch] = Json{{"label", architecture_label(arch)}, {"borrows_from", *borrow}, {"precisions", Json::object()}};
    }
  }
  return out;
}

std::size_t curve_count(const Evidence& evidence) { return coverage(evidence).size(); }

Json architectures_json(const Evidence& evidence) {
  std::map<std::string, Json> by_arch;
  for (const auto& [key, c] : coverage(evidence)) {
    const auto& [arch, engine, precision] = key;
    by_arch[arch].push_back(Json{{"engine", engine}, {"precision", precision}, {"gpus", c.gpus}, {"sizes_b", c.sizes},
                                 {"batches", c.batches}, {"sessions", c.sessions.size()}});
  }
  Json out = Json::array();
  for (auto& [arch, formats] : by_arch) out.push_back(Json{{"arch", arch}, {"formats", std::move(formats)}});
  return out;
}

Json curves_json(const Evidence& evidence, const std::optional<std::string>& arch, const std::optional<std::string>& precision,
                 int batch) {
  Json list = Json::array();
  for (const auto& [key, c] : coverage(evidence)) {
    const auto& [a, engine, p] = key;
    if ((arch && a != *arch) || (precision && p != *precision)) continue;
    if (batch != 1 && !c.sizes_at.contains(batch)) continue;
    const Json range = range_at(c, batch);
    const double lo = std::max(0.05, range[0].get<double>() / 2), hi = std::max(lo * 1.01, range[1].get<double>() * 2);
    Json samples = Json::array();
    for (int i = 0; i < kCurveSamples; ++i) {
      const double n = std::exp(std::log(lo) + (std::log(hi) - std::log(lo)) * i / (kCurveSamples - 1));
      if (Json s = sample(evidence, key, n, range, batch); !s.is_null()) samples.push_back(std::move(s));
    }
    const std::size_t sessions = batch == 1 ? c.sessions.size() : c.sessions_at.at(batch).size();
    list.push_back(Json{{"gpu_arch", a}, {"engine", engine}, {"precision", p}, {"source", "model"}, {"batch", batch}, {"gpus", c.gpus},
                        {"range_min_b", range[0]}, {"range_max_b", range[1]}, {"sessions", sessions},
                        {"crossover_b", json_or_null(crossover_size(evidence, batch_question(key, range[0].get<double>(), batch)))},
                        {"samples", std::move(samples)}});
  }
  return list;
}

}  // namespace ecocompute::decide
