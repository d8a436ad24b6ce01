// The Debian library is built with these; the header's classes must match it.
#define CPPHTTPLIB_OPENSSL_SUPPORT
#define CPPHTTPLIB_ZLIB_SUPPORT
#define CPPHTTPLIB_BROTLI_SUPPORT
#include <httplib.h>

#include "engine/endpoint_client.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "engine/server_metrics.hpp"
#include "engine/sse_reader.hpp"

namespace ecocompute::engine {
namespace {

using Json = nlohmann::json;

constexpr std::size_t kMaxErrorBody = 512;
constexpr std::size_t kMaxBody = 64u << 20;

httplib::Client make_client(const EndpointSpec& spec, const EndpointOptions& options) {
  httplib::Client client(spec.scheme_host_port);
  auto to_time = [](Seconds s) {
    const auto whole = static_cast<time_t>(s.value);
    return std::pair<time_t, time_t>{whole, static_cast<time_t>((s.value - static_cast<double>(whole)) * 1e6)};
  };
  const auto [cs, cus] = to_time(options.connect_timeout);
  const auto [rs, rus] = to_time(options.read_timeout);
  client.set_connection_timeout(cs, cus);
  client.set_read_timeout(rs, rus);
  client.set_write_timeout(rs, rus);
  client.set_keep_alive(false);
  return client;
}

std::string describe_http_error(httplib::Error error) { return httplib::to_string(error); }

// The output text a chunk (streamed) or a choice (whole response) carries.
std::optional<std::string> choice_text(const Json& choice, EndpointApi api, bool streamed) {
  if (!choice.is_object()) return std::nullopt;
  if (api == EndpointApi::completions) {
    const auto text = choice.find("text");
    if (text != choice.end() && text->is_string()) return text->get<std::string>();
    return std::nullopt;
  }
  const auto holder = choice.find(streamed ? "delta" : "message");
  if (holder == choice.end() || !holder->is_object()) return std::nullopt;
  const auto content = holder->find("content");
  if (content != holder->end() && content->is_string()) return content->get<std::string>();
  return std::nullopt;
}

// Reads usage.prompt_tokens and usage.completion_tokens; checks total_tokens when present.
Result<std::pair<std::int64_t, std::int64_t>> read_usage(const Json& usage) {
  if (!usage.is_object()) return unexpected(ErrorCode::invalid_input, "usage is not an object");
  const auto count = [&](const char* key) -> std::optional<std::int64_t> {
    const auto it = usage.find(key);
    if (it == usage.end() || !it->is_number_integer()) return std::nullopt;
    const auto value = it->get<std::int64_t>();
    if (value < 0) return std::nullopt;
    return value;
  };
  const auto prompt = count("prompt_tokens");
  const auto completion = count("completion_tokens");
  if (!prompt || !completion) {
    return unexpected(ErrorCode::invalid_input, "usage lacks a whole, non-negative prompt_tokens or completion_tokens");
  }
  if (usage.contains("total_tokens")) {
    const auto total = count("total_tokens");
    if (!total || *total != *prompt + *completion) {
      return unexpected(ErrorCode::invalid_input, "usage.total_tokens is not prompt_tokens + completion_tokens");
    }
  }
  return std::pair{*prompt, *completion};
}

// The state of one streamed response while chunks arrive.
struct StreamState {
  SseReader reader;
  bool done = false;
  std::optional<Json> usage;
  std::string failure;
  std::string error_body;
};

}  // namespace

const char* to_string(EndpointApi api) noexcept { return api == EndpointApi::chat ? "chat" : "completions"; }

std::optional<Seconds> RequestRecord::time_to_first_token() const {
  if (!ok || chunk_times.empty()) return std::nullopt;
  return Seconds{chunk_times.front().value - sent.value};
}

std::vector<double> RequestRecord::inter_token_latencies_s() const {
  std::vector<double> out;
  if (!ok) return out;
  for (std::size_t i = 1; i < chunk_times.size(); ++i) out.push_back(chunk_times[i].value - chunk_times[i - 1].value);
  return out;
}

EndpointClient::EndpointClient(EndpointSpec spec, EndpointOptions options, std::shared_ptr<Clock> clock)
    : spec_(std::move(spec)), options_(options), clock_(std::move(clock)) {}

std::string EndpointClient::request_body(const CompletionRequest& request) const {
  Json body;
  body["model"] = spec_.model;
  if (options_.api == EndpointApi::chat) {
    body["messages"] = Json::array({Json{{"role", "user"}, {"content", request.prompt}}});
  } else {
    body["prompt"] = request.prompt;
  }
  body["max_tokens"] = request.max_tokens;
  body["temperature"] = 0;  // greedy: the same work at every endpoint
  body["stream"] = options_.stream;
  if (options_.stream) body["stream_options"] = Json{{"include_usage", true}};
  if (options_.ignore_eos) body["ignore_eos"] = true;
  return body.dump();
}

RequestRecord EndpointClient::send(const CompletionRequest& request, const std::atomic<bool>* cancel,
                                   const std::function<void()>& on_first_text) const {
  RequestRecord record;
  record.max_tokens = request.max_tokens;
  record.streamed = options_.stream;
  httplib::Client client = make_client(spec_, options_);
  httplib::Request http;
  http.method = "POST";
  http.path = spec_.path_prefix + (options_.api == EndpointApi::chat ? "/chat/completions" : "/completions");
  http.body = request_body(request);
  http.set_header("Content-Type", "application/json");
  if (options_.stream) http.set_header("Accept", "text/event-stream");

  StreamState state;
  std::string whole;  // the body of a response that is not a stream (or an error body)
  http.response_handler = [&](const httplib::Response& response) {
    record.http_status = response.status;
    return true;
  };
  http.content_receiver = [&](const char* data, size_t length, uint64_t, uint64_t) {
    if (cancel != nullptr && cancel->load(std::memory_order_relaxed)) {
      state.failure = "cancelled";
      return false;
    }
    if (record.http_status != 200 || !options_.stream) {
      if (whole.size() + length > kMaxBody) {
        state.failure = "response body larger than " + std::to_string(kMaxBody) + " bytes";
        return false;
      }
      whole.append(data, length);
      return true;
    }
    const Seconds arrived = clock_->now();
    for (const std::string& event : state.reader.feed(std::string_view(data, length))) {
      if (state.done) {
        state.failure = "an event after [DONE]";
        return false;
      }
      if (event == "[DONE]") {
        state.done = true;
        continue;
      }
      const Json chunk = Json::parse(event, nullptr, false);
      if (chunk.is_discarded() || !chunk.is_object()) {
        state.failure = "malformed SSE event: not a JSON object: '" + event.substr(0, 80) + "'";
        return false;
      }
      if (chunk.contains("error")) {
        state.failure = "the server sent an error in the stream: " + chunk["error"].dump().substr(0, kMaxErrorBody);
        return false;
      }
      if (const auto model = chunk.find("model"); model != chunk.end() && model->is_string()) {
        record.server_model = model->get<std::string>();
      }
      if (const auto choices = chunk.find("choices"); choices != chunk.end() && choices->is_array()) {
        for (const Json& choice : *choices) {
          const auto text = choice_text(choice, options_.api, true);
          if (!text || text->empty()) continue;
          record.chunk_times.push_back(arrived);
          if (record.chunk_times.size() == 1 && on_first_text) on_first_text();
        }
      }
      if (const auto usage = chunk.find("usage"); usage != chunk.end() && !usage->is_null()) state.usage = *usage;
    }
    if (state.reader.error()) {
      state.failure = *state.reader.error();
      return false;
    }
    return true;
  };

  record.sent = clock_->now();
  const httplib::Result result = client.send(http);
  record.finished = clock_->now();

  auto fail = [&](std::string why) {
    record.ok = false;
    record.failure = std::move(why);
    record.prompt_tokens = 0;
    record.output_tokens = 0;
    return record;
  };
  if (!state.failure.empty()) return fail(state.failure);
  if (!result) {
    const bool mid_stream = !record.chunk_times.empty() || record.http_status != 0;
    return fail(std::string(mid_stream ? "connection broken mid-response: " : "no response: ") +
                describe_http_error(result.error()));
  }
  if (record.http_status != 200) {
    return fail("HTTP " + std::to_string(record.http_status) + ": " + whole.substr(0, kMaxErrorBody));
  }

  std::size_t text_pieces = 0;
  std::optional<Json> usage;
  if (options_.stream) {
    if (!state.done) {
      return fail(state.reader.has_partial_event() ? "stream cut off inside an event (no [DONE])"
                                                   : "stream ended without [DONE] (disconnected mid-stream)");
    }
    if (!state.usage) return fail("no usage in the stream (the server ignored stream_options.include_usage)");
    usage = state.usage;
    text_pieces = record.chunk_times.size();
  } else {
    const Json body = Json::parse(whole, nullptr, false);
    if (body.is_discarded() || !body.is_object()) return fail("the response is not a JSON object");
    if (const auto model = body.find("model"); model != body.end() && model->is_string()) {
      record.server_model = model->get<std::string>();
    }
    const auto u = body.find("usage");
    if (u == body.end() || u->is_null()) return fail("no usage in the response");
    usage = *u;
    if (const auto choices = body.find("choices"); choices != body.end() && choices->is_array()) {
      for (const Json& choice : *choices) {
        const auto text = choice_text(choice, options_.api, false);
        if (text && !text->empty()) ++text_pieces;
      }
    }
  }
  auto counts = read_usage(*usage);
  if (!counts) return fail(counts.error().message());
  const auto [prompt_tokens, output_tokens] = *counts;
  // A chunk carries at least one token, so more text chunks than tokens is a contradiction.
  if (static_cast<std::int64_t>(text_pieces) > output_tokens) {
    return fail("usage.completion_tokens " + std::to_string(output_tokens) + " is fewer than the " +
                std::to_string(text_pieces) + " chunks that carried text");
  }
  if (output_tokens > request.max_tokens) {
    return fail("usage.completion_tokens " + std::to_string(output_tokens) + " exceeds max_tokens " +
                std::to_string(request.max_tokens));
  }
  if (options_.stream && output_tokens > 0 && text_pieces == 0) {
    return fail("usage counts " + std::to_string(output_tokens) + " tokens but no chunk carried text");
  }
  record.ok = true;
  record.prompt_tokens = prompt_tokens;
  record.output_tokens = output_tokens;
  return record;
}

Result<double> EndpointClient::running_requests() const {
  httplib::Client client = make_client(spec_, options_);
  // A metrics read that hangs must not hold the trial's end for the completion read timeout.
  client.set_connection_timeout(2, 0);
  client.set_read_timeout(5, 0);
  const std::string url = spec_.scheme_host_port + "/metrics";
  const httplib::Result result = client.Get("/metrics");
  if (!result) {
    return unexpected(ErrorCode::unavailable, url + ": no response (" + describe_http_error(result.error()) + ")");
  }
  if (result->status != 200) {
    return unexpected(ErrorCode::unavailable, url + ": HTTP " + std::to_string(result->status) +
                                                  " (llama-server exports its metrics only when started with --metrics)");
  }
  if (const auto running = engine::running_requests(result->body)) return *running;
  return unexpected(ErrorCode::unavailable,
                    fmt::format("{}: none of the running-request gauges ({})", url, fmt::join(running_request_gauges(), ", ")));
}

Result<std::vector<std::string>> EndpointClient::list_models() const {
  httplib::Client client = make_client(spec_, options_);
  const std::string url = spec_.base_url() + "/models";
  const httplib::Result result = client.Get(spec_.path_prefix + "/models");
  if (!result) {
    return unexpected(ErrorCode::unavailable, url + ": no response (" + describe_http_error(result.error()) + ")");
  }
  if (result->status != 200) {
    return unexpected(ErrorCode::unavailable, url + ": HTTP " + std::to_string(result->status));
  }
  const Json body = Json::parse(result->body, nullptr, false);
  std::vector<std::string> ids;
  if (body.is_object() && body.contains("data") && body["data"].is_array()) {
    for (const Json& entry : body["data"]) {
      if (entry.is_object() && entry.contains("id") && entry["id"].is_string()) ids.push_back(entry["id"]);
    }
  }
  if (body.is_discarded()) return unexpected(ErrorCode::invalid_input, url + ": the response is not JSON");
  return ids;
}

}  // namespace ecocompute::engine
