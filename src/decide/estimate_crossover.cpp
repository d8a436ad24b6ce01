// The crossover size of an estimate: where the model's mean ΔE changes sign inside the sizes the
// format was measured at (the published field crossover_b), for the GPU and batch asked about.
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "decide/estimate.hpp"

namespace ecocompute::decide {
namespace {

// Sizes searched along the measured range (log-spaced), then the sign change refined by bisection.
constexpr int kSearchPoints = 41;
constexpr int kBisections = 40;

// The search itself: up to kSearchPoints + kBisections mean predictions.
std::optional<double> search_crossover(const Evidence& evidence, const Query& q, const std::string& gpu) {
  const OutcomeModel& model = evidence.model->ratio;
  const FamilyFit* family = model.family_of(q.engine);
  if (family == nullptr) return std::nullopt;
  const std::string key = model_key(q.engine, std::string(q.precision.name));
  double lo = 0, hi = 0;
  for (const Location& l : family->locations()) {
    if (l.point.key != key || l.point.arch != q.arch) continue;
    lo = lo == 0 ? l.place.params_b : std::min(lo, l.place.params_b);
    hi = std::max(hi, l.place.params_b);
  }
  if (!(lo > 0) || hi <= lo) return std::nullopt;
  auto mean_at = [&](double n) {
    ModelPoint p = point_of(CellPlace{q.engine, std::string(q.precision.name), q.arch, gpu, n, q.batch, q.context});
    return model.predict_mean(p);
  };
  double previous_n = lo;
  auto previous = mean_at(lo);
  for (int i = 1; i < kSearchPoints && previous; ++i) {
    const double n = lo * std::pow(hi / lo, static_cast<double>(i) / (kSearchPoints - 1));
    const auto value = mean_at(n);
    if (!value) return std::nullopt;
    if ((*previous < 0) != (*value < 0)) {
      double a = previous_n, b = n;
      const bool rising = *value > *previous;
      for (int k = 0; k < kBisections; ++k) {
        const double mid = std::sqrt(a * b);
        const auto m = mean_at(mid);
        if (!m) return std::nullopt;
        ((*m < 0) == rising ? a : b) = mid;
      }
      return std::sqrt(a * b);
    }
    previous_n = n;
    previous = value;
  }
  return std::nullopt;
}

}  // namespace

std::optional<double> crossover_size(const Evidence& evidence, const Query& q) {
  const std::string gpu = answer_gpu(evidence, q);
  const std::string question = fmt::format("{}|{}|{}|{}|{}|{}", q.engine, q.precision.name, q.arch, gpu, q.batch, q.context);
  return evidence.model->crossovers.get(question, [&] { return search_crossover(evidence, q, gpu); });
}

}  // namespace ecocompute::decide
