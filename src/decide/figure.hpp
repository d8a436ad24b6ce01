// One predicted figure of an answer: its value, its 95 % predictive interval for a card the user
// owns (a new card of the GPU model asked about), and its basis, with the parts of its uncertainty
// on the log scale the model works on.
#pragma once

#include <functional>
#include <optional>

#include "data/basis.hpp"
#include "decide/interval_calibration.hpp"
#include "util/json.hpp"

namespace ecocompute::decide {

struct Figure {
  double value = 0;            ///< ΔE % (vs F16) or energy per token (mJ)
  double low = 0, high = 0;    ///< 95 % predictive interval for a new card
  data::FigureBasis basis;
  double log_mean = 0;         ///< the model's mean on its log scale
  double log_sd = 0;           ///< √(mean variance + between-card variance)
  double card_sd = 0;          ///< between cards at one place
  double log_variance_sd = 0;  ///< uncertainty of the variances themselves (variance_uncertainty.hpp)
  double quantile = 1.96;      ///< the model's half-width in log_sd: k(log_variance_sd)
  Extent extent = Extent::card;  ///< what the asked place lacks against the measured ones (ΔE)
  /// Where the asked size stands against the format's measured sizes (ΔE whose place lacks its size).
  SizePlace size_place;
  /// The calibration of held-out answers of this figure's class that scaled its interval
  /// (interval_calibration.hpp); absent when none applies and the model's own interval stands.
  std::optional<ClassFactor> calibration;
  /// Nearer a measured size than any held-out answer of its class: the class of the same question at
  /// that size, whose factor the interval's is read from together with `calibration`'s.
  std::optional<ClassFactor> nearest_calibration;
  double calibration_weight = 1.0;  ///< `calibration`'s share of the factor (AnswerFactor::weight)
  double factor = 1.0;              ///< what the model's half-width is multiplied by

  [[nodiscard]] double interval_factor() const { return factor; }
};

/// A figure from a log-normal prediction: value = to_value(mean), interval to_value(mean ∓ k·sd).
Figure figure_from_log(double mean, double mean_var, double card_var, double log_variance_sd,
                       const std::function<double(double)>& to_value);

/// Scales the interval by the calibration's factor for the figure's class and size place
/// (IntervalCalibration::answer_factor): to_value(log_mean ∓ factor · quantile · log_sd).
void calibrate_interval(Figure& f, const IntervalCalibration& calibration, const std::function<double(double)>& to_value);

/// ΔE % of a log ratio, and energy of a log energy.
double delta_of_log(double y);
double energy_of_log(double z);

void to_json(Json& j, const Figure& f);

}  // namespace ecocompute::decide
