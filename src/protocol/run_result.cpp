// RunResult: counting failures and finding comparisons.
#include "protocol/run_result.hpp"

#include <algorithm>

namespace ecocompute::protocol {

const IterationDecision& RunResult::decision_for(int batch) const {
  static const IterationDecision kNone{};
  for (const IterationDecision& d : iteration_decisions) {
    if (d.batch == batch) return d;
  }
  return iteration_decisions.empty() ? kNone : iteration_decisions.front();
}

std::size_t RunResult::count_not_ok() const noexcept {
  return static_cast<std::size_t>(
      std::count_if(trials.begin(), trials.end(), [](const TrialResult& t) { return !t.is_ok(); }));
}

std::size_t RunResult::count_failed() const noexcept {
  return static_cast<std::size_t>(
      std::count_if(trials.begin(), trials.end(), [](const TrialResult& t) { return t.failed(); }));
}

const PairedComparison* RunResult::find_comparison(std::size_t condition, std::string_view metric) const {
  for (const PairedComparison& comparison : comparisons) {
    if (comparison.condition == condition && comparison.metric == metric) return &comparison;
  }
  return nullptr;
}

}  // namespace ecocompute::protocol
