// `ecocompute serve`: the REST API, the web UI and the replications store over HTTP, until SIGTERM.
#include "cli/atlas_sizes.hpp"
#include "cli/command.hpp"
#include "cli/commands/evidence_flags.hpp"
#include "cli/exit_code.hpp"
#include "server/serve.hpp"

namespace ecocompute::cli {

Command make_serve_command(CLI::App& root) {
  struct Options {
    server::ServeOptions serve;
    std::string web_dir;
    std::string port_file;
    std::string write_keys;
    EvidenceFlags evidence;
  };
  auto o = std::make_shared<Options>();
  o->serve.db = server::default_replications_db();
  CLI::App* app = root.add_subcommand("serve", "Serve the REST API (/v1/estimate, /v1/optimize, …), the web UI and the "
                                               "replications store over HTTP until SIGTERM or Ctrl-C");
  app->add_option("--host", o->serve.host, "Address to listen on (loopback by default)")->capture_default_str();
  app->add_option("--port,-p", o->serve.port, "Port (0: any free port)")->capture_default_str()->check(CLI::Range(0, 65535));
  app->add_option("--db", o->serve.db, "Replications store: a SQLite file or a postgresql:// URL")->capture_default_str();
  app->add_option("--web-dir", o->web_dir, "Folder of the built web UI (default: web/dist of the source tree, or "
                                           "$ECOCOMPUTE_WEB_DIR)");
  app->add_option("--rate-limit", o->serve.api.rate_limit_per_minute,
                  "Requests per minute per client on /v1 (0: no limit)")
      ->capture_default_str()
      ->check(CLI::Range(0, 10'000'000));
  app->add_option("--threads", o->serve.threads, "Event loops, a thread each, that run the routes (idle and slow "
                                               "connections hold none); 0: one per core")
      ->capture_default_str()
      ->check(CLI::Range(0, 256));
  app->add_option("--answer-cache", o->serve.api.answer_cache_entries,
                  "Answers of /v1/estimate and /v1/optimize kept by question (the evidence does not change while "
                  "the server runs; 0: none kept)")
      ->capture_default_str()
      ->check(CLI::Range(0, 1'000'000));
  app->add_option("--allow-origin", o->serve.api.write_origins,
                  "Let pages on this origin (https://example.org) upload to /v1/replications; repeatable. Reads are "
                  "open to every origin without it");
  app->add_option("--port-file", o->port_file, "Write the bound port to this file once listening");
  app->add_option("--write-keys", o->write_keys,
                  "Key file uploads are checked against (`ecocompute keys add NAME --file FILE`); uploads then need "
                  "Authorization: Bearer <key>. Required with a --host beyond loopback");
  o->evidence.add_to(app);
  return {app, [o] {
            o->serve.web_root = o->web_dir;
            auto sizes = campaign_atlas_sizes();
            if (!sizes) return report_error(sizes.error());
            o->serve.api.atlas_sizes = std::move(*sizes);
            o->serve.port_file = o->port_file;
            o->serve.write_keys = o->write_keys;
            auto evidence = o->evidence.load(decide::RowLoading::all);
            if (!evidence) return report_error(evidence.error());
            if (auto served = server::serve(o->serve, *evidence); !served) return report_error(served.error());
            return static_cast<int>(exit_ok);
          }};
}

}  // namespace ecocompute::cli
