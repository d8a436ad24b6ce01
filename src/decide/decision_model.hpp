// The decision model: two outcome models fitted to the same stored rows — the log energy ratio of a
// format against its same-run F16 baseline, and the log F16 energy itself — with the digest of the
// cells they were fitted to, so that a stored fit is used only for the evidence it describes.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "data/data_row.hpp"
#include "decide/outcome_model.hpp"
#include "util/json.hpp"
#include "util/kept_answers.hpp"
#include "util/result.hpp"

namespace ecocompute::decide {

struct DecisionModel {
  OutcomeModel ratio;  ///< ln(E / E_F16) of quantized formats
  OutcomeModel fp16;   ///< ln E_F16, mJ per token
  std::string digest;  ///< evidence_digest of the rows fitted
  /// Crossover sizes of estimates (estimate_crossover.cpp) by what they depend on — engine, format,
  /// architecture, GPU, batch and context, not the size asked about — worked out once per model.
  util::KeptAnswers<std::optional<double>> crossovers;

  /// Fits both outcomes to the measured rows (the F16 energy too unless `with_energy` is false: the
  /// calibration of ΔE needs only the ratio); `warm` (a previous fit) starts the searches.
  static DecisionModel fit(const std::vector<data::DataRow>& rows, const DecisionModel* warm = nullptr, bool with_energy = true);
  /// The same variance components conditioned on every cell but one session's (no new search): what
  /// the model says of that session's measurements before seeing them (`check`). Needs no rows: the
  /// fit keeps its cells.
  [[nodiscard]] DecisionModel without_session(const std::string& session_id) const;

  static Result<DecisionModel> from_json(const Json& j);
};
void to_json(Json& j, const DecisionModel& m);

/// The version of the model's method: a stored fit of another version is refitted.
inline constexpr int kModelVersion = 6;  // 3: the components searched from many starts (BOBYQA); 4: context slopes; 5: the kernel regimes of MMVQ's two block shapes and F16's mul_mat_f; 6: linear in batch inside MMVQ's regimes
/// How a stored model is written, apart from what it is (a layout change keeps the evidence's digest
/// and so the calibration computed for it): 2, each place's cells as packed arrays.
inline constexpr int kStoredLayout = 2;

/// A digest of the cells a model fits (both outcomes), independent of the rows' order.
std::string evidence_digest(const std::vector<data::DataRow>& rows);

}  // namespace ecocompute::decide
