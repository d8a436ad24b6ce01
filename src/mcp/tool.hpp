// Tool: one MCP tool — its name, description, JSON Schema for its arguments, and the function that runs it.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "decide/evidence.hpp"
#include "util/json.hpp"
#include "util/result.hpp"

namespace ecocompute::mcp {

/// What a tool returns: a short text for people and the full answer as JSON.
struct ToolOutput {
  std::string text;
  Json structured;
};

struct Tool {
  std::string name;
  std::string title;
  std::string description;
  Json input_schema;  ///< JSON Schema (an object schema) of the arguments
  /// Runs the tool; an Error becomes a tool result with isError true, so the caller can correct itself.
  std::function<Result<ToolOutput>(const Json& arguments)> run;
};

/// Returns the four tools — should_i_quantize, recommend_config, list_architectures, plan_measurement —
/// answering from `evidence` (not owned; must outlive the tools).
std::vector<Tool> make_tools(const decide::Evidence& evidence);

/// Returns the `ecocompute measure` command line that answers a question on the user's own GPU:
/// `ecocompute measure --model <gguf> --baseline F16 --precisions Q8_0,Q4_K_M --trials 3 --out <dir>`,
/// with each argument quoted for a POSIX shell when it needs it. Errors name the bad argument.
Result<Json> plan_measurement(const Json& arguments);

/// Returns `text` quoted for a POSIX shell if it holds anything but [A-Za-z0-9_./:=,+-].
std::string shell_quote(const std::string& text);

}  // namespace ecocompute::mcp
