// `ecocompute proxy --upstream URL`: a metering proxy in front of an OpenAI-compatible server; each
// answer carries the GPU energy attributed to it, and /metrics the totals (docs/proxy.md).
#include "cli/command.hpp"
#include "cli/exit_code.hpp"
#include "proxy/run_proxy.hpp"
#include "util/text_list.hpp"

namespace ecocompute::cli {

namespace {

struct ProxyFlags {
  std::string upstream;
  std::string listen = "127.0.0.1:8090";
  std::string gpus;
  std::string port_file;
  int threads = 512;
  int upstream_timeout_s = 300;
  int client_timeout_s = 30;
  int counter_poll_ms = 5;
  double prefill_weight_coefficient = proxy::PrefillWeightRule{}.coefficient;
  double prefill_weight_exponent = proxy::PrefillWeightRule{}.exponent;
};

void add_proxy_flags(CLI::App* app, ProxyFlags& flags) {
  app->add_option("--upstream", flags.upstream, "The OpenAI-compatible server: http://HOST[:PORT][/PREFIX]")->required();
  app->add_option("--listen", flags.listen, "Address to listen on, HOST:PORT (port 0: any free port)")->capture_default_str();
  app->add_option("--gpus", flags.gpus,
                  "GPUs the server runs on, comma-separated (UUID, PCI bus id or cuda:N); their counters are summed "
                  "(default: the first visible GPU)");
  app->add_option("--threads", flags.threads, "Connections served at once; a stream holds one for its length")
      ->capture_default_str()
      ->check(CLI::Range(4, 8192));
  app->add_option("--upstream-timeout", flags.upstream_timeout_s, "Longest silence of the server inside an answer, seconds")
      ->capture_default_str()
      ->check(CLI::Range(1, 86400));
  app->add_option("--client-timeout", flags.client_timeout_s, "Longest a client may take to send or to read, seconds")
      ->capture_default_str()
      ->check(CLI::Range(1, 3600));
  app->add_option("--counter-poll-ms", flags.counter_poll_ms, "How often the energy counter is read, milliseconds")
      ->capture_default_str()
      ->check(CLI::Range(1, 1000));
  app->add_option("--prefill-weight", flags.prefill_weight_coefficient,
                  "w(B) = this × B^exponent: one prompt token in decode tokens at B decoding requests")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 1e6));
  app->add_option("--prefill-weight-exponent", flags.prefill_weight_exponent, "The exponent of w(B)")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 4.0));
  app->add_option("--port-file", flags.port_file, "Write the bound port to this file once listening");
}

Result<proxy::ProxyRunOptions> run_options(const ProxyFlags& flags) {
  auto upstream = proxy::parse_upstream_url(flags.upstream);
  if (!upstream) return upstream.error();
  auto listen = proxy::parse_listen_address(flags.listen);
  if (!listen) return listen.error();
  proxy::ProxyRunOptions options;
  options.server.upstream = *upstream;
  options.server.listen = *listen;
  options.server.threads = flags.threads;
  options.server.upstream_timeouts.read = std::chrono::seconds(flags.upstream_timeout_s);
  options.server.client_timeout = std::chrono::seconds(flags.client_timeout_s);
  options.gpus = split_commas(flags.gpus);
  for (const std::string& gpu : options.gpus) {
    if (gpu.empty()) return unexpected(ErrorCode::invalid_argument, "--gpus '" + flags.gpus + "' has an empty item");
  }
  options.counter_poll = std::chrono::milliseconds(flags.counter_poll_ms);
  options.prefill_weight = {flags.prefill_weight_coefficient, flags.prefill_weight_exponent};
  options.port_file = flags.port_file;
  return options;
}

}  // namespace

Command make_proxy_command(CLI::App& root) {
  auto flags = std::make_shared<ProxyFlags>();
  CLI::App* app = root.add_subcommand(
      "proxy", "Serve in front of an OpenAI-compatible server: answers carry the GPU energy attributed to each request "
               "(usage.energy_j, X-Energy-J), /metrics the totals, until SIGTERM or Ctrl-C (docs/proxy.md)");
  add_proxy_flags(app, *flags);
  return {app, [flags] {
            auto options = run_options(*flags);
            if (!options) return report_error(options.error());
            if (auto served = proxy::run_proxy(*options); !served) return report_error(served.error());
            return static_cast<int>(exit_ok);
          }};
}

}  // namespace ecocompute::cli
