// The quality probe of a run: after every energy window, on the same loaded weights as measured.
#pragma once

#include <atomic>
#include <filesystem>
#include <string>
#include <vector>

#include "experiment/loaded_engines.hpp"
#include "protocol/design.hpp"
#include "quality/quality_result.hpp"

namespace ecocompute::experiment {

struct QualityOutcome {
  std::vector<quality::QualityResult> results;  ///< empty when the probe did not run
  std::string failure;                          ///< why it did not run or failed; empty otherwise
};

/// Scores `text` (empty: the shipped held-out corpus) on the baseline and every loaded candidate.
/// Says why it did not run when the run was cancelled or the baseline never loaded.
[[nodiscard]] QualityOutcome probe_run_quality(const protocol::Design& design, const LoadedEngines& engines,
                                               const std::filesystem::path& text, const quality::WindowPolicy& policy,
                                               bool cancelled, const std::atomic<bool>* cancel);

}  // namespace ecocompute::experiment
