// TrialResult: status spellings and the per-window derived figures.
#include "protocol/trial_result.hpp"

#include <fmt/format.h>

#include <array>
#include <utility>

namespace ecocompute::protocol {

namespace {

constexpr std::array<std::pair<TrialStatus, std::string_view>, 6> kStatusNames{{
    {TrialStatus::ok, "ok"},
    {TrialStatus::throttled, "throttled"},
    {TrialStatus::invalid_window, "invalid_window"},
    {TrialStatus::engine_failed, "engine_failed"},
    {TrialStatus::cancelled, "cancelled"},
    {TrialStatus::not_run, "not_run"},
}};

}  // namespace

std::string_view to_string(TrialStatus status) noexcept {
  for (const auto& [value, name] : kStatusNames) {
    if (value == status) return name;
  }
  return "unknown";
}

Result<TrialStatus> parse_trial_status(std::string_view text) {
  for (const auto& [value, name] : kStatusNames) {
    if (name == text) return value;
  }
  return unexpected(ErrorCode::invalid_argument,
                    fmt::format("status: '{}' is not a trial status (ok, throttled, invalid_window, "
                                "engine_failed, cancelled, not_run)", text));
}

std::string_view to_string(WindowKind kind) noexcept {
  switch (kind) {
    case WindowKind::prefill: return "prefill";
    case WindowKind::decode: return "decode";
    case WindowKind::idle: return "idle";
  }
  return "unknown";
}

std::optional<double> WindowResult::energy_per_token_gross_mj() const {
  if (!energy_gross || tokens <= 0) return std::nullopt;
  return energy_gross->value * 1e3 / static_cast<double>(tokens);
}

std::optional<double> WindowResult::energy_per_token_net_mj() const {
  if (!energy_net || tokens <= 0) return std::nullopt;
  return energy_net->value * 1e3 / static_cast<double>(tokens);
}

std::optional<double> WindowResult::throughput_tokens_per_s() const {
  if (measurement.duration.value <= 0.0) return std::nullopt;
  return static_cast<double>(tokens) / measurement.duration.value;
}

std::optional<Watts> WindowResult::average_power() const {
  if (!energy_gross || measurement.duration.value <= 0.0) return std::nullopt;
  return *energy_gross / measurement.duration;
}

std::optional<double> WindowResult::edge_uncertainty_pct() const {
  if (!energy_gross || !measurement.edge_uncertainty || energy_gross->value <= 0.0) return std::nullopt;
  return measurement.edge_uncertainty->value / energy_gross->value * 100.0;
}

}  // namespace ecocompute::protocol
