// `ecocompute measure-endpoint`: energy per output token of OpenAI-compatible endpoints under a closed
// loop of concurrent requests, per concurrency level, paired against a baseline endpoint.
#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdlib>
#include <iostream>
#include <optional>
#include <thread>
#include <tuple>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "cli/command.hpp"
#include "cli/exit_code.hpp"
#include "cli/interrupt_handler.hpp"
#include "engine/endpoint_client.hpp"
#include "experiment/run_writer.hpp"
#include "experiment/serving_report.hpp"
#include "experiment/serving_writer.hpp"
#include "meter/gpu_info.hpp"
#include "meter/open_meter.hpp"
#include "meter/rapl_meter.hpp"
#include "protocol/serving_requests.hpp"
#include "protocol/serving_statistics.hpp"
#include "protocol/serving_sweep.hpp"
#include "util/clock.hpp"
#include "util/defaults.hpp"
#include "util/log.hpp"
#include "util/number_list.hpp"
#include "util/text_list.hpp"

namespace ecocompute::cli {
namespace {

struct EndpointFlags {
  std::vector<std::string> endpoints;
  std::string concurrency = fmt::format("{}", fmt::join(defaults::serving_concurrency, ","));
  int trials = defaults::trials;
  std::string requests_file;
  int n_requests = defaults::serving_requests;
  std::string prompt_words{defaults::serving_prompt_words};
  std::string output_tokens{defaults::serving_output_tokens};
  std::string seed = "0";
  int requests_per_stream = defaults::serving_requests_per_stream;
  int warmup_requests = defaults::serving_warmup_requests;
  int level_warmup = defaults::serving_level_warmup_trials;
  std::string endpoint_order = "alternating";
  std::optional<double> target_ci_pt;
  int min_trials = defaults::min_trials;
  std::string edges{defaults::serving_edges};
  std::string api = "completions";
  bool no_stream = false;
  bool no_ignore_eos = false;
  bool server_occupancy = false;
  double occupancy_interval_s = 0.2;
  bool lockstep = false;
  double timeout_s = 600.0;
  std::string gpu;
  std::string gpus;
  bool no_energy = false;
  bool require_energy = false;
  double params_b = 0.0;
  std::string restart_cmd;
  std::string level_cmd;
  std::string server_engine;
  std::string model_name;
  double ready_timeout_s = 600.0;
  std::string out{defaults::serving_out_dir};
};

Result<std::pair<int, int>> parse_range(const std::string& flag, const std::string& text) {
  const std::size_t dash = text.find('-');
  const std::string lo_text = text.substr(0, dash);
  const std::string hi_text = dash == std::string::npos ? lo_text : text.substr(dash + 1);
  int lo = 0, hi = 0;
  const auto a = std::from_chars(lo_text.data(), lo_text.data() + lo_text.size(), lo);
  const auto b = std::from_chars(hi_text.data(), hi_text.data() + hi_text.size(), hi);
  if (lo_text.empty() || hi_text.empty() || a.ec != std::errc{} || b.ec != std::errc{} ||
      a.ptr != lo_text.data() + lo_text.size() || b.ptr != hi_text.data() + hi_text.size() || lo < 1 || hi < lo ||
      hi > (1 << 20)) {
    return unexpected(ErrorCode::invalid_argument,
                      flag + ": '" + text + "' is not N or MIN-MAX with 1 ≤ MIN ≤ MAX ≤ 1048576");
  }
  return std::pair{lo, hi};
}

// The dataset keys rows by engine name: a plain token, so that one server's sweeps share a key.
bool valid_engine_name(const std::string& name) {
  return name.size() <= 64 && std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '.' || c == '_' || c == '-';
  });
}

std::string replace_all(std::string text, const std::string& from, const std::string& to) {
  for (std::size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size())) {
    text.replace(at, from.size(), to);
  }
  return text;
}

// Waits until `client` answers /models, at most `timeout_s` after the command `what` ran.
Result<void> wait_for_models(const engine::EndpointClient& client, double timeout_s, const std::string& what) {
  const auto clock = system_clock();
  const Seconds deadline{clock->now().value + timeout_s};
  while (true) {
    if (client.list_models()) return {};
    if (InterruptHandler::interrupted().load()) {
      return unexpected(ErrorCode::cancelled, "interrupted while waiting for the server");
    }
    if (clock->now().value > deadline.value) {
      return unexpected(ErrorCode::unavailable,
                        fmt::format("{} did not answer within {} s after {}", client.spec().base_url(), timeout_s, what));
    }
    clock->sleep_for(Seconds{1.0});
  }
}

// Runs a user's shell command; an exit status other than 0 is an error naming the flag and the line.
Result<void> run_user_command(const std::string& flag, const std::string& line) {
  const int status = std::system(line.c_str());
  if (status != 0) return unexpected(ErrorCode::unavailable, fmt::format("{} '{}' exited with status {}", flag, line, status));
  return {};
}

// --restart-cmd: runs the user's command for the endpoint, then waits until its /models answers.
protocol::EndpointSwitch make_restart(const std::string& command, double ready_timeout_s,
                                      const std::vector<engine::EndpointClient>& clients) {
  if (command.empty()) return {};
  return [command, ready_timeout_s, &clients](const engine::EndpointSpec& spec) -> Result<void> {
    std::string line = replace_all(command, "{label}", spec.label);
    line = replace_all(line, "{url}", spec.base_url());
    line = replace_all(line, "{model}", spec.model);
    log::info("restarting for {}: {}", spec.label, line);
    if (auto ran = run_user_command("--restart-cmd", line); !ran) return ran;
    for (const auto& client : clients) {
      if (client.spec().label == spec.label) return wait_for_models(client, ready_timeout_s, "--restart-cmd");
    }
    return {};
  };
}

// --level-cmd: runs the user's command for a concurrency level, then waits until every endpoint answers.
protocol::LevelSwitch make_level_switch(const std::string& command, double ready_timeout_s,
                                        const std::vector<engine::EndpointClient>& clients) {
  if (command.empty()) return {};
  return [command, ready_timeout_s, &clients](int concurrency) -> Result<void> {
    const std::string line = replace_all(command, "{concurrency}", std::to_string(concurrency));
    log::info("concurrency {}: {}", concurrency, line);
    if (auto ran = run_user_command("--level-cmd", line); !ran) return ran;
    for (const auto& client : clients) {
      if (auto ready = wait_for_models(client, ready_timeout_s, "--level-cmd"); !ready) return ready;
    }
    return {};
  };
}

int run_measure_endpoint(const EndpointFlags& flags) {
  std::vector<engine::EndpointSpec> specs;
  for (const std::string& text : flags.endpoints) {
    auto spec = engine::parse_endpoint_spec(text);
    if (!spec) return report_error(spec.error());
    for (const auto& other : specs) {
      if (other.label == spec->label) {
        return report_error(Error{ErrorCode::invalid_argument, "--endpoint: the label " + spec->label + " is used twice"});
      }
    }
    specs.push_back(std::move(*spec));
  }
  if (!flags.server_engine.empty() && !valid_engine_name(flags.server_engine)) {
    return report_error(Error{ErrorCode::invalid_argument,
                              "--server-engine: '" + flags.server_engine +
                                  "' is not a name of 1–64 letters, digits, '.', '_' or '-' (e.g. vllm, llama-server)"});
  }
  protocol::SweepDesign design;
  auto levels = parse_number_list(flags.concurrency,
                                  {.what = "--concurrency", .noun = "concurrency level", .max = 4096, .unique = true});
  if (!levels) return report_error(levels.error());
  design.concurrency.assign(levels->begin(), levels->end());
  design.trials = flags.trials;
  design.warmup_requests = flags.warmup_requests;
  design.requests_per_stream = flags.requests_per_stream;
  design.level_by_level = !flags.level_cmd.empty();
  design.level_warmup_trials = flags.level_warmup;
  design.endpoint_order =
      flags.endpoint_order == "baseline-first" ? protocol::EndpointOrder::baseline_first : protocol::EndpointOrder::alternating;
  design.target_ci_pt = flags.target_ci_pt;
  design.min_trials = flags.min_trials;
  design.trial.lockstep = flags.lockstep;
  design.trial.read_occupancy = flags.server_occupancy;
  design.trial.occupancy_interval = Seconds{flags.occupancy_interval_s};
  if (design.target_ci_pt && specs.size() < 2) {
    return report_error(Error{ErrorCode::invalid_argument,
                              "--target-ci: one endpoint gives no paired ΔE to stop on; name a candidate endpoint"});
  }
  if (auto valid = design.validate(); !valid) return report_error(valid.error());

  std::vector<engine::CompletionRequest> requests;
  std::string request_set;
  std::string seed_text = "0";
  if (!flags.requests_file.empty()) {
    auto read = protocol::read_request_set(flags.requests_file);
    if (!read) return report_error(read.error());
    requests = std::move(*read);
    request_set = fmt::format("{} requests from {}", requests.size(), flags.requests_file);
  } else {
    auto prompt = parse_range("--prompt-words", flags.prompt_words);
    if (!prompt) return report_error(prompt.error());
    auto output = parse_range("--output-tokens", flags.output_tokens);
    if (!output) return report_error(output.error());
    protocol::RequestSetOptions options;
    const auto [end, ec] = std::from_chars(flags.seed.data(), flags.seed.data() + flags.seed.size(), options.seed);
    if (flags.seed.empty() || ec != std::errc{} || end != flags.seed.data() + flags.seed.size()) {
      return report_error(Error{ErrorCode::invalid_argument,
                                "--seed: '" + flags.seed + "' is not a whole number from 0 to 18446744073709551615"});
    }
    options.count = flags.n_requests;
    std::tie(options.prompt_words_min, options.prompt_words_max) = *prompt;
    std::tie(options.output_tokens_min, options.output_tokens_max) = *output;
    requests = protocol::make_request_set(options);
    seed_text = std::to_string(options.seed);
    request_set = fmt::format("{} requests drawn with seed {}: prompts of {} words, max_tokens {}", options.count,
                              options.seed, flags.prompt_words, flags.output_tokens);
  }
  if (flags.lockstep && !requests.empty()) {
    const auto [shortest, longest] = std::minmax_element(requests.begin(), requests.end(), [](const auto& a, const auto& b) {
      return a.max_tokens < b.max_tokens;
    });
    if (shortest->max_tokens != longest->max_tokens) {
      return report_error(Error{ErrorCode::invalid_argument,
                                fmt::format("--lockstep: the request set's max_tokens run from {} to {}; a round holds the "
                                            "batch only if its requests end together: give one length (--output-tokens N)",
                                            shortest->max_tokens, longest->max_tokens)});
    }
  }

  engine::EndpointOptions endpoint_options;
  endpoint_options.api = flags.api == "chat" ? engine::EndpointApi::chat : engine::EndpointApi::completions;
  endpoint_options.stream = !flags.no_stream;
  endpoint_options.ignore_eos = !flags.no_ignore_eos;
  endpoint_options.read_timeout = Seconds{flags.timeout_s};
  const auto clock = system_clock();
  std::vector<engine::EndpointClient> clients;
  for (const auto& spec : specs) clients.emplace_back(spec, endpoint_options, clock);
  // The commands start the servers: before them, nothing need answer.
  if (flags.restart_cmd.empty() && flags.level_cmd.empty()) {
    for (const auto& client : clients) {
      if (auto models = client.list_models(); !models) {
        return report_error(Error{ErrorCode::unavailable, "endpoint " + client.spec().label + " is not answering",
                                  models.error()});
      }
    }
  }

  // The folder's checks (writable, no sub-folders) before the sweep, so it is never lost at its end.
  if (auto ready = experiment::prepare_out_dir(flags.out); !ready) return report_error(ready.error());

  // A server spread over several GPUs (tensor or pipeline parallel) draws from all of them.
  meter::MeterOptions meter_options;
  meter::name_gpus(meter_options, flags.gpu, split_commas(flags.gpus));
  // The server under test is another process on the GPU: sharing it is the point, so it is allowed.
  std::unique_ptr<meter::Meter> meter;
  if (flags.no_energy) {
    meter = std::make_unique<meter::NullMeter>("--no-energy");
  } else {
    meter_options.allow_shared = true;
    meter_options.nvml.correct_edges = flags.edges == "corrected";
    meter_options.allow_fallback = !flags.require_energy;
    auto opened = meter::open_meter(meter_options);
    if (!opened) return report_error(opened.error());
    meter = std::move(*opened);
    if (flags.require_energy && !meter->measures_energy()) {
      return report_error(Error{ErrorCode::unavailable, "--require-energy: no energy source is readable"});
    }
  }
  log::info("energy source: {} ({})", meter->source(), meter->device());

  experiment::ServingContext context;
  context.report.run_id = clock->utc_now();
  context.report.run_id.erase(std::remove_if(context.report.run_id.begin(), context.report.run_id.end(),
                                             [](char c) { return c == '-' || c == ':'; }),
                              context.report.run_id.end());
  context.report.host = experiment::describe_host();
  context.report.cpu = experiment::cpu_model_name();
  if (!flags.no_energy) context.report.sources = meter::describe_energy_sources(meter_options.gpu_specs());
  context.meter_source = meter->source();
  context.meter_measures_energy = meter->measures_energy();
  context.edges = flags.edges;
  if (flags.params_b > 0) context.params_b = flags.params_b;
  context.request_set = request_set;
  context.request_set_seed = seed_text;
  context.api = engine::to_string(endpoint_options.api);
  context.streamed = endpoint_options.stream;
  context.restart_cmd = flags.restart_cmd;
  context.level_cmd = flags.level_cmd;
  context.server_engine = flags.server_engine;
  context.model_name = flags.model_name;

  const auto progress = [](const protocol::LevelRun& run, std::size_t done, std::size_t total) {
    const std::string reason = run.reason();
    const std::int64_t unsent = run.unsent_requests();
    log::info("[{}/{}] {} C={} block {}: {} requests ({} failed{}), {:.0f} tokens in a {:.1f} s steady window{}", done,
              total, run.label, run.concurrency, run.block + 1, run.records.size(), run.failed_requests(),
              unsent > 0 ? fmt::format(", {} not sent", unsent) : "", run.steady.tokens,
              std::max(0.0, run.steady.duration().value),
              reason.empty() ? "" : " — not used: " + reason);
    if (const std::string failure = run.first_request_failure(); !failure.empty()) {
      log::warn("{} C={}: a request failed: {}", run.label, run.concurrency, failure);
    }
  };
  // First Ctrl-C (or TERM): stop sending, cut the streams, write what finished. `timeout` delivers its
  // TERM twice (to the process and to its group): one request, not a second one that quits at once.
  // The handler stays until the reports are written: a second TERM that lands after the sweep returned
  // must not find the default action (on a loaded machine it killed the process before it wrote).
  const InterruptHandler handler;
  const protocol::SweepResult sweep =
      protocol::run_sweep(clients, requests, design, *meter, *clock,
                          {make_restart(flags.restart_cmd, flags.ready_timeout_s, clients),
                           make_level_switch(flags.level_cmd, flags.ready_timeout_s, clients)},
                          progress, &InterruptHandler::interrupted());

  const protocol::ServingAnalysis analysis =
      protocol::analyze_serving(sweep.runs, sweep.endpoints.size(), design.confidence());
  auto written = experiment::write_serving_reports(flags.out, sweep, analysis, context);
  if (!written) return report_error(written.error());
  std::cout << experiment::serving_summary_markdown(sweep, analysis, context);
  std::cerr << "reports: " << flags.out << " (energy-<label>-c<C>.json each, sweep.json, sweep.md)\n";

  if (sweep.cancelled || InterruptHandler::interrupted().load()) return exit_interrupted;
  if (!sweep.failure.empty()) return report_error(Error{ErrorCode::unavailable, sweep.failure});
  std::size_t failed = 0;
  for (const auto& run : sweep.runs) failed += run.is_ok() ? 0 : 1;
  if (failed > 0) {
    log::warn("{} trial(s) not usable: see sweep.json and each report's trials for the reasons", failed);
    return exit_failed_trials;
  }
  return exit_ok;
}

}  // namespace

Command make_measure_endpoint_command(CLI::App& root) {
  CLI::App* app = root.add_subcommand(
      "measure-endpoint",
      "Measure energy per output token of OpenAI-compatible endpoints (vLLM, SGLang, TGI, llama-server …) per "
      "concurrency level, paired against the first endpoint, and find the break-even concurrency");
  auto flags = std::make_shared<EndpointFlags>();
  app->add_option("--endpoint", flags->endpoints,
                  "LABEL=http://host:port/v1#MODEL, repeated; the first is the baseline (LABEL: [A-Za-z0-9_], e.g. F16)")
      ->required();
  app->add_option("--concurrency", flags->concurrency, "Requests kept in flight, comma separated levels (1 … 4096)")
      ->capture_default_str();
  app->add_option("-k,--trials", flags->trials,
                  "Trials per endpoint and level, interleaved in blocks (with --target-ci: the most)")
      ->capture_default_str()
      ->check(CLI::Range(1, 1000));
  app->add_option("--requests", flags->requests_file, "JSONL request set: {\"prompt\": …, \"max_tokens\": N} per line")
      ->check(CLI::ExistingFile);
  app->add_option("--n-requests", flags->n_requests, "Requests drawn from --seed when no --requests file")
      ->capture_default_str()
      ->check(CLI::Range(1, 1000000));
  app->add_option("--prompt-words", flags->prompt_words, "Prompt length in words, N or MIN-MAX (uniform)")
      ->capture_default_str();
  app->add_option("--output-tokens", flags->output_tokens, "max_tokens per request, N or MIN-MAX (uniform)")
      ->capture_default_str();
  app->add_option("--seed", flags->seed, "Seed of the drawn request set, 0 … 2^64 − 1")->capture_default_str();
  app->add_option("--requests-per-stream", flags->requests_per_stream,
                  "A trial sends max(set size, this × C) requests")
      ->capture_default_str()
      ->check(CLI::Range(1, 100000));
  app->add_option("--warmup-requests", flags->warmup_requests, "Unmetered requests before every trial")
      ->capture_default_str()
      ->check(CLI::Range(0, 100000));
  app->add_option("--level-warmup", flags->level_warmup,
                  "Unmetered trials (each as many requests as a metered trial) at the level's concurrency before each "
                  "endpoint's first trial of a level (and again after --level-cmd or --restart-cmd); 0: none")
      ->capture_default_str()
      ->check(CLI::Range(0, 100));
  app->add_option("--endpoint-order", flags->endpoint_order,
                  "Order of the endpoints in each block: alternating (reversed from block to block, the baseline first "
                  "in the first, third … block, so a drift cannot favour one endpoint) or baseline-first")
      ->capture_default_str()
      ->check(CLI::IsMember({"alternating", "baseline-first"}));
  app->add_option("--target-ci", flags->target_ci_pt,
                  "A level takes no more blocks once every candidate's paired ΔE CI there is within ± this many "
                  "points (looks after blocks --min-trials … -k; each CI widened so the reported one keeps ≥ 95 % "
                  "coverage)")
      ->check(CLI::Range(0.01, 100.0));
  app->add_option("--min-trials", flags->min_trials, "Blocks of a level before --target-ci may stop it")
      ->capture_default_str()
      ->check(CLI::Range(2, 1000));
  app->add_option("--api", flags->api, "completions (/v1/completions) or chat (/v1/chat/completions)")
      ->capture_default_str()
      ->check(CLI::IsMember({"completions", "chat"}));
  app->add_flag("--no-stream", flags->no_stream, "Ask for whole responses (no TTFT / inter-token latency)");
  app->add_flag("--lockstep", flags->lockstep,
                "Send each level's requests in rounds of C started together, the next round when all have ended "
                "(holds the server's batch at C; needs one output length: --output-tokens N)");
  app->add_flag("--server-occupancy", flags->server_occupancy,
                "Read each server's running requests (its batch) from GET /metrics through every trial; sweep.json "
                "gives each level's occupancy (llama-server: start it with --metrics; vLLM, SGLang, TGI export it)");
  app->add_option("--occupancy-interval", flags->occupancy_interval_s,
                  "Seconds between /metrics reads with --server-occupancy (windows shorter than a few intervals "
                  "give an occupancy from one or two readings: sweep.json counts them)")
      ->capture_default_str()
      ->needs("--server-occupancy")
      ->check(CLI::Range(0.005, 60.0));
  app->add_flag("--no-ignore-eos", flags->no_ignore_eos,
                "Do not send ignore_eos (for servers that reject it; outputs may then stop early)");
  app->add_option("--timeout", flags->timeout_s, "Longest silence inside a response, seconds")
      ->capture_default_str()
      ->check(CLI::Range(1.0, 86400.0));
  app->add_option("--edges", flags->edges,
                  "Window edges: corrected (each edge's staleness since the counter's last update added from the power "
                  "trace) or counter (plain difference: only for windows of ≥ 20 s on a 0.1-s counter)")
      ->capture_default_str()
      ->check(CLI::IsMember({"counter", "corrected"}));
  app->add_option("--gpu", flags->gpu, "GPU whose energy counter is read: UUID (GPU-…), PCI bus id or cuda:N");
  app->add_option("--gpus", flags->gpus,
                  "GPUs the server runs on, read together (UUIDs, comma-separated): energy summed, each kept")
      ->excludes("--gpu");
  app->add_flag("--no-energy", flags->no_energy, "Read no energy source (tokens, throughput and latency only)");
  app->add_flag("--require-energy", flags->require_energy, "Fail (exit 3) rather than run without an energy source");
  app->add_option("--params-b", flags->params_b, "The served model's parameters in billions (lets `data import` store it)")
      ->check(CLI::Range(0.0, 100000.0));
  app->add_option("--restart-cmd", flags->restart_cmd,
                  "Shell command run before switching endpoints ({label}, {url}, {model} substituted), e.g. to restart "
                  "one server with another model; the sweep then waits for <url>/models");
  app->add_option("--level-cmd", flags->level_cmd,
                  "Shell command run before each concurrency level ({concurrency} substituted), e.g. to restart the "
                  "servers with one slot per stream; the sweep then runs level by level (all k blocks of a level "
                  "before the next) and waits for every endpoint's <url>/models");
  app->add_option("--server-engine", flags->server_engine,
                  "The server behind the endpoints (vllm, sglang, tgi, llama-server …), as the reports' engine name: "
                  "the API does not say, and the dataset keys rows by it (default: openai-endpoint, undeclared)");
  app->add_option("--model-name", flags->model_name,
                  "The model the endpoints serve, as the reports name it (e.g. Llama-3-8B); default: the name the "
                  "server reports, which is often an alias such as the format")
      ->check(CLI::Validator([](std::string& v) { return v.empty() || v.size() > 128 ? std::string("a name of 1-128 characters") : std::string(); }, "NAME"));
  app->add_option("--ready-timeout", flags->ready_timeout_s,
                  "Seconds to wait for the servers after --restart-cmd or --level-cmd")
      ->capture_default_str()
      ->check(CLI::Range(1.0, 86400.0));
  app->add_option("-o,--out", flags->out, "Folder for the reports")->capture_default_str();
  return {app, [flags] { return run_measure_endpoint(*flags); }};
}

}  // namespace ecocompute::cli
