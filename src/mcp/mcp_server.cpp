// MCP over stdio: JSON-RPC 2.0 dispatch, version negotiation, tools.
#include "mcp/mcp_server.hpp"

#include <algorithm>
#include <istream>
#include <ostream>

#include <fmt/format.h>

#include "ecocompute/build_info.hpp"
#include "mcp/line_reader.hpp"
#include "util/log.hpp"
#include "util/quoted_input.hpp"

namespace ecocompute::mcp {

const std::vector<std::string>& supported_protocol_versions() {
  static const std::vector<std::string> versions{"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"};
  return versions;
}

Json rpc_error(const Json& id, int code, std::string_view message) {
  return Json{{"jsonrpc", "2.0"}, {"id", id}, {"error", {{"code", code}, {"message", std::string(message)}}}};
}

namespace {
Json rpc_result(const Json& id, Json result) {
  return Json{{"jsonrpc", "2.0"}, {"id", id}, {"result", std::move(result)}};
}
bool valid_id(const Json& id) { return id.is_string() || id.is_number_integer() || id.is_number_unsigned(); }
}  // namespace

McpServer::McpServer(std::vector<Tool> tools) : tools_(std::move(tools)) {}

Json McpServer::initialize(const Json& params) {
  const auto& versions = supported_protocol_versions();
  std::string requested;
  if (params.is_object() && params.contains("protocolVersion") && params["protocolVersion"].is_string()) {
    requested = params["protocolVersion"].get<std::string>();
  }
  // The client's version if we speak it, otherwise our newest (the client then decides).
  protocol_version_ = std::find(versions.begin(), versions.end(), requested) != versions.end() ? requested : versions.front();
  return Json{{"protocolVersion", protocol_version_},
              {"capabilities", {{"tools", {{"listChanged", false}}}}},
              {"serverInfo", {{"name", "ecocompute"}, {"title", "EcoCompute"}, {"version", build_info::version}}},
              {"instructions",
               "Answers whether quantizing an LLM saves energy per token on a GPU and engine, from measured data "
               "with its basis and uncertainty (estimates are never labelled measured), and plans the "
               "`ecocompute measure` run that answers it on the user's own GPU."}};
}

Json McpServer::list_tools() const {
  Json list = Json::array();
  for (const Tool& tool : tools_) {
    list.push_back(Json{{"name", tool.name}, {"title", tool.title}, {"description", tool.description},
                        {"inputSchema", tool.input_schema}});
  }
  return Json{{"tools", std::move(list)}};
}

std::optional<Json> McpServer::call_tool(const Json& id, const Json& params) {
  if (!params.is_object() || !params.contains("name") || !params["name"].is_string()) {
    return rpc_error(id, invalid_params, "tools/call needs params.name (a string)");
  }
  const std::string name = params["name"].get<std::string>();
  const auto tool = std::find_if(tools_.begin(), tools_.end(), [&](const Tool& t) { return t.name == name; });
  if (tool == tools_.end()) return rpc_error(id, invalid_params, fmt::format("unknown tool: {}", shortened_input(name)));
  const Json arguments = params.contains("arguments") && !params["arguments"].is_null() ? params["arguments"] : Json::object();
  if (!arguments.is_object()) return rpc_error(id, invalid_params, "tools/call params.arguments must be an object");
  Result<ToolOutput> output = tool->run(arguments);
  if (!output) {
    return rpc_result(id, Json{{"content", Json::array({{{"type", "text"}, {"text", shortened_input(output.error().describe(), 2048)}}})},
                               {"isError", true}});
  }
  return rpc_result(id, Json{{"content", Json::array({{{"type", "text"}, {"text", output->text}}})},
                             {"structuredContent", output->structured},
                             {"isError", false}});
}

std::optional<Json> McpServer::handle(const Json& message) {
  if (!message.is_object()) {
    return rpc_error(nullptr, invalid_request, message.is_array() ? "batches are not supported" : "a message must be an object");
  }
  const bool has_id = message.contains("id");
  const Json id = has_id && valid_id(message["id"]) ? message["id"] : Json(nullptr);
  if (has_id && !valid_id(message["id"])) return rpc_error(nullptr, invalid_request, "id must be a string or an integer");
  if (!message.contains("jsonrpc") || message["jsonrpc"] != "2.0") {
    return rpc_error(id, invalid_request, "jsonrpc must be \"2.0\"");
  }
  if (!message.contains("method")) {
    // A response from the client (we send no requests): nothing to answer.
    return std::nullopt;
  }
  if (!message["method"].is_string()) return rpc_error(id, invalid_request, "method must be a string");
  const std::string method = message["method"].get<std::string>();
  const Json params = message.contains("params") ? message["params"] : Json::object();

  if (!has_id) {  // a notification: never answered
    if (method == "notifications/initialized") log::debug("mcp: client initialized");
    return std::nullopt;
  }
  try {
    if (method == "initialize") return rpc_result(id, initialize(params));
    if (method == "ping") return rpc_result(id, Json::object());
    if (protocol_version_.empty()) return rpc_error(id, invalid_request, "initialize first");
    if (method == "tools/list") return rpc_result(id, list_tools());
    if (method == "tools/call") return call_tool(id, params);
  } catch (const std::exception& e) {
    log::error("mcp: {} failed: {}", method, e.what());
    return rpc_error(id, internal_error, "internal error");
  }
  return rpc_error(id, method_not_found, fmt::format("method not found: {}", shortened_input(method)));
}

std::optional<Json> McpServer::handle_line(std::string_view line) {
  if (line.size() > max_line_bytes) return rpc_error(nullptr, parse_error, "message longer than 1 MiB");
  // JSON text has no NUL byte; the parser would take one as the end and drop what follows.
  if (const auto nul = line.find('\0'); nul != std::string_view::npos) {
    return rpc_error(nullptr, parse_error, fmt::format("not valid JSON (a NUL byte at offset {})", nul));
  }
  Json message = Json::parse(line, nullptr, /*allow_exceptions=*/false);
  if (message.is_discarded()) return rpc_error(nullptr, parse_error, "not valid JSON");
  return handle(message);
}

void McpServer::run(std::istream& in, std::ostream& out) {
  LineReader reader(in, max_line_bytes);
  while (auto line = reader.next()) {
    std::optional<Json> response;
    if (line->too_long) {
      response = rpc_error(nullptr, parse_error, fmt::format("message of {} bytes is longer than 1 MiB", line->bytes));
    } else if (line->text.find_first_not_of(" \t") == std::string::npos) {
      continue;
    } else {
      response = handle_line(line->text);
    }
    if (response) {
      out << response->dump(-1, ' ', false, Json::error_handler_t::replace) << '\n';
      out.flush();
    }
  }
}

}  // namespace ecocompute::mcp
