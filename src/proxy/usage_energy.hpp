// The energy fields the proxy adds to an answer's `usage`, and what it reads from requests and
// answers: the model, whether it streams, the server's token counts.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "proxy/energy_ledger.hpp"

namespace ecocompute::proxy {

/// What the proxy reads from a completion request's body.
struct RequestFacts {
  std::string model;                ///< "model", or "unknown"
  bool streamed = false;            ///< "stream": true
  double prompt_tokens_estimate = 0.0;  ///< prompt text bytes / 4, until the server's usage says
  bool parsed = false;              ///< the body was a JSON object
};

/// Reads `body` (any bytes; never throws).
RequestFacts inspect_request(std::string_view body);

/// Reads `usage.prompt_tokens` and `usage.completion_tokens` of an answer or chunk, when present.
ReportedUsage reported_usage(const nlohmann::ordered_json& message);

/// The energy of one finished request, as the answer carries it.
struct AnswerEnergy {
  ProvisionalEnergy energy;
  double prompt_tokens = 0.0;
  double completion_tokens = 0.0;
};

/// Adds `energy_j`, `energy_j_per_output_token`, `energy_j_per_total_token`, `energy_estimated_j` and
/// `energy_basis` ("attributed") to `usage` (an object; created when absent).
void add_energy_fields(nlohmann::ordered_json& usage, const AnswerEnergy& answer);

/// The value of the X-Energy-J header: joules with 6 significant digits.
std::string energy_header_value(const AnswerEnergy& answer);

/// Returns the answer body with the energy fields in its usage, or nothing when `body` is not a JSON
/// object (the caller passes it through untouched).
std::optional<std::string> add_energy_to_body(std::string_view body, const AnswerEnergy& answer);

/// Returns the answer's usage as the ledger takes it, from a body that may not be JSON.
ReportedUsage reported_usage_of_body(std::string_view body);

}  // namespace ecocompute::proxy
