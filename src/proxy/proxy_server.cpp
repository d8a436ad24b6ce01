#define CPPHTTPLIB_OPENSSL_SUPPORT
#define CPPHTTPLIB_ZLIB_SUPPORT
#define CPPHTTPLIB_BROTLI_SUPPORT
#include <httplib.h>

#include "proxy/proxy_server.hpp"

#include <strings.h>
#include <sys/socket.h>

#include <array>
#include <set>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "proxy/sse_energy_stream.hpp"
#include "proxy/usage_energy.hpp"
#include "util/log.hpp"

namespace ecocompute::proxy {

namespace {

// Listen backlog: 256 clients connecting at once must not find the kernel's queue full (httplib's is 5).
constexpr int kListenBacklog = 1024;
// Body bytes of one stream held for a slow client before the proxy stops reading the server.
constexpr std::size_t kStreamBufferBytes = 4u << 20;

bool header_is(const std::string& name, std::initializer_list<const char*> names) {
  for (const char* candidate : names) {
    if (strcasecmp(name.c_str(), candidate) == 0) return true;
  }
  return false;
}

// Headers of one hop, or set by the HTTP library itself, are not forwarded.
bool hop_header(const std::string& name) {
  return header_is(name, {"Host", "Content-Length", "Connection", "Keep-Alive", "Transfer-Encoding", "TE", "Upgrade",
                          "Proxy-Connection", "Accept-Encoding", "Content-Encoding", "REMOTE_ADDR", "REMOTE_PORT",
                          "LOCAL_ADDR", "LOCAL_PORT"});
}

void copy_answer_headers(const UpstreamHead& head, httplib::Response& response) {
  for (const auto& [name, value] : head.headers) {
    if (!hop_header(name) && !header_is(name, {"Content-Type"})) response.headers.emplace(name, value);
  }
}

std::string outcome_of(int status) { return fmt::format("{}xx", status / 100); }

void answer_error(httplib::Response& response, int status, const std::string& type, const std::string& message) {
  response.status = status;
  const nlohmann::json body{{"error", {{"message", message}, {"type", type}, {"code", status}}}};
  response.set_content(body.dump(), "application/json");
}

}  // namespace

struct ProxyServer::Impl {
  ProxyServerOptions options;
  EnergyLedger& ledger;
  ProxyMetrics& metrics;
  std::shared_ptr<Clock> clock;
  httplib::Server server;
  socket_t listening = INVALID_SOCKET;
  std::mutex models_mutex;
  std::set<std::string> models;

  Impl(ProxyServerOptions o, EnergyLedger& l, ProxyMetrics& m, std::shared_ptr<Clock> c)
      : options(std::move(o)), ledger(l), metrics(m), clock(std::move(c)) {}

  double now_s() const { return clock->now().value; }
  std::string model_label(const std::string& name);
  ForwardedRequest forwarded(const httplib::Request& request) const;
  std::unique_ptr<UpstreamCall> call(const httplib::Request& request) const {
    return std::make_unique<UpstreamCall>(options.upstream, forwarded(request), options.upstream_timeouts,
                                          kStreamBufferBytes);
  }
  // Reads a whole answer body; nothing when it exceeds max_answer_bytes.
  std::optional<std::string> read_whole(UpstreamCall& upstream) const;
  void answer_unreachable(httplib::Response& response, const UpstreamCall& upstream) const;
  void handle_completion(const httplib::Request& request, httplib::Response& response);
  void handle_pass_through(const httplib::Request& request, httplib::Response& response);
  void install_routes();
};

namespace {

// One completion request's exchange: its ledger entry, its upstream call and, when it streams, the
// SSE editor. Whatever way the exchange ends, the ledger hears of it exactly once.
struct CompletionExchange {
  CompletionExchange(EnergyLedger& l, std::shared_ptr<Clock> c) : ledger(l), clock(std::move(c)) {}
  ~CompletionExchange() { finish({}); }
  CompletionExchange(const CompletionExchange&) = delete;
  CompletionExchange& operator=(const CompletionExchange&) = delete;

  AnswerEnergy finish(const ReportedUsage& usage) {
    if (finished) return {};
    finished = true;
    const ProvisionalEnergy energy = ledger.finish_request(id, clock->now().value, usage);
    return AnswerEnergy{energy, energy.prompt_tokens, energy.completion_tokens};
  }

  EnergyLedger& ledger;
  std::shared_ptr<Clock> clock;
  std::uint64_t id = 0;
  std::string model;
  bool finished = false;
  std::unique_ptr<UpstreamCall> upstream;
  std::unique_ptr<SseEnergyStream> sse;
};

}  // namespace

std::string ProxyServer::Impl::model_label(const std::string& name) {
  // Label values come from clients: bounded in length and in number, so /metrics stays bounded.
  std::string label = name.substr(0, 128);
  std::lock_guard lock(models_mutex);
  if (models.contains(label)) return label;
  if (models.size() >= options.max_models) return "other";
  models.insert(label);
  return label;
}

ForwardedRequest ProxyServer::Impl::forwarded(const httplib::Request& request) const {
  ForwardedRequest out;
  out.method = request.method;
  out.path = options.upstream.base_path + (request.target.empty() ? request.path : request.target);
  for (const auto& [name, value] : request.headers) {
    if (!hop_header(name)) out.headers.emplace_back(name, value);
  }
  out.body = request.body;
  return out;
}

std::optional<std::string> ProxyServer::Impl::read_whole(UpstreamCall& upstream) const {
  std::string body;
  while (auto bytes = upstream.next_body_bytes()) {
    body += *bytes;
    if (body.size() > options.max_answer_bytes) {
      upstream.cancel();
      return std::nullopt;
    }
  }
  return body;
}

void ProxyServer::Impl::answer_unreachable(httplib::Response& response, const UpstreamCall& upstream) const {
  const std::string why = upstream.failure().empty() ? std::string("no answer") : upstream.failure();
  log::warn("upstream {} did not answer: {}", options.upstream.text(), why);
  answer_error(response, 502, "upstream_unreachable",
               fmt::format("the upstream server {} did not answer: {}", options.upstream.text(), why));
}

void ProxyServer::Impl::handle_completion(const httplib::Request& request, httplib::Response& response) {
  const RequestFacts facts = inspect_request(request.body);
  auto exchange = std::make_shared<CompletionExchange>(ledger, clock);
  exchange->model = model_label(facts.model);
  exchange->id = ledger.begin_request(exchange->model, now_s(), facts.prompt_tokens_estimate, facts.streamed);
  exchange->upstream = call(request);
  const auto head = exchange->upstream->wait_head();
  if (!head) {
    metrics.count_answer(exchange->model, "upstream_error");
    return answer_unreachable(response, *exchange->upstream);
  }
  response.status = head->status;
  copy_answer_headers(*head, response);
  metrics.count_answer(exchange->model, outcome_of(head->status));
  const std::string type = head->header("Content-Type");
  if (type.starts_with("text/event-stream")) {
    exchange->sse = std::make_unique<SseEnergyStream>(
        [this, id = exchange->id] { ledger.record_output(id, now_s()); },
        [raw = exchange.get()](const ReportedUsage& usage) { return raw->finish(usage); });
    response.set_chunked_content_provider(
        type,
        [exchange](std::size_t, httplib::DataSink& sink) {
          // The whole stream in one call: each event goes to the client from the thread that read it.
          SseEnergyStream& sse = *exchange->sse;
          const bool relayed = exchange->upstream->relay_body([&sse, &sink](std::string_view bytes) {
            const std::string out = sse.feed(bytes);
            return out.empty() || sink.write(out.data(), out.size());
          });
          if (!relayed) return false;  // the client left; the server's request is cancelled with it
          const std::string rest = sse.end();
          if (!rest.empty() && !sink.write(rest.data(), rest.size())) return false;
          sink.done();
          return true;
        },
        [exchange](bool) { exchange->upstream->cancel(); });
    return;
  }
  auto body = read_whole(*exchange->upstream);
  if (!body) {
    return answer_error(response, 502, "upstream_answer_too_large",
                        fmt::format("the upstream answer exceeds {} bytes", options.max_answer_bytes));
  }
  const AnswerEnergy answer = exchange->finish(reported_usage_of_body(*body));
  auto with_energy = head->status / 100 == 2 ? add_energy_to_body(*body, answer) : std::nullopt;
  if (head->status / 100 == 2 && !with_energy) {
    log::warn("upstream answered {} with a body that is not a JSON object; passed through untouched", request.path);
  }
  if (with_energy) response.set_header(kEnergyHeader, energy_header_value(answer));
  response.set_content(with_energy ? *with_energy : *body, type.empty() ? "application/octet-stream" : type);
}

void ProxyServer::Impl::handle_pass_through(const httplib::Request& request, httplib::Response& response) {
  auto upstream = call(request);
  const auto head = upstream->wait_head();
  if (!head) return answer_unreachable(response, *upstream);
  auto body = read_whole(*upstream);
  if (!body) {
    return answer_error(response, 502, "upstream_answer_too_large",
                        fmt::format("the upstream answer exceeds {} bytes", options.max_answer_bytes));
  }
  response.status = head->status;
  copy_answer_headers(*head, response);
  const std::string type = head->header("Content-Type");
  response.set_content(std::move(*body), type.empty() ? "application/octet-stream" : type);
}

void ProxyServer::Impl::install_routes() {
  const auto completion = [this](const httplib::Request& q, httplib::Response& r) { handle_completion(q, r); };
  const auto pass = [this](const httplib::Request& q, httplib::Response& r) { handle_pass_through(q, r); };
  server.Get("/metrics", [this](const httplib::Request&, httplib::Response& response) {
    response.set_content(metrics.render(ledger.totals()), "text/plain; version=0.0.4; charset=utf-8");
  });
  server.Post("/v1/chat/completions", completion);
  server.Post("/v1/completions", completion);
  server.Get(".*", pass);
  server.Post(".*", pass);
  server.Put(".*", pass);
  server.Patch(".*", pass);
  server.Delete(".*", pass);
  server.Options(".*", pass);
}

ProxyServer::ProxyServer(ProxyServerOptions options, EnergyLedger& ledger, ProxyMetrics& metrics,
                         std::shared_ptr<Clock> clock)
    : impl_(std::make_unique<Impl>(std::move(options), ledger, metrics, std::move(clock))) {
  httplib::Server& server = impl_->server;
  const int threads = impl_->options.threads;
  server.new_task_queue = [threads] { return new httplib::ThreadPool(static_cast<std::size_t>(threads)); };
  const auto timeout = impl_->options.client_timeout;
  server.set_read_timeout(timeout);
  server.set_write_timeout(timeout);
  server.set_keep_alive_timeout(5);
  server.set_payload_max_length(impl_->options.max_request_bytes);
  server.set_tcp_nodelay(true);
  server.set_socket_options([impl = impl_.get()](socket_t sock) {
    httplib::default_socket_options(sock);
    impl->listening = sock;
  });
  server.set_exception_handler([](const httplib::Request&, httplib::Response& response, std::exception_ptr) {
    answer_error(response, 500, "proxy_error", "the proxy failed on this request");
  });
  impl_->install_routes();
}

ProxyServer::~ProxyServer() { stop(); }

Result<int> ProxyServer::bind() {
  const ListenAddress& address = impl_->options.listen;
  const int port = address.port == 0 ? impl_->server.bind_to_any_port(address.host)
                                     : (impl_->server.bind_to_port(address.host, address.port) ? address.port : -1);
  if (port <= 0) {
    return unexpected(ErrorCode::unavailable,
                      fmt::format("--listen {}:{}: cannot listen there (in use, or not an address of this machine)",
                                  address.host, address.port));
  }
  // httplib listens with a backlog fixed at build time; Linux lets listen() raise it on the same socket.
  if (impl_->listening != INVALID_SOCKET) ::listen(impl_->listening, kListenBacklog);
  return port;
}

bool ProxyServer::listen() { return impl_->server.listen_after_bind(); }

void ProxyServer::stop() {
  if (impl_->server.is_running()) impl_->server.stop();
}

bool ProxyServer::is_running() const { return impl_->server.is_running(); }

}  // namespace ecocompute::proxy
