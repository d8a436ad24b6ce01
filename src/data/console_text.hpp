// Human-readable renderings of the decision layer's answers for the terminal (JSON is the
// machine-readable form; these are short and never drop the basis or the uncertainty). The grade's and
// the comparison's live with them (grader.hpp, comparison.hpp).
#pragma once

#include <string>
#include <vector>

#include "data/comparison.hpp"
#include "data/curve_set.hpp"
#include "data/dataset_store.hpp"
#include "data/estimator.hpp"
#include "data/grader.hpp"
#include "data/optimizer.hpp"

namespace ecocompute::data {

/// Returns the lines printed by `ecocompute estimate`.
std::string to_text(const EstimateResponse& response);
/// Returns the lines printed by `ecocompute optimize`.
std::string to_text(const OptimizeResponse& response);
/// Returns the summary printed by `ecocompute data import`.
std::string to_text(const ImportSummary& summary);
/// Returns a table of sessions with their row counts (`ecocompute data list`).
std::string sessions_table(const std::vector<Session>& sessions, const std::vector<DataRow>& rows);
/// Returns one session and its rows (`ecocompute data show`).
std::string session_text(const Session& session, const std::vector<DataRow>& rows);
/// Returns a table of curves (`ecocompute data curves`).
std::string curves_table(const std::vector<Curve>& curves);

}  // namespace ecocompute::data
