// JSON parsing with errors that name their input.
#include "util/json.hpp"

#include <fmt/format.h>

#include "util/file_io.hpp"

namespace ecocompute {

Result<OrderedJson> parse_json(std::string_view text, std::string_view source) {
  // JSON text has no NUL byte (RFC 8259 §7: control characters in strings are escaped); the parser
  // would take one as the end of input and silently drop whatever follows it.
  if (const auto nul = text.find('\0'); nul != std::string_view::npos) {
    return unexpected(ErrorCode::invalid_input,
                      fmt::format("{} is not valid JSON (a NUL byte at offset {}; JSON text has none)", source, nul));
  }
  try {
    return OrderedJson::parse(text);
  } catch (const nlohmann::json::exception& e) {  // parse_error, and out_of_range for numbers like 1e400
    return unexpected(ErrorCode::invalid_input,
                      std::string(source) + " is not valid JSON (" + e.what() + ")");
  }
}

Result<OrderedJson> read_json_file(const std::filesystem::path& path) {
  auto text = read_file(path);
  if (!text) return text.error();
  return parse_json(*text, path.string());
}

}  // namespace ecocompute
