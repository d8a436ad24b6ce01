// McpServer: the Model Context Protocol over stdio — JSON-RPC 2.0 messages, one per line (NDJSON, as
// the MCP stdio transport specifies), with protocol version negotiation, tools/list and tools/call.
//
//   McpServer server(make_tools(evidence));
//   server.run(std::cin, std::cout);     // until stdin closes; logs go to stderr, never stdout
#pragma once

#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "mcp/tool.hpp"
#include "util/json.hpp"

namespace ecocompute::mcp {

/// JSON-RPC 2.0 error codes used here.
enum RpcError : int {
  parse_error = -32700,
  invalid_request = -32600,
  method_not_found = -32601,
  invalid_params = -32602,
  internal_error = -32603,
};

/// The protocol versions this server speaks, newest first.
const std::vector<std::string>& supported_protocol_versions();

/// Longest accepted line (bytes); a longer one is answered with a parse error and skipped.
inline constexpr std::size_t max_line_bytes = 1 << 20;

class McpServer {
 public:
  /// Constructs a server offering `tools`.
  explicit McpServer(std::vector<Tool> tools);

  /// Answers one message (already parsed). Returns the response, or nullopt for a notification.
  [[nodiscard]] std::optional<Json> handle(const Json& message);

  /// Answers one line of text: parses it and calls handle(); a parse error is answered with id null.
  [[nodiscard]] std::optional<Json> handle_line(std::string_view line);

  /// Reads newline-delimited messages from `in` until it ends and writes each response as one line
  /// to `out`, flushed. Blank lines are ignored.
  void run(std::istream& in, std::ostream& out);

  /// Returns the version agreed in initialize, empty before it.
  [[nodiscard]] const std::string& protocol_version() const noexcept { return protocol_version_; }

 private:
  Json initialize(const Json& params);
  Json list_tools() const;
  std::optional<Json> call_tool(const Json& id, const Json& params);

  std::vector<Tool> tools_;
  std::string protocol_version_;
};

/// Returns a JSON-RPC error response.
Json rpc_error(const Json& id, int code, std::string_view message);

}  // namespace ecocompute::mcp
