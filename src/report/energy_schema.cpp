// The shipped JSON Schema, its 1.2 required lists and bounds taken from the field table, parsed once with
// valijson; plus the checks a schema cannot express.
#include "report/energy_schema.hpp"

#include <valijson/adapters/nlohmann_json_adapter.hpp>
#include <valijson/schema.hpp>
#include <valijson/schema_parser.hpp>
#include <valijson/validator.hpp>

#include <cmath>
#include <fmt/format.h>

#include "ecocompute/embedded/energy_schema_json.hpp"
#include "report/energy_field_list.hpp"
#include "report/energy_report.hpp"
#include "report/environment_fingerprint.hpp"
#include "report/schema_from_table.hpp"
#include "util/file_io.hpp"

namespace ecocompute::report {
namespace {

// valijson's wrapper errors say only that a child failed; the child's own error is also reported.
constexpr std::string_view wrapper_messages[] = {
    "Failed to validate against schema associated with property name",
    "Failed to validate against a conditional schema",
    "Failed to validate item #",
    "Failed to validate against child schema",
    "Failed to validate against schema referenced",
    "Failed to validate against additional properties schema",
};

bool is_wrapper(std::string_view message) {
  for (std::string_view w : wrapper_messages) {
    if (message.substr(0, w.size()) == w) return true;
  }
  return false;
}

std::string escape_pointer_token(std::string_view token) {
  std::string out;
  for (char c : token) {
    if (c == '~') out += "~0";
    else if (c == '/') out += "~1";
    else out += c;
  }
  return out;
}

// valijson's context is {"<root>", "[results]", "[0]", ...}; a JSON pointer is "/results/0".
std::string to_pointer(const std::vector<std::string>& context) {
  std::string pointer;
  for (const std::string& part : context) {
    if (part == "<root>") continue;
    std::string_view token = part;
    if (token.size() >= 2 && token.front() == '[' && token.back() == ']') token = token.substr(1, token.size() - 2);
    pointer += '/';
    pointer += escape_pointer_token(token);
  }
  return pointer;
}

class CompiledSchema {
 public:
  CompiledSchema() {
    // The embedded schema is part of the build; a parse failure is a bug, and throws.
    const Json document = energy_schema_from_table(embedded::energy_schema_json);
    valijson::SchemaParser parser(valijson::SchemaParser::kDraft7);
    valijson::adapters::NlohmannJsonAdapter adapter(document);
    parser.populateSchema(adapter, schema_);
  }

  std::vector<SchemaProblem> validate(const Json& document) const {
    // valijson's Validator caches compiled regexes, so one is made per call to stay thread-safe.
    valijson::Validator validator(valijson::Validator::kStrongTypes);
    valijson::ValidationResults results;
    valijson::adapters::NlohmannJsonAdapter adapter(document);
    std::vector<SchemaProblem> problems;
    if (validator.validate(schema_, adapter, &results)) return problems;
    valijson::ValidationResults::Error error;
    std::vector<SchemaProblem> wrappers;
    while (results.popError(error)) {
      SchemaProblem problem{to_pointer(error.context), error.description};
      (is_wrapper(error.description) ? wrappers : problems).push_back(std::move(problem));
    }
    if (problems.empty()) problems = std::move(wrappers);
    return problems;
  }

 private:
  valijson::Schema schema_;
};

const CompiledSchema& compiled_schema() {
  static const CompiledSchema schema;  // thread-safe initialisation
  return schema;
}

// Non-finite numbers cannot be written as JSON (nlohmann would write null); they only reach a
// document built in memory, and are refused with their location.
void find_non_finite(const OrderedJson& node, const std::string& pointer, std::size_t depth,
                     std::vector<SchemaProblem>& problems) {
  if (depth > max_report_depth) {
    problems.push_back({pointer, fmt::format("nested deeper than {} levels", max_report_depth)});
    return;
  }
  if (node.is_number_float() && !std::isfinite(node.get<double>())) {
    problems.push_back({pointer, "number is not finite (NaN or infinity)"});
  } else if (node.is_object()) {
    for (const auto& [key, child] : node.items()) {
      find_non_finite(child, pointer + "/" + escape_pointer_token(key), depth + 1, problems);
    }
  } else if (node.is_array()) {
    for (std::size_t i = 0; i < node.size(); ++i) {
      find_non_finite(node[i], pointer + "/" + std::to_string(i), depth + 1, problems);
    }
  }
}

// JSON Schema draft 7 counts a number with a zero fractional part as an integer ("tokens_generated":
// 2560.0 is valid where an integer is required); nlohmann parses 2560.0 as a float and valijson's
// strong types then refuse it. The copy that is validated holds such numbers as integers.
void integral_floats_as_integers(Json& node) {
  constexpr double kTwoTo63 = 9223372036854775808.0;
  if (node.is_number_float()) {
    const double d = node.get<double>();
    if (std::trunc(d) == d && d >= -kTwoTo63 && d < kTwoTo63) node = static_cast<std::int64_t>(d);
  } else if (node.is_structured()) {
    for (Json& child : node) integral_floats_as_integers(child);
  }
}

// "/trials/3/decode/energy_j" → "trials[3].decode.energy_j", a path of the field table.
std::string field_path(const std::string& pointer) {
  std::string path;
  std::size_t from = 1;
  while (from <= pointer.size() && !pointer.empty()) {
    const std::size_t slash = pointer.find('/', from);
    const std::string token = pointer.substr(from, slash == std::string::npos ? std::string::npos : slash - from);
    const bool index = !token.empty() && token.find_first_not_of("0123456789") == std::string::npos;
    path += index ? "[" + token + "]" : (path.empty() ? "" : ".") + token;
    if (slash == std::string::npos) break;
    from = slash + 1;
  }
  return path;
}

// valijson names the bound a figure broke but not the figure; the table's range and the value say both.
void name_values_out_of_range(const Json& document, std::vector<SchemaProblem>& problems) {
  for (SchemaProblem& p : problems) {
    if (!p.message.starts_with("Expected number greater than") && !p.message.starts_with("Expected number less than")) continue;
    const EnergyFieldInfo* field = find_energy_report_field(field_path(p.pointer));
    if (field == nullptr || !field->bounds) continue;
    const Json::json_pointer at(p.pointer);
    if (!document.contains(at) || !document.at(at).is_number()) continue;
    p.message = fmt::format("{:g} is outside {}{}{}", document.at(at).get<double>(), field->bounds->text(),
                            field->unit.empty() ? "" : " ", field->unit);
  }
}

// Depth of [ and { nesting in JSON text, strings skipped; checked before parsing.
std::size_t text_depth(std::string_view text) {
  std::size_t depth = 0;
  std::size_t deepest = 0;
  bool in_string = false;
  bool escaped = false;
  for (char c : text) {
    if (in_string) {
      if (escaped) escaped = false;
      else if (c == '\\') escaped = true;
      else if (c == '"') in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      deepest = std::max(deepest, ++depth);
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return deepest;
}

}  // namespace

std::string_view energy_schema_text() noexcept { return embedded::energy_schema_json; }

std::vector<SchemaProblem> validate_energy_json(const OrderedJson& document) {
  std::vector<SchemaProblem> problems;
  find_non_finite(document, "", 0, problems);
  if (!problems.empty()) return problems;

  Json normalized(document);
  integral_floats_as_integers(normalized);
  problems = compiled_schema().validate(normalized);
  if (document.is_object() && document.value("schema_version", "") == energy_schema_version) {
    name_values_out_of_range(normalized, problems);
  }
  if (!problems.empty()) return problems;

  if (document.value("schema_version", "") == energy_schema_version) {
    const OrderedJson& environment = document.at("environment");
    const std::string expected = environment_fingerprint(environment);
    if (environment.at("fingerprint").get<std::string>() != expected) {
      problems.push_back({"/environment/fingerprint",
                          "does not match the environment fields (expected " + expected + ")"});
    }
  }
  return problems;
}

Result<std::vector<SchemaProblem>> validate_energy_text(std::string_view text, std::string_view source) {
  if (text_depth(text) > max_report_depth) {
    return unexpected(ErrorCode::invalid_input, fmt::format("{} is nested deeper than {} levels; not a report",
                                                            source, max_report_depth));
  }
  // parse_json turns syntax errors into Results; a number beyond double range ("1e400") is thrown by
  // nlohmann as out_of_range instead, and is bad input all the same.
  try {
    auto document = parse_json(text, source);
    if (!document) return document.error();
    return validate_energy_json(*document);
  } catch (const nlohmann::json::exception& e) {
    return unexpected(ErrorCode::invalid_input, fmt::format("{} is not valid JSON ({})", source, e.what()));
  }
}

Result<std::vector<SchemaProblem>> validate_energy_file(const std::filesystem::path& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    return unexpected(ErrorCode::invalid_input, path.string() + " is a folder, not a report file");
  }
  const auto size = std::filesystem::file_size(path, ec);
  if (!ec && size > max_report_bytes) {
    return unexpected(ErrorCode::invalid_input,
                      fmt::format("{} is {} bytes, larger than any report ({} bytes)", path.string(), size,
                                  max_report_bytes));
  }
  auto text = read_file(path);
  if (!text) return text.error();
  return validate_energy_text(*text, path.string());
}

std::string describe(const std::vector<SchemaProblem>& problems) {
  std::string out;
  for (const SchemaProblem& p : problems) {
    out += fmt::format("{}: {}\n", p.pointer.empty() ? "/" : p.pointer, p.message);
  }
  return out;
}

}  // namespace ecocompute::report
