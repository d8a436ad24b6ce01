// EndpointClient: one completion request to an OpenAI-compatible server, timed per streamed chunk.
//
// Tokens are what the server says it produced (its `usage` fields), never a client-side count:
// the client has no tokenizer. A streamed request asks for `stream_options.include_usage`; each
// chunk that carries output text is timestamped on arrival. A request whose usage is missing or
// contradicts the stream, an HTTP error, a stream cut off before [DONE] or a malformed event is
// marked failed with its reason and contributes no token count at all.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/endpoint_spec.hpp"
#include "util/clock.hpp"
#include "util/result.hpp"
#include "util/units.hpp"

namespace ecocompute::engine {

/// Which OpenAI route a request goes to.
enum class EndpointApi { completions, chat };
/// Returns "completions" or "chat".
[[nodiscard]] const char* to_string(EndpointApi api) noexcept;

struct EndpointOptions {
  EndpointApi api = EndpointApi::completions;
  bool stream = true;
  /// Sends `ignore_eos: true` (vLLM, SGLang, llama-server, TensorRT-LLM accept it), so every request
  /// produces its max_tokens and the request set is the same work at every endpoint.
  bool ignore_eos = true;
  Seconds connect_timeout{10.0};
  Seconds read_timeout{600.0};  ///< longest silence inside a response
};

/// One request of a request set.
struct CompletionRequest {
  std::string prompt;
  std::int64_t max_tokens = 16;
};

/// What became of one request. Times are the client's Clock::now().
struct RequestRecord {
  bool ok = false;
  std::string failure;               ///< why not ok; empty when ok
  int http_status = 0;               ///< 0 when no response arrived
  std::int64_t prompt_tokens = 0;    ///< usage.prompt_tokens (0 when not ok)
  std::int64_t output_tokens = 0;    ///< usage.completion_tokens (0 when not ok)
  std::int64_t max_tokens = 0;       ///< as requested
  Seconds sent{0.0};                 ///< request written
  Seconds finished{0.0};             ///< response complete (or failed)
  std::vector<Seconds> chunk_times;  ///< arrival of each streamed chunk that carried output text
  std::string server_model;          ///< the response's "model" field
  bool streamed = false;

  /// Returns time to first token: first text chunk − sent (streamed, ok requests only).
  [[nodiscard]] std::optional<Seconds> time_to_first_token() const;
  /// Returns the gaps between consecutive text chunks, seconds (streamed, ok requests only).
  [[nodiscard]] std::vector<double> inter_token_latencies_s() const;
};

/// Sends requests to one endpoint. Thread-safe: every send() uses its own connection.
class EndpointClient {
 public:
  EndpointClient(EndpointSpec spec, EndpointOptions options, std::shared_ptr<Clock> clock);

  [[nodiscard]] const EndpointSpec& spec() const noexcept { return spec_; }
  [[nodiscard]] const EndpointOptions& options() const noexcept { return options_; }

  /// Sends one request and waits for the whole response. Never throws; failures are in the record.
  /// `cancel` (may be null) aborts a stream between chunks. `on_first_text` (may be empty) is called
  /// once, on the thread of the call, when the first chunk that carries text arrives.
  [[nodiscard]] RequestRecord send(const CompletionRequest& request, const std::atomic<bool>* cancel = nullptr,
                                   const std::function<void()>& on_first_text = {}) const;

  /// GET <base>/models: returns the served model ids, or an unavailable error naming the URL.
  [[nodiscard]] Result<std::vector<std::string>> list_models() const;
  /// GET <scheme_host_port>/metrics: the requests the server says it is running now (server_metrics.hpp).
  /// An unavailable error names the URL and why: no response, an HTTP status (llama-server answers 501
  /// or 404 unless started with --metrics), or no running-request gauge in the text.
  [[nodiscard]] Result<double> running_requests() const;

  /// Returns the JSON body send() posts for `request` (for tests and the log).
  [[nodiscard]] std::string request_body(const CompletionRequest& request) const;

 private:
  EndpointSpec spec_;
  EndpointOptions options_;
  std::shared_ptr<Clock> clock_;
};

}  // namespace ecocompute::engine
