// The median of a sample: the one definition the meter (counter periods, read costs), the fits (N* with
// few sizes), the protocol (outlier trials) and the reports (median tok/s) share.
#pragma once

#include <optional>
#include <vector>

namespace ecocompute {

/// Returns the median of `values` (the mean of the two middle values for an even count); nullopt when empty.
[[nodiscard]] std::optional<double> median(std::vector<double> values);

}  // namespace ecocompute
