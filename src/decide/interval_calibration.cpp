// Calibration factors of the model's intervals (see interval_calibration.hpp).
#include "decide/interval_calibration.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <limits>

#include <fmt/format.h>

#include "util/file_io.hpp"
#include "util/log.hpp"

namespace ecocompute::decide {
namespace {

constexpr std::array<Extent, 9> kExtents{Extent::card,  Extent::size,           Extent::size_below,           Extent::size_above,
                                         Extent::batch, Extent::size_and_batch, Extent::size_below_and_batch, Extent::size_above_and_batch,
                                         Extent::context};

}  // namespace

std::string_view to_string(Extent extent) noexcept {
  switch (extent) {
    case Extent::card: return "card";
    case Extent::size: return "size";
    case Extent::batch: return "batch";
    case Extent::size_below: return "size_below";
    case Extent::size_above: return "size_above";
    case Extent::size_and_batch: return "size_and_batch";
    case Extent::size_below_and_batch: return "size_below_and_batch";
    case Extent::size_above_and_batch: return "size_above_and_batch";
    case Extent::context: return "context";
  }
  return "card";
}

Result<Extent> parse_extent(std::string_view text) {
  for (Extent e : kExtents) {
    if (to_string(e) == text) return e;
  }
  std::string known;
  for (Extent e : kExtents) known += fmt::format("{}{}", known.empty() ? "" : ", ", to_string(e));
  return unexpected(ErrorCode::invalid_argument, fmt::format("unknown extent '{}' ({})", text, known));
}

const ClassFactor* IntervalCalibration::find(data::Basis basis, Extent extent) const {
  for (const ClassFactor& c : classes) {
    if (c.basis == basis && c.extent == extent) return &c;
  }
  return nullptr;
}

const ClassFactor* IntervalCalibration::for_answer(data::Basis basis, Extent extent) const {
  const ClassFactor* own = find(basis, extent);
  if (own != nullptr && own->factor) return own;
  const ClassFactor* widest = nullptr;
  for (const ClassFactor& c : classes) {
    if (c.factor && c.basis < basis && (widest == nullptr || *c.factor > *widest->factor)) widest = &c;
  }
  return widest != nullptr ? widest : own;
}

double IntervalCalibration::size_reach(data::Basis basis, Extent extent) const {
  const ClassFactor* c = for_answer(basis, extent);
  return c != nullptr && c->factor ? c->nearest_size_distance.value_or(0.0) : 0.0;
}

AnswerFactor IntervalCalibration::answer_factor(data::Basis basis, Extent extent, const SizePlace& place) const {
  AnswerFactor a;
  a.own = for_answer(basis, extent);
  if (a.own == nullptr || !a.own->factor) return a;
  a.factor = *a.own->factor;
  const std::optional<double> reach = a.own->nearest_size_distance;  // absent on a class taken for a thinner one
  if (!lacks_size(extent) || !reach || !place.nearest_class || !(place.distance < *reach)) return a;
  const ClassFactor* nearest = for_answer(place.nearest_class->first, place.nearest_class->second);
  if (nearest == nullptr || !nearest->factor) return a;
  a.nearest = nearest;
  a.weight = place.distance / *reach;
  a.factor = (1 - a.weight) * *nearest->factor + a.weight * *a.own->factor;
  return a;
}

std::optional<double> conformal_quantile(std::vector<double> scores, double nominal) {
  const auto n = static_cast<double>(scores.size());
  const auto rank = static_cast<std::size_t>(std::ceil(nominal * (n + 1) - 1e-9));
  if (rank < 1 || rank > scores.size()) return std::nullopt;
  std::nth_element(scores.begin(), scores.begin() + static_cast<std::ptrdiff_t>(rank - 1), scores.end());
  return scores[rank - 1];
}

double coverage_score(double log_mean, double log_half_width, double truth_pct, double noise_pct) {
  const double scale = 100.0 * std::exp(log_mean);  // d(ΔE)/d(log) at the mean
  const double mean_pct = scale - 100.0;
  const double miss = truth_pct - mean_pct;
  const double beyond_noise = std::sqrt(std::max(miss * miss - noise_pct * noise_pct, 0.0));
  if (beyond_noise == 0.0) return 0.0;
  if (!(log_half_width > 0)) return std::numeric_limits<double>::infinity();
  if (miss > 0) return std::log1p(beyond_noise / scale) / log_half_width;
  if (beyond_noise >= scale) return std::numeric_limits<double>::infinity();
  return -std::log1p(-beyond_noise / scale) / log_half_width;
}

std::vector<ClassFactor> class_factors(const std::map<std::pair<data::Basis, Extent>, std::vector<ClassScore>>& scores, double nominal) {
  std::vector<ClassFactor> out;
  for (const auto& [key, list] : scores) {
    std::vector<double> values;
    std::optional<double> nearest;
    for (const ClassScore& s : list) {
      values.push_back(s.score);
      if (lacks_size(key.second)) nearest = std::min(nearest.value_or(s.size_distance), s.size_distance);
    }
    out.push_back({key.first, key.second, static_cast<int>(list.size()), conformal_quantile(std::move(values), nominal), nearest});
  }
  return out;
}

void to_json(Json& j, const IntervalCalibration& c) {
  Json classes = Json::array();
  for (const ClassFactor& f : c.classes) {
    Json item{{"basis", data::to_string(f.basis)}, {"extent", to_string(f.extent)}, {"n", f.n},
              {"factor", f.factor ? Json(*f.factor) : Json(nullptr)}};
    if (f.nearest_size_distance) item["nearest_size_distance"] = *f.nearest_size_distance;
    classes.push_back(std::move(item));
  }
  j = Json{{"evidence_digest", c.evidence_digest}, {"nominal", c.nominal}, {"computed", c.computed}, {"classes", std::move(classes)}};
}

Result<IntervalCalibration> interval_calibration_from_json(const Json& j) {
  if (!j.is_object() || !j.contains("evidence_digest") || !j.contains("classes") || !j["classes"].is_array()) {
    return unexpected(ErrorCode::invalid_argument, "a calibration needs evidence_digest and classes");
  }
  IntervalCalibration c;
  c.evidence_digest = j.value("evidence_digest", std::string());
  c.nominal = j.value("nominal", 0.95);
  c.computed = j.value("computed", std::string());
  for (const Json& item : j["classes"]) {
    auto basis = data::parse_basis(item.value("basis", std::string()));
    if (!basis) return basis.error();
    auto extent = parse_extent(item.value("extent", std::string()));
    if (!extent) return extent.error();
    ClassFactor f{*basis, *extent, item.value("n", 0), std::nullopt, std::nullopt};
    if (item.contains("factor") && item["factor"].is_number()) {
      const double value = item["factor"].get<double>();
      if (!std::isfinite(value) || value < 0) return unexpected(ErrorCode::invalid_argument, "a calibration factor must be finite and ≥ 0");
      f.factor = value;
    }
    if (item.contains("nearest_size_distance")) {
      const Json& d = item["nearest_size_distance"];
      if (!d.is_number() || !std::isfinite(d.get<double>()) || d.get<double>() < 0) {
        return unexpected(ErrorCode::invalid_argument, "a calibration's nearest_size_distance must be a finite number ≥ 0");
      }
      f.nearest_size_distance = d.get<double>();
    }
    c.classes.push_back(f);
  }
  return c;
}

std::filesystem::path calibration_path() {
  if (const char* env = std::getenv("ECOCOMPUTE_CALIBRATION"); env != nullptr && *env != '\0') return env;
  return data_dir() / "interval-calibration.json";
}

std::shared_ptr<const IntervalCalibration> calibration_for(const std::string& digest, const std::filesystem::path& path) {
  std::error_code ec;
  if (digest.empty() || !std::filesystem::exists(path, ec)) return nullptr;
  auto text = read_file(path);
  if (!text) return nullptr;
  const Json j = Json::parse(*text, nullptr, false);
  auto calibration = j.is_discarded() ? Result<IntervalCalibration>(unexpected(ErrorCode::invalid_argument, "not JSON"))
                                      : interval_calibration_from_json(j);
  if (!calibration) {
    log::warn("{}: not a calibration of intervals ({}); answers use the model's own intervals", path.string(), calibration.error().message());
    return nullptr;
  }
  if (calibration->evidence_digest != digest) {
    log::debug("{} was computed on other evidence; answers use the model's own intervals", path.string());
    return nullptr;
  }
  return std::make_shared<const IntervalCalibration>(std::move(*calibration));
}

}  // namespace ecocompute::decide
