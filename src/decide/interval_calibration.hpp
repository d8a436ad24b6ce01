// The calibration of the model's intervals on held-out cells (split-conformal prediction: Vovk,
// Gammerman & Shafer 2005; with the scores of held-out folds, Barber, Candès, Ramdas & Tibshirani
// 2021). `calibrate` answers every held-out cell from the rest of the evidence and records the score
// of that answer: the factor by which the interval's log-scale half-width had to grow (or could
// shrink) to hold the measured value, with the cell's own measurement noise added as `calibrate`
// adds it. Per class of answer — its basis and what the asked place lacks that a measured one has
// (Extent) — the factor of the nominal 95 % interval is the ⌈0.95 (n + 1)⌉-th smallest of the n
// scores; with fewer than 19 scores no finite factor exists and the model's own interval stands.
// The factors are kept with the digest of the evidence they were computed on, and an answer uses
// them only for that evidence.
//
// A class whose answers lack their size also keeps the nearest that any of its held-out answers came
// to a measured size (|ln N − ln N_measured|). An answer closer than that to a measured size has no
// held-out answer of its class at its distance: its factor is read on a straight line in that
// distance from the factor of the same question at the nearest measured size (distance 0) to its
// class's factor (at the nearest distance calibrated), so that the interval does not step where a
// size becomes measured.
#pragma once

#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "data/basis.hpp"
#include "util/json.hpp"
#include "util/result.hpp"

namespace ecocompute::decide {

/// What the asked place lacks against the measured places of its format (in its regime, on its
/// architecture): a card of its own (every part measured: another card at a measured place, or a size
/// and a batch each measured but not together), its size, its batch, both, or its context. A size that
/// is not measured lies between the measured ones (`size`), below all of them (`size_below`) or above
/// (`size_above`): a smaller model is paced by the host's kernel launches more than any measured one,
/// a larger one by the bytes of its weights more, so the two sides are calibrated apart (a Mondrian
/// taxonomy: Vovk, Gammerman & Shafer 2005, ch. 4).
enum class Extent {
  card,
  size,
  size_below,
  size_above,
  batch,
  size_and_batch,
  size_below_and_batch,
  size_above_and_batch,
  context
};
std::string_view to_string(Extent extent) noexcept;
Result<Extent> parse_extent(std::string_view text);

/// The factor of one class of answers.
struct ClassFactor {
  data::Basis basis = data::Basis::measured;
  Extent extent = Extent::card;
  int n = 0;                     ///< held-out answers of this class that the factor comes from
  std::optional<double> factor;  ///< absent below 19 scores: the model's own interval stands
  /// For a class whose answers lack their size: the smallest |ln N − ln N_measured| among its held-out
  /// answers (absent for the other classes, and when none was held out).
  std::optional<double> nearest_size_distance{};
};

/// One held-out answer's score with what the factor of its class needs to know of it.
struct ClassScore {
  double score = 0;
  double size_distance = 0;  ///< |ln N − ln N_measured| to the nearest measured size; 0 when the size was measured
};

/// Where an answer stands against the measured sizes, for the factor of its interval.
struct SizePlace {
  double distance = 0;  ///< |ln N − ln N_measured| to the nearest measured size of its format
  std::optional<std::pair<data::Basis, Extent>> nearest_class;  ///< the class of the same question at that size
  double nearest_params_b = 0;  ///< that size as measured; set with nearest_class
};

/// The factor an answer's half-width takes, and the classes it comes from.
struct AnswerFactor {
  const ClassFactor* own = nullptr;      ///< for_answer(basis, extent); nullptr: nothing calibrated
  const ClassFactor* nearest = nullptr;  ///< the class at the nearest measured size, when the factor is read between the two
  double weight = 1.0;                   ///< the share of own's factor: distance / own's nearest_size_distance, ≤ 1
  double factor = 1.0;                   ///< (1 − weight) · nearest's + weight · own's; 1 without a finite factor
};

struct IntervalCalibration {
  std::string evidence_digest;   ///< evidence_digest of the rows it was computed on
  double nominal = 0.95;
  std::string computed;          ///< when and by what (`ecocompute calibrate …`), for people
  std::vector<ClassFactor> classes;

  /// The class of an answer, nullptr when none was calibrated.
  [[nodiscard]] const ClassFactor* find(data::Basis basis, Extent extent) const;
  /// The class whose factor an answer of (basis, extent) takes: its own when it has a factor; else (too
  /// few held-out answers of its kind, or none) the class with the largest factor among those resting
  /// on more evidence (a better basis), so that an answer on less evidence is never scaled less than
  /// every answer on more; else its own without a factor; nullptr when there is nothing.
  [[nodiscard]] const ClassFactor* for_answer(data::Basis basis, Extent extent) const;
  /// The nearest_size_distance of the class an answer of (basis, extent) takes (for_answer): no answer
  /// farther than that from a measured size is read between two classes; 0 when it keeps none.
  [[nodiscard]] double size_reach(data::Basis basis, Extent extent) const;
  /// The factor of an answer of (basis, extent) at `place` (see the file's comment).
  [[nodiscard]] AnswerFactor answer_factor(data::Basis basis, Extent extent, const SizePlace& place) const;
};

/// Whether an answer of this extent lacks its size (and the size's distance to a measured one matters).
constexpr bool lacks_size(Extent extent) noexcept { return extent != Extent::card && extent != Extent::batch && extent != Extent::context; }

/// The ⌈nominal (n + 1)⌉-th smallest score; nullopt when that index exceeds n.
std::optional<double> conformal_quantile(std::vector<double> scores, double nominal);

/// The score of one held-out answer: the smallest factor f ≥ 0 such that the interval
/// exp(log_mean ∓ f · log_half_width), each side widened in quadrature by `noise_pct` (the cell's own
/// 95 % half-width, ΔE points), holds `truth_pct`. Infinite when no factor does (the truth at −100 %).
double coverage_score(double log_mean, double log_half_width, double truth_pct, double noise_pct);

/// The factors of every class from the scores of held-out answers of each.
std::vector<ClassFactor> class_factors(const std::map<std::pair<data::Basis, Extent>, std::vector<ClassScore>>& scores, double nominal);

void to_json(Json& j, const IntervalCalibration& c);
Result<IntervalCalibration> interval_calibration_from_json(const Json& j);

/// The calibration file an answer reads: $ECOCOMPUTE_CALIBRATION, else data_dir()/interval-calibration.json.
std::filesystem::path calibration_path();
/// The calibration at `path` when it was computed on the evidence of `digest`; nullptr when the file is
/// absent, unreadable or of other evidence (the reason logged at debug level).
std::shared_ptr<const IntervalCalibration> calibration_for(const std::string& digest, const std::filesystem::path& path = calibration_path());

}  // namespace ecocompute::decide
