#include "proxy/proxy_metrics.hpp"

#include <fmt/format.h>

namespace ecocompute::proxy {

void Histogram::observe(double value) {
  for (std::size_t i = 0; i < upper_bounds.size(); ++i) {
    if (value <= upper_bounds[i]) {
      ++counts[i];
      break;
    }
  }
  ++count;
  sum += value;
}

std::vector<double> ProxyMetrics::request_bounds() { return {0.1, 0.3, 1, 3, 10, 30, 100, 300, 1000, 3000, 10000}; }
std::vector<double> ProxyMetrics::output_token_bounds() { return {0.01, 0.03, 0.1, 0.3, 1, 3, 10, 30, 100}; }

std::string escape_label(const std::string& value) {
  std::string out;
  out.reserve(value.size());
  for (char c : value) {
    if (c == '\\') out += "\\\\";
    else if (c == '"') out += "\\\"";
    else if (c == '\n') out += "\\n";
    else out += c;
  }
  return out;
}

void ProxyMetrics::record_settled(const SettledRequest& request) {
  std::lock_guard lock(mutex_);
  ModelSeries& series = models_[request.model];
  series.request_joules.observe(request.joules);
  if (request.completion_tokens > 0.0) series.output_token_joules.observe(request.joules / request.completion_tokens);
  series.prompt_tokens += request.prompt_tokens;
  series.completion_tokens += request.completion_tokens;
}

void ProxyMetrics::count_answer(const std::string& model, const std::string& outcome) {
  std::lock_guard lock(mutex_);
  ++answers_[{model, outcome}];
}

namespace {

void append_histogram(std::string& out, const char* name, const std::string& model, const Histogram& histogram) {
  std::uint64_t cumulative = 0;
  for (std::size_t i = 0; i < histogram.upper_bounds.size(); ++i) {
    cumulative += histogram.counts[i];
    out += fmt::format("{}_bucket{{model=\"{}\",le=\"{}\"}} {}\n", name, model, histogram.upper_bounds[i], cumulative);
  }
  out += fmt::format("{}_bucket{{model=\"{}\",le=\"+Inf\"}} {}\n", name, model, histogram.count);
  out += fmt::format("{}_sum{{model=\"{}\"}} {}\n{}_count{{model=\"{}\"}} {}\n", name, model, histogram.sum, name, model,
                     histogram.count);
}

void append_header(std::string& out, const char* name, const char* type, const char* help) {
  out += fmt::format("# HELP {} {}\n# TYPE {} {}\n", name, help, name, type);
}

}  // namespace

std::string ProxyMetrics::render(const LedgerTotals& totals) const {
  std::lock_guard lock(mutex_);
  std::string out;
  append_header(out, "ecocompute_proxy_counter_energy_joules_total", "counter",
                "GPU energy counter advance over the closed counter intervals since the proxy started (measured)");
  out += fmt::format("ecocompute_proxy_counter_energy_joules_total {}\n", totals.counter_j);
  append_header(out, "ecocompute_proxy_attributed_energy_joules_total", "counter",
                "Energy attributed to requests by their tokens in each counter interval (settled intervals)");
  for (const auto& [model, joules] : totals.attributed_j) {
    out += fmt::format("ecocompute_proxy_attributed_energy_joules_total{{model=\"{}\"}} {}\n", escape_label(model), joules);
  }
  append_header(out, "ecocompute_proxy_idle_energy_joules_total", "counter", "Energy of the time with no request in flight");
  out += fmt::format("ecocompute_proxy_idle_energy_joules_total {}\n", totals.idle_j);
  append_header(out, "ecocompute_proxy_unsettled_energy_joules", "gauge",
                "Energy of closed intervals waiting for requests in flight to end before it is attributed");
  out += fmt::format("ecocompute_proxy_unsettled_energy_joules {}\n", totals.unsettled_j);
  append_header(out, "ecocompute_proxy_skipped_intervals_total", "counter", "Counter intervals with no known energy (counter went back)");
  out += fmt::format("ecocompute_proxy_skipped_intervals_total {}\n", totals.skipped_intervals);
  append_header(out, "ecocompute_proxy_requests_in_flight", "gauge", "Completion requests in flight");
  out += fmt::format("ecocompute_proxy_requests_in_flight {}\n", totals.in_flight);
  append_header(out, "ecocompute_proxy_answers_total", "counter", "Completion answers by model and outcome");
  for (const auto& [key, count] : answers_) {
    out += fmt::format("ecocompute_proxy_answers_total{{model=\"{}\",outcome=\"{}\"}} {}\n", escape_label(key.first),
                       key.second, count);
  }
  append_header(out, "ecocompute_proxy_tokens_total", "counter", "Tokens of settled requests, from the server's usage");
  for (const auto& [model, series] : models_) {
    const std::string label = escape_label(model);
    out += fmt::format("ecocompute_proxy_tokens_total{{model=\"{}\",kind=\"prompt\"}} {}\n", label, series.prompt_tokens);
    out += fmt::format("ecocompute_proxy_tokens_total{{model=\"{}\",kind=\"completion\"}} {}\n", label, series.completion_tokens);
  }
  append_header(out, "ecocompute_proxy_request_energy_joules", "histogram", "Attributed energy per request (settled)");
  for (const auto& [model, series] : models_) append_histogram(out, "ecocompute_proxy_request_energy_joules", escape_label(model), series.request_joules);
  append_header(out, "ecocompute_proxy_output_token_energy_joules", "histogram",
                "Attributed energy per output token, one observation per request (settled)");
  for (const auto& [model, series] : models_) {
    append_histogram(out, "ecocompute_proxy_output_token_energy_joules", escape_label(model), series.output_token_joules);
  }
  return out;
}

}  // namespace ecocompute::proxy
