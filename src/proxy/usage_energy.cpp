#include "proxy/usage_energy.hpp"

#include <fmt/format.h>

namespace ecocompute::proxy {

namespace {

// A tokenizer's average over English text and code: ~4 bytes a token. Only an estimate for requests
// whose server never reports usage; the usage replaces it.
constexpr double kBytesPerToken = 4.0;

double prompt_bytes(const nlohmann::json& request) {
  double bytes = 0.0;
  if (auto prompt = request.find("prompt"); prompt != request.end()) {
    bytes += static_cast<double>(prompt->is_string() ? prompt->get_ref<const std::string&>().size() : prompt->dump().size());
  }
  if (auto messages = request.find("messages"); messages != request.end() && messages->is_array()) {
    for (const auto& message : *messages) {
      auto content = message.find("content");
      if (content == message.end()) continue;
      bytes += static_cast<double>(content->is_string() ? content->get_ref<const std::string&>().size()
                                                         : content->dump().size());
    }
  }
  return bytes;
}

std::optional<double> count_of(const nlohmann::ordered_json& usage, const char* key) {
  auto value = usage.find(key);
  if (value == usage.end() || !value->is_number() || value->get<double>() < 0.0) return std::nullopt;
  return value->get<double>();
}

}  // namespace

RequestFacts inspect_request(std::string_view body) {
  RequestFacts facts;
  facts.model = "unknown";
  const nlohmann::json request = nlohmann::json::parse(body, nullptr, false);
  if (request.is_discarded() || !request.is_object()) return facts;
  facts.parsed = true;
  if (auto model = request.find("model"); model != request.end() && model->is_string() && !model->get_ref<const std::string&>().empty()) {
    facts.model = model->get<std::string>();
  }
  if (auto stream = request.find("stream"); stream != request.end() && stream->is_boolean()) facts.streamed = stream->get<bool>();
  facts.prompt_tokens_estimate = prompt_bytes(request) / kBytesPerToken;
  return facts;
}

ReportedUsage reported_usage(const nlohmann::ordered_json& message) {
  ReportedUsage usage;
  if (!message.is_object()) return usage;
  auto found = message.find("usage");
  if (found == message.end() || !found->is_object()) return usage;
  usage.prompt_tokens = count_of(*found, "prompt_tokens");
  usage.completion_tokens = count_of(*found, "completion_tokens");
  return usage;
}

void add_energy_fields(nlohmann::ordered_json& usage, const AnswerEnergy& answer) {
  if (!usage.is_object()) usage = nlohmann::ordered_json::object();
  const double joules = answer.energy.joules;
  const double total_tokens = answer.prompt_tokens + answer.completion_tokens;
  usage["energy_j"] = joules;
  usage["energy_j_per_output_token"] =
      answer.completion_tokens > 0.0 ? nlohmann::ordered_json(joules / answer.completion_tokens) : nlohmann::ordered_json();
  usage["energy_j_per_total_token"] =
      total_tokens > 0.0 ? nlohmann::ordered_json(joules / total_tokens) : nlohmann::ordered_json();
  usage["energy_estimated_j"] = answer.energy.open_interval_estimate_j;
  // Split from the GPU counter by the tokens of the requests in flight: not a per-request measurement.
  usage["energy_basis"] = answer.energy.counter_read ? "attributed" : "attributed-before-first-counter-update";
}

std::string energy_header_value(const AnswerEnergy& answer) { return fmt::format("{:.6g}", answer.energy.joules); }

std::optional<std::string> add_energy_to_body(std::string_view body, const AnswerEnergy& answer) {
  nlohmann::ordered_json message = nlohmann::ordered_json::parse(body, nullptr, false);
  if (message.is_discarded() || !message.is_object()) return std::nullopt;
  add_energy_fields(message["usage"], answer);
  return message.dump();
}

ReportedUsage reported_usage_of_body(std::string_view body) {
  const nlohmann::ordered_json message = nlohmann::ordered_json::parse(body, nullptr, false);
  if (message.is_discarded()) return {};
  return reported_usage(message);
}

}  // namespace ecocompute::proxy
