// Terminal renderings of quality evidence: the published rows with their sources (`ecocompute data
// quality`) and one format's quality cost with its basis (for the decision layer's answers).
#pragma once

#include <string>
#include <vector>

#include "data/published_quality.hpp"
#include "data/quality_cost.hpp"

namespace ecocompute::data {

/// A table of published quality rows, each with its source (file:line @ commit, table, revision).
std::string published_quality_table(const std::vector<PublishedQualityRow>& rows);

/// One line: "Q4_0: ΔPPL +7.52 % (3.76 … 15.0 %) transferred from LLaMA 3 8B — <source>", or the reason
/// it is unknown.
std::string to_text(const FormatQualityCost& cost);

}  // namespace ecocompute::data
