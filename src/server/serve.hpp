// serve(): runs the API and web UI over HTTP until SIGTERM or SIGINT, then finishes the requests in
// flight and returns.
#pragma once

#include <filesystem>
#include <string>

#include "decide/evidence.hpp"
#include "server/api.hpp"
#include "util/result.hpp"

namespace ecocompute::server {

struct ServeOptions {
  std::string host = "127.0.0.1";   ///< loopback by default; another address is served with a warning
  int port = 8080;                  ///< 0 picks a free port (written to port_file)
  int threads = 0;                  ///< event loops, a thread each, that run the routes; 0: one per core
  std::string db;                   ///< replications store: SQLite path or postgresql:// URL
  std::filesystem::path web_root;   ///< web UI folder; empty = default_web_root()
  std::filesystem::path port_file;  ///< if set, the bound port is written here once listening
  std::filesystem::path write_keys; ///< key file uploads are checked against; required beyond loopback
  ApiOptions api;
};

/// Returns the default replications database: $ECOCOMPUTE_REPLICATIONS_DB if set, else
/// user_data_dir()/replications.sqlite (never the source tree).
std::string default_replications_db();

/// The event loops a server runs: `requested`, or one per core where it is 0.
int loop_threads(int requested);

/// Checks the --allow-origin values (api.write_origins), opens the store, binds, serves until SIGTERM/SIGINT (blocked in the calling thread and received by
/// a waiting thread, so no handler runs in signal context), then stops gracefully. Errors: the store
/// cannot be opened, the address cannot be bound, an allowed origin is not an origin.
Result<void> serve(const ServeOptions& options, const decide::Evidence& evidence);

}  // namespace ecocompute::server
