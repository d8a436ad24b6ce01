// Calibration: how often the nominal 95 % interval of an answer holds what a session we did not show
// the model measured. Each fold holds out a group of measured cells (a whole session, a whole model
// size, or a whole batch size), answers every held-out cell from the rest of the evidence, and
// counts the cells whose measured ΔE lies inside the interval (widened by that cell's own
// measurement noise, which a new measurement also carries), per basis of the answer.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "data/basis.hpp"
#include "data/data_row.hpp"
#include "decide/interval_calibration.hpp"
#include "decide/model_cells.hpp"
#include "util/json.hpp"
#include "util/result.hpp"

namespace ecocompute::decide {

/// What is held out together.
enum class HoldOut { session, size, batch };
std::string_view to_string(HoldOut mode) noexcept;
Result<HoldOut> parse_hold_out(std::string_view text);

/// An answer for a held-out cell: ΔE % and its nominal 95 % interval, with the answer's basis.
struct HeldOutAnswer {
  double delta_pct = 0;
  double low_pct = 0, high_pct = 0;
  data::Basis basis = data::Basis::unavailable;
  Extent extent = Extent::card;  ///< what the asked place lacked (the answer's class with its basis)
  SizePlace size_place{};        ///< how far its size was from a measured one, and that size's class
};

/// Answers cells from a training set of rows; nullopt where the answer is a refusal.
using CellPredictor = std::function<std::optional<HeldOutAnswer>(const Cell& held_out)>;
/// Builds a predictor from the rows and sessions of one fold's training set.
using PredictorFactory =
    std::function<Result<CellPredictor>(const std::vector<data::DataRow>& training, const std::vector<data::Session>& sessions)>;

/// Coverage of one basis.
struct BasisCoverage {
  int n = 0;        ///< held-out cells answered with this basis
  int covered = 0;  ///< of them, inside the interval
  std::vector<double> widths;  ///< interval widths, percentage points
  [[nodiscard]] double coverage() const noexcept { return n > 0 ? static_cast<double>(covered) / n : 0.0; }
  [[nodiscard]] double median_width() const;
};

/// One held-out cell and its answer, for reading the misses one by one.
struct HeldOutCell {
  std::string group;  ///< what was held out with it (a session, a size or a batch)
  std::string session;
  CellPlace place;
  double measured_pct = 0;
  HeldOutAnswer answer;
  bool covered = false;
  /// The factor the answer's half-width needed to hold the measured value (coverage_score); ≤ 1 when covered.
  double score = 0;
  /// With the factor of its class computed without its fold's cells: the scaled interval held it, and its width.
  bool calibrated_covered = false;
  double calibrated_width = 0;
};

/// One hold-out mode's result.
struct ModeCalibration {
  HoldOut mode = HoldOut::session;
  int folds = 0;
  int refused = 0;  ///< held-out cells the evidence left could not answer
  std::map<data::Basis, BasisCoverage> by_basis;  ///< the model's own intervals
  /// The intervals scaled by the factor of their class, each computed without the fold's own cells
  /// (cross-conformal: what an answer for a group not yet measured gets).
  std::map<data::Basis, BasisCoverage> calibrated;
  std::vector<HeldOutCell> cells;  ///< every answered held-out cell
};

struct CalibrationReport {
  std::vector<ModeCalibration> modes;
  std::map<data::Basis, BasisCoverage> all;  ///< every mode together
  std::map<data::Basis, BasisCoverage> all_calibrated;
  /// The factor of each class (basis, extent) from every held-out answer of every mode: what answers on
  /// this evidence are scaled by (calibrate --write).
  std::vector<ClassFactor> factors;
};

/// Runs the folds of each mode over the measured cells of `rows`. `every` > 1 holds out only every
/// `every`-th group of a mode (in sorted order, from the first): a sample of the folds at 1/`every` of the cost
/// (each fold refits the model), for a guard that need not hold every session out.
Result<CalibrationReport> calibrate(const std::vector<data::DataRow>& rows, const std::vector<data::Session>& sessions,
                                    const PredictorFactory& factory, const std::vector<HoldOut>& modes,
                                    std::size_t every = 1);

void to_json(Json& j, const CalibrationReport& report);
/// The table printed by `ecocompute calibrate`.
std::string to_text(const CalibrationReport& report);

}  // namespace ecocompute::decide
