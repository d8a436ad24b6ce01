// Comma-separated lists as flags and query strings give them.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace ecocompute {

/// Splits "a,b,,c" into {"a", "b", "", "c"}: empty items are kept for the caller to refuse or skip;
/// "" gives no items.
[[nodiscard]] std::vector<std::string> split_commas(std::string_view text);

/// Joins items with commas, the inverse of split_commas: {"a", "b"} → "a,b".
[[nodiscard]] std::string join_commas(const std::vector<std::string>& items);

}  // namespace ecocompute
