// Human-readable renderings of the store for the terminal (JSON is the machine-readable form): an
// import's summary, the sessions, one session's rows, fitted curves. The decision layer's answers are
// rendered in src/decide.
#pragma once

#include <string>
#include <vector>

#include <map>

#include "data/curve_set.hpp"
#include "data/dataset_store.hpp"

namespace ecocompute::data {

/// Returns the summary printed by `ecocompute data import`.
std::string to_text(const ImportSummary& summary);
/// Returns a table of sessions with their row counts (`ecocompute data list`), counted by the store.
std::string sessions_table(const std::vector<Session>& sessions, const std::map<std::string, int>& row_counts);
/// Returns one session and its rows (`ecocompute data show`).
std::string session_text(const Session& session, const std::vector<DataRow>& rows);
/// Returns a table of curves (`ecocompute data curves`).
std::string curves_table(const std::vector<Curve>& curves);

}  // namespace ecocompute::data
