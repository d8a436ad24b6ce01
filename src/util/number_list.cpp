#include "util/number_list.hpp"

#include <algorithm>
#include <charconv>

#include <fmt/format.h>

#include "util/text_list.hpp"

namespace ecocompute {

Result<std::vector<std::int64_t>> parse_number_list(std::string_view text, const NumberListRules& rules) {
  std::vector<std::int64_t> out;
  for (const std::string& item : split_commas(text)) {
    std::int64_t value = 0;
    const auto [end, ec] = std::from_chars(item.data(), item.data() + item.size(), value);
    if (ec != std::errc{} || end != item.data() + item.size() || value < rules.min || value > rules.max) {
      return unexpected(ErrorCode::invalid_argument, fmt::format("{}: '{}' is not a {} from {} to {}", rules.what,
                                                                 item.substr(0, 40), rules.noun, rules.min, rules.max));
    }
    if (rules.unique && std::find(out.begin(), out.end(), value) != out.end()) {
      return unexpected(ErrorCode::invalid_argument, fmt::format("{}: {} is listed twice", rules.what, value));
    }
    out.push_back(value);
    if (rules.max_items > 0 && out.size() > rules.max_items) {
      return unexpected(ErrorCode::invalid_argument,
                        fmt::format("{}: more than {} items (give at most {})", rules.what, rules.max_items, rules.max_items));
    }
  }
  if (out.empty() && !rules.allow_empty) {
    return unexpected(ErrorCode::invalid_argument, fmt::format("{}: no {} given", rules.what, rules.noun));
  }
  return out;
}

}  // namespace ecocompute
