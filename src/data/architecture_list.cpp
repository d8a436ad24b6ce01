// The published-shape architecture list.
#include "data/architecture_list.hpp"

#include "data/gpu_spec.hpp"
#include "util/precision.hpp"

namespace ecocompute::data {

std::string architecture_label(std::string_view arch) {
  if (arch == "turing") return "Turing (T4)";
  if (arch == "ada") return "Ada (RTX 4090/4090D)";
  if (arch == "blackwell") return "Blackwell (RTX 5090)";
  if (arch == "ampere") return "Ampere (A100/A800)";
  if (arch == "hopper") return "Hopper (H100/H200)";
  return std::string(arch);
}

Json published_architectures_json(const CurveSet& curves) {
  Json out = Json::object();
  for (const Curve& c : curves.curves) {
    Json& arch = out[c.key.gpu_arch];
    if (!arch.contains("label")) arch = Json{{"label", architecture_label(c.key.gpu_arch)}, {"precisions", Json::object()}};
    const Json range = Json::array({c.fit.range_min_b, c.fit.range_max_b});
    const Json crossover = json_or_null(c.fit.crossover_b);
    Json& entry = arch["precisions"][c.key.precision];
    const auto info = parse_precision(c.key.precision);
    const bool usual = info && info->default_engine == c.key.engine;
    if (!entry.contains("measured_range_b") || usual) {
      Json engines = entry.contains("engines") ? entry["engines"] : Json::object();
      entry = Json{{"measured_range_b", range}, {"crossover_b", crossover}, {"engine", c.key.engine}};
      entry["engines"] = std::move(engines);
    }
    entry["engines"][c.key.engine] = Json{{"measured_range_b", range}, {"crossover_b", crossover}};
  }
  for (const std::string& arch : known_architectures()) {
    if (out.contains(arch)) continue;
    if (auto borrow = default_borrow(arch)) {
      out[arch] = Json{{"label", architecture_label(arch)}, {"borrows_from", *borrow}, {"precisions", Json::object()}};
    }
  }
  return out;
}

}  // namespace ecocompute::data
