#include "engine/server_metrics.hpp"

#include <array>
#include <charconv>
#include <cmath>
#include <string>

#include "util/trim.hpp"

namespace ecocompute::engine {
namespace {

constexpr std::array<std::string_view, 4> kGauges{"llamacpp:requests_processing", "vllm:num_requests_running",
                                                  "sglang:num_running_reqs", "tgi_batch_current_size"};

// The value of one sample line "name{labels} value [timestamp]" of metric `name`, else nullopt.
std::optional<double> sample_value(std::string_view line, std::string_view name) {
  if (!line.starts_with(name)) return std::nullopt;
  std::string_view rest = line.substr(name.size());
  if (!rest.empty() && rest.front() == '{') {
    const auto close = rest.find('}');
    if (close == std::string_view::npos) return std::nullopt;
    rest.remove_prefix(close + 1);
  }
  if (rest.empty() || (rest.front() != ' ' && rest.front() != '\t')) return std::nullopt;  // a longer name
  const std::string value_and_time = trimmed(rest);
  rest = std::string_view(value_and_time).substr(0, value_and_time.find_first_of(" \t"));
  double value = 0;
  const auto [end, error] = std::from_chars(rest.data(), rest.data() + rest.size(), value);
  if (error != std::errc() || end != rest.data() + rest.size() || !std::isfinite(value)) return std::nullopt;
  return value;
}

}  // namespace

std::span<const std::string_view> running_request_gauges() noexcept { return kGauges; }

std::optional<double> running_requests(std::string_view text) {
  for (std::string_view gauge : kGauges) {
    std::optional<double> sum;
    std::string_view rest = text;
    while (!rest.empty()) {
      const auto newline = rest.find('\n');
      const std::string line = trimmed(rest.substr(0, newline));
      rest = newline == std::string_view::npos ? std::string_view() : rest.substr(newline + 1);
      if (line.empty() || line.front() == '#') continue;
      if (const auto value = sample_value(line, gauge)) sum = sum.value_or(0.0) + *value;
    }
    if (sum) return sum;
  }
  return std::nullopt;
}

}  // namespace ecocompute::engine
