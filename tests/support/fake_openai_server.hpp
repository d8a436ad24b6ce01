// FakeOpenAiServer: an httplib server on a free local port that answers /v1/completions,
// /v1/chat/completions and /v1/models from a script, for the endpoint client's fault cases.
#pragma once

#define CPPHTTPLIB_OPENSSL_SUPPORT
#define CPPHTTPLIB_ZLIB_SUPPORT
#define CPPHTTPLIB_BROTLI_SUPPORT
#include <httplib.h>
#include <sys/socket.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

namespace ecocompute::testing {

/// What the server does with one completion request.
struct FakeReply {
  int status = 200;
  std::vector<std::string> events;  ///< raw SSE bytes, one element per write (streamed replies)
  std::string body;                 ///< whole body (not streamed, or an error)
  bool stream = true;
  bool cut_after_events = false;    ///< close the connection after the events (no final empty chunk)
  std::chrono::milliseconds delay_between{0};
};

/// The SSE text of a completions chunk with `text`.
inline std::string text_event(const std::string& text, const std::string& model = "fake-model") {
  nlohmann::json chunk{{"id", "c1"},       {"object", "text_completion"}, {"model", model},
                       {"choices", nlohmann::json::array({{{"index", 0}, {"text", text}, {"finish_reason", nullptr}}})}};
  return "data: " + chunk.dump() + "\n\n";
}

/// The SSE text of a chat chunk whose delta carries `text`.
inline std::string chat_event(const std::string& text) {
  nlohmann::json chunk{{"id", "c1"}, {"object", "chat.completion.chunk"}, {"model", "fake-model"},
                       {"choices", nlohmann::json::array({{{"index", 0}, {"delta", {{"content", text}}}}})}};
  return "data: " + chunk.dump() + "\n\n";
}

/// The SSE text of the final usage chunk.
inline std::string usage_event(long long prompt, long long completion) {
  nlohmann::json chunk{{"id", "c1"},
                       {"model", "fake-model"},
                       {"choices", nlohmann::json::array()},
                       {"usage", {{"prompt_tokens", prompt}, {"completion_tokens", completion},
                                  {"total_tokens", prompt + completion}}}};
  return "data: " + chunk.dump() + "\n\n";
}

inline const std::string done_event = "data: [DONE]\n\n";

/// A well-formed streamed reply of `n` one-token chunks.
inline FakeReply good_stream(int n, long long prompt = 5) {
  FakeReply reply;
  for (int i = 0; i < n; ++i) reply.events.push_back(text_event(" w" + std::to_string(i)));
  reply.events.push_back(usage_event(prompt, n));
  reply.events.push_back(done_event);
  return reply;
}

class FakeOpenAiServer {
 public:
  /// `script` answers each completion request from its parsed JSON body.
  /// `threads` bounds the streams it serves at once (one thread each).
  /// `listen_backlog` (0: httplib's, 5) is how many connections the kernel queues before accept();
  /// a load of C clients connecting at once needs at least C, or connects are dropped and reset.
  /// `with_metrics` adds GET /metrics: the requests being answered, as llama-server --metrics exports them.
  explicit FakeOpenAiServer(std::function<FakeReply(const nlohmann::json&)> script, std::size_t threads = 64,
                            int listen_backlog = 0, bool with_metrics = false)
      : script_(std::move(script)) {
    server_.new_task_queue = [threads] { return new httplib::ThreadPool(threads); };
    auto handle = [this](const httplib::Request& request, httplib::Response& response) {
      const nlohmann::json body = nlohmann::json::parse(request.body, nullptr, false);
      {
        std::lock_guard lock(mutex_);
        bodies_.push_back(body);
      }
      ++running_;
      FakeReply reply = script_(body);
      response.status = reply.status;
      if (!reply.stream || reply.status != 200) {
        response.set_content(reply.body, "application/json");
        --running_;
        return;
      }
      auto shared = std::make_shared<FakeReply>(std::move(reply));
      auto next = std::make_shared<std::size_t>(0);
      response.set_chunked_content_provider("text/event-stream", [shared, next](size_t, httplib::DataSink& sink) {
        if (*next >= shared->events.size()) {
          if (shared->cut_after_events) return false;  // drop the connection without the final chunk
          sink.done();
          return true;
        }
        if (*next > 0 && shared->delay_between.count() > 0) std::this_thread::sleep_for(shared->delay_between);
        const std::string& event = shared->events[(*next)++];
        return sink.write(event.data(), event.size());
      }, [this](bool) { --running_; });
    };
    server_.Post("/v1/completions", handle);
    server_.Post("/v1/chat/completions", handle);
    if (with_metrics) {
      server_.Get("/metrics", [this](const httplib::Request&, httplib::Response& response) {
        std::this_thread::sleep_for(std::chrono::milliseconds(metrics_delay_ms_.load()));
        response.set_content("llamacpp:requests_processing " + std::to_string(running_.load()) + "\n", "text/plain");
      });
    }
    server_.Get("/v1/models", [](const httplib::Request&, httplib::Response& response) {
      response.set_content(R"({"object":"list","data":[{"id":"fake-model","object":"model"}]})", "application/json");
    });
    if (listen_backlog > 0) {
      server_.set_socket_options([this](socket_t sock) {
        httplib::default_socket_options(sock);
        listening_ = sock;
      });
    }
    port_ = server_.bind_to_any_port("127.0.0.1");
    // httplib 0.11 listens with a backlog fixed at build time (5) and has no setter; Linux lets
    // listen() be called again on a listening socket to change it.
    if (listen_backlog > 0 && (port_ <= 0 || ::listen(listening_, listen_backlog) != 0)) {
      throw std::runtime_error("FakeOpenAiServer: cannot raise the listen backlog");
    }
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    while (!server_.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ~FakeOpenAiServer() {
    server_.stop();
    if (thread_.joinable()) thread_.join();
  }
  FakeOpenAiServer(const FakeOpenAiServer&) = delete;
  FakeOpenAiServer& operator=(const FakeOpenAiServer&) = delete;

  /// GET /metrics answers only after this long (a server busy between decode steps).
  void delay_metrics(std::chrono::milliseconds delay) { metrics_delay_ms_ = delay.count(); }
  [[nodiscard]] int port() const { return port_; }
  [[nodiscard]] std::string base_url() const { return "http://127.0.0.1:" + std::to_string(port_) + "/v1"; }
  [[nodiscard]] std::vector<nlohmann::json> bodies() const {
    std::lock_guard lock(mutex_);
    return bodies_;
  }

 private:
  std::function<FakeReply(const nlohmann::json&)> script_;
  std::atomic<int> running_{0};
  std::atomic<long long> metrics_delay_ms_{0};
  httplib::Server server_;
  std::thread thread_;
  int port_ = 0;
  socket_t listening_ = -1;
  mutable std::mutex mutex_;
  std::vector<nlohmann::json> bodies_;
};

}  // namespace ecocompute::testing
