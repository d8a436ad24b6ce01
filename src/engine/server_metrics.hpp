// What a serving engine says about its own load in its Prometheus text (GET /metrics): the requests it
// is running right now, i.e. its decode batch. Each engine names the gauge its own way; the first of
// these that the text holds is read, summed over its label sets (one per model or engine instance):
//   llama-server (started with --metrics)  llamacpp:requests_processing
//   vLLM                                   vllm:num_requests_running
//   SGLang                                 sglang:num_running_reqs
//   Text Generation Inference              tgi_batch_current_size
#pragma once

#include <optional>
#include <span>
#include <string_view>

namespace ecocompute::engine {

/// The running-request gauges read, in the order they are looked for.
[[nodiscard]] std::span<const std::string_view> running_request_gauges() noexcept;

/// The running requests a Prometheus text exposition reports: the sum of the first known gauge's
/// samples, or nullopt when it has none of them (or only values that are not finite numbers).
/// Comment lines, other metrics and malformed lines are skipped.
[[nodiscard]] std::optional<double> running_requests(std::string_view prometheus_text);

}  // namespace ecocompute::engine
