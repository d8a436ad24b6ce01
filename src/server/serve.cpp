// The HTTP front end's run loop and its signal handling.
#include "server/serve.hpp"

#include <csignal>
#include <cstdlib>
#include <algorithm>
#include <atomic>
#include <pthread.h>
#include <thread>

#include <fmt/format.h>

#include "data/sql_database.hpp"
#include "server/cors_policy.hpp"
#include "server/http_adapter.hpp"
#include "server/write_keys.hpp"
#include "util/file_io.hpp"
#include "util/log.hpp"

namespace ecocompute::server {

std::string default_replications_db() {
  if (const char* env = std::getenv("ECOCOMPUTE_REPLICATIONS_DB"); env != nullptr && *env != '\0') return env;
  return (user_data_dir() / "replications.sqlite").string();
}

namespace {

// The origins normalized and the write keys read; a non-loopback host without keys is refused.
Result<ServeOptions> checked_options(const ServeOptions& requested) {
  ServeOptions options = requested;
  for (std::string& origin : options.api.write_origins) {
    auto parsed = parse_origin(origin);
    if (!parsed) return Error{ErrorCode::invalid_argument, "--allow-origin", parsed.error()};
    origin = std::move(parsed).value();
  }
  if (!options.write_keys.empty()) {
    auto keys = WriteKeyFile::open(options.write_keys);
    if (!keys) return keys.error();
    options.api.write_keys = std::move(*keys);
  } else if (!is_loopback_host(options.host)) {
    return unexpected(ErrorCode::invalid_argument,
                      fmt::format("--host {} listens beyond this machine, where anyone could store rows: give "
                                  "--write-keys FILE (make a key with `ecocompute keys add NAME --file FILE`)",
                                  options.host));
  }
  return options;
}

// A file that cannot be opened is a bad --db (exit 2); a database server that cannot be reached is the
// environment (exit 3). Either way the message names the store, never "internal error".
Result<std::unique_ptr<ReplicationStore>> open_replications(const ServeOptions& options) {
  const std::string db = options.db.empty() ? default_replications_db() : options.db;
  auto store = open_replication_store(db);
  if (store) return store;
  const bool remote = data::is_postgres_url(db);
  return Error{remote ? ErrorCode::unavailable : ErrorCode::invalid_argument, "cannot open the replications store --db " + redact_url(db),
               store.error()};
}

// Serves until SIGTERM or SIGINT (blocked in every thread, waited for by one): requests in flight finish.
bool listen_until_signalled(HttpServer& server, const sigset_t& signals) {
  std::atomic<bool> done{false};
  std::thread waiter([&] {
    const timespec tick{0, 200'000'000};
    while (!done.load()) {
      const int signal = sigtimedwait(&signals, nullptr, &tick);
      if (signal == SIGTERM || signal == SIGINT) {
        log::info("received {}; finishing requests in flight", signal == SIGTERM ? "SIGTERM" : "SIGINT");
        server.stop();
        return;
      }
    }
  });
  const bool listened = server.listen();
  done.store(true);
  waiter.join();
  return listened;
}

}  // namespace

// One event loop per core unless asked: a route runs on the loop that read its request and never
// waits there (the expensive ones go to the WorkPool), so loops beyond the cores only add thread
// switches. On 2 cores, in four of five rounds alternated with 8 loops, a new estimate took 4-22 % less
// server CPU on 2 loops (bench/RESULTS.md, "Event loops per core").
int loop_threads(int requested) {
  if (requested > 0) return requested;
  return static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

Result<void> serve(const ServeOptions& requested, const decide::Evidence& evidence) {
  auto checked = checked_options(requested);
  if (!checked) return checked.error();
  const ServeOptions& options = *checked;
  auto store = open_replications(options);
  if (!store) return store.error();

  const std::filesystem::path root = options.web_root.empty() ? default_web_root() : options.web_root;
  auto files = StaticFiles::load(root);
  if (!files) log::warn("{}; serving the API without the web UI", files.error().describe());
  StaticFiles assets = files ? std::move(files).value()
                             : StaticFiles::placeholder("its files were not found (build them with `npm ci && npm run "
                                                        "build` in web/, or pass --web-dir)");

  Api api(evidence, **store, std::move(assets), options.api);
  const int threads = loop_threads(options.threads);
  HttpServer server(api.router(), HttpServerOptions{.threads = threads});

  // Block the signals before any worker thread starts, so every thread inherits the mask and only
  // the waiter below receives them.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGINT);
  sigset_t previous;
  pthread_sigmask(SIG_BLOCK, &signals, &previous);
  struct RestoreMask {
    sigset_t mask;
    ~RestoreMask() { pthread_sigmask(SIG_SETMASK, &mask, nullptr); }
  } restore{previous};

  auto port = server.bind(options.host, options.port);
  if (!port) return port.error();
  if (!is_loopback_host(options.host)) {
    log::warn("listening on {}: the API is reachable from other machines", options.host);
  }
  log::info("serving on http://{}:{}/ ({} event loops; replications: {}, {} measured rows, decision model {})", options.host,
            *port, threads, (*store)->describe(), evidence.rows.size(), evidence.model->digest.substr(0, 12));
  for (const std::string& origin : options.api.write_origins) log::info("uploads are open to pages on {}", origin);
  if (!options.port_file.empty()) {
    if (auto written = write_file_atomic(options.port_file, std::to_string(*port) + "\n"); !written) {
      return written.error();
    }
  }

  const bool listened = listen_until_signalled(server, signals);
  if (!listened && server.is_running()) {
    return unexpected(ErrorCode::unavailable, "the HTTP server stopped unexpectedly");
  }
  log::info("stopped");
  return {};
}

}  // namespace ecocompute::server
