// `ecocompute mcp`: the MCP server over stdio (NDJSON JSON-RPC 2.0 on stdin/stdout; logs on stderr).
#include <iostream>

#include "cli/command.hpp"
#include "cli/commands/evidence_flags.hpp"
#include "cli/exit_code.hpp"
#include "mcp/mcp_server.hpp"

namespace ecocompute::cli {

Command make_mcp_command(CLI::App& root) {
  struct Options {
    EvidenceFlags evidence;
  };
  auto o = std::make_shared<Options>();
  CLI::App* app = root.add_subcommand("mcp", "Serve the MCP tools should_i_quantize, recommend_config, "
                                             "list_architectures and plan_measurement over stdio");
  o->evidence.add_to(app);
  return {app, [o] {
            // stdout carries protocol messages only: logs stay on stderr.
            auto evidence = o->evidence.load();
            if (!evidence) return report_error(evidence.error());
            mcp::McpServer server(mcp::make_tools(*evidence));
            std::ios::sync_with_stdio(false);
            server.run(std::cin, std::cout);
            return static_cast<int>(exit_ok);
          }};
}

}  // namespace ecocompute::cli
