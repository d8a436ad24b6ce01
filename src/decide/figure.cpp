// Predicted figures (see figure.hpp).
#include "decide/figure.hpp"

#include <algorithm>
#include <cmath>

#include "decide/variance_uncertainty.hpp"

namespace ecocompute::decide {

double delta_of_log(double y) { return 100.0 * std::expm1(y); }
double energy_of_log(double z) { return std::exp(z); }

Figure figure_from_log(double mean, double mean_var, double card_var, double log_variance_sd,
                       const std::function<double(double)>& to_value) {
  Figure f;
  f.log_mean = mean;
  f.log_sd = std::sqrt(std::max(mean_var + card_var, 0.0));
  f.card_sd = std::sqrt(std::max(card_var, 0.0));
  f.log_variance_sd = log_variance_sd;
  f.quantile = mixture_quantile_factor(log_variance_sd);
  f.value = to_value(mean);
  f.low = to_value(mean - f.quantile * f.log_sd);
  f.high = to_value(mean + f.quantile * f.log_sd);
  return f;
}

void calibrate_interval(Figure& f, const IntervalCalibration& calibration, const std::function<double(double)>& to_value) {
  const AnswerFactor a = calibration.answer_factor(f.basis.basis, f.extent, f.size_place);
  if (a.own == nullptr) return;
  f.calibration = *a.own;
  if (a.nearest != nullptr) f.nearest_calibration = *a.nearest;
  f.calibration_weight = a.weight;
  f.factor = a.factor;
  const double half = f.interval_factor() * f.quantile * f.log_sd;
  f.low = to_value(f.log_mean - half);
  f.high = to_value(f.log_mean + half);
}

namespace {

Json class_json(const ClassFactor& c) {
  return Json{{"class", Json{{"basis", data::to_string(c.basis)}, {"extent", to_string(c.extent)}}},
              {"class_factor", c.factor ? Json(*c.factor) : Json(nullptr)},
              {"held_out_answers", c.n}};
}

// The factor applied, its class, and — read between two classes near a measured size — the other one.
Json calibration_json(const Figure& f) {
  if (!f.calibration) return nullptr;
  Json j = class_json(*f.calibration);
  j["factor"] = f.factor;
  j["nearest_measured_size"] = nullptr;
  if (f.nearest_calibration) {
    Json near = class_json(*f.nearest_calibration);
    near["params_b"] = f.size_place.nearest_params_b;
    near["log_size_distance"] = f.size_place.distance;
    near["weight_of_own_class"] = f.calibration_weight;
    j["nearest_measured_size"] = std::move(near);
  }
  return j;
}

}  // namespace

void to_json(Json& j, const Figure& f) {
  j = Json{{"value", f.value},
           {"interval", Json::array({f.low, f.high})},
           {"basis", to_string(f.basis.basis)},
           {"basis_detail", f.basis},
           {"log_mean", f.log_mean},
           {"log_sd", f.log_sd},
           {"between_cards_log_sd", f.card_sd},
           {"variance_uncertainty_log_sd", f.log_variance_sd},
           {"quantile", f.quantile},
           {"extent", to_string(f.extent)},
           {"interval_calibration", calibration_json(f)}};
}

}  // namespace ecocompute::decide
