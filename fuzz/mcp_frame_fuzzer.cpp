// libFuzzer target: bytes as the MCP server's standard input — the bounded line framing, JSON-RPC
// dispatch and the tools' argument checks (over the published evidence). Nothing may crash, and every
// answer must be one line of JSON.
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>

#include "published_evidence.hpp"
#include "mcp/mcp_server.hpp"
#include "util/json.hpp"

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  fuzz_support::load_published_evidence_once();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  ecocompute::mcp::McpServer server(ecocompute::mcp::make_tools(fuzz_support::published_evidence()));
  std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
  std::ostringstream out;
  server.run(in, out);
  std::istringstream lines(out.str());
  for (std::string line; std::getline(lines, line);) {
    if (ecocompute::Json::parse(line, nullptr, false).is_discarded()) __builtin_trap();
  }
  return 0;
}
