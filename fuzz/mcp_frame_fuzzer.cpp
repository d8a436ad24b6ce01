// libFuzzer target: bytes as the MCP server's standard input — the bounded line framing, JSON-RPC
// dispatch and the tools' argument checks (over the published evidence). Nothing may crash, and every
// answer must be one line of JSON.
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>

#include "decide/evidence.hpp"
#include "mcp/mcp_server.hpp"
#include "util/json.hpp"
#include "util/log.hpp"

namespace {
const ecocompute::decide::Evidence& evidence() {
  static const ecocompute::decide::Evidence e = [] {
    ecocompute::log::set_level(ecocompute::log::Level::quiet);
    auto loaded = ecocompute::decide::load_published_evidence();
    if (!loaded) __builtin_trap();  // the fuzzer needs the shipped data: ECOCOMPUTE_DATA_DIR
    return std::move(loaded).value();
  }();
  return e;
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  ecocompute::mcp::McpServer server(ecocompute::mcp::make_tools(evidence()));
  std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
  std::ostringstream out;
  server.run(in, out);
  std::istringstream lines(out.str());
  for (std::string line; std::getline(lines, line);) {
    if (ecocompute::Json::parse(line, nullptr, false).is_discarded()) __builtin_trap();
  }
  return 0;
}
