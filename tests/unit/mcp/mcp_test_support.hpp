// Shared pieces of the MCP server tests: the published evidence the tools answer from, and one
// conversation with the server over NDJSON in string streams.
#pragma once

#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "decide/evidence.hpp"
#include "support/published_evidence.hpp"
#include "mcp/mcp_server.hpp"
#include "util/json.hpp"

namespace ecocompute::mcp::testing {

using ecocompute::testing::published_evidence;

/// Runs a fresh server over `input` lines and returns the response lines, parsed.
inline std::vector<Json> converse(const std::string& input) {
  McpServer server(make_tools(published_evidence()));
  std::istringstream in(input);
  std::ostringstream out;
  server.run(in, out);
  std::vector<Json> responses;
  std::istringstream lines(out.str());
  for (std::string line; std::getline(lines, line);) responses.push_back(Json::parse(line));
  return responses;
}

}  // namespace ecocompute::mcp::testing
