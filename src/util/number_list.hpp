// A comma list of whole numbers from a flag or a query (--batch 1,4,16; --concurrency 1,8,64): one
// parser, so every such input is bounded, refused with the same words, and never crashes.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "util/result.hpp"

namespace ecocompute {

struct NumberListRules {
  std::string what;           ///< the input's name in messages: "--batch", "batches"
  std::string noun;           ///< one item, after "a": "batch size", "token count"
  std::int64_t min = 1;
  std::int64_t max = 1 << 20;
  bool unique = false;        ///< refuse an item listed twice
  std::size_t max_items = 0;  ///< 0: no limit
  bool allow_empty = false;   ///< an empty text is an empty list, not an error
};

/// Parses "1,4,16" under the rules. Errors (invalid_argument) name the input, quote at most 40
/// characters of the bad item and state the bound: "--batch: '0' is not a batch size from 1 to 512",
/// "--batch: 4 is listed twice", "--batch: no batch size given". Order is kept.
[[nodiscard]] Result<std::vector<std::int64_t>> parse_number_list(std::string_view text, const NumberListRules& rules);

}  // namespace ecocompute
