// libFuzzer target: the free-text question reader and the model-name size reader on any bytes. Both
// are linear scans; nothing may crash, and what they read must be in range.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "data/model_size.hpp"
#include "data/query_text.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const ecocompute::data::QueryText read = ecocompute::data::read_query_text(text);
  if (read.batch && (*read.batch < 0 || *read.batch > 10'000'000)) __builtin_trap();
  if (read.context && (*read.context < 0 || *read.context > 10'000'000)) __builtin_trap();
  if (read.params_b && std::isnan(*read.params_b)) __builtin_trap();
  const auto parsed = ecocompute::data::parse_query_text(text);
  // Past the length limit it is refused; within it, only for a batch or context out of bounds or too large to read.
  if (parsed.has_value() && size > ecocompute::data::max_query_text_bytes) __builtin_trap();
  if (!parsed.has_value() && size <= ecocompute::data::max_query_text_bytes && !read.batch && !read.context &&
      !read.unreadable) {
    __builtin_trap();
  }
  (void)ecocompute::data::params_b_from_model_name(text);
  return 0;
}
