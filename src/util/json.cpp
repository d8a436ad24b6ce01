// JSON parsing with errors that name their input.
#include "util/json.hpp"

#include "util/file_io.hpp"

namespace ecocompute {

Result<OrderedJson> parse_json(std::string_view text, std::string_view source) {
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
