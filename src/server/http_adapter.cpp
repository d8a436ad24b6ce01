// cpp-httplib behind HttpServer. Debian's libcpp-httplib is a compiled library built with OpenSSL, zlib
// and Brotli support; the same macros must be defined here so that its classes have the same layout.
#define CPPHTTPLIB_OPENSSL_SUPPORT
#define CPPHTTPLIB_ZLIB_SUPPORT
#define CPPHTTPLIB_BROTLI_SUPPORT
#include <httplib.h>

#include "server/http_adapter.hpp"

#include <atomic>
#include <chrono>
#include <thread>

#include <fmt/format.h>

#include "server/api_error.hpp"
#include "util/log.hpp"

namespace ecocompute::server {

struct HttpServer::Impl {
  const Router& router;
  httplib::Server server;
  // The library's stop() does nothing until its listen loop has started; these two flags make a stop
  // that comes first (a signal during start-up, a test stopping at once) take effect anyway.
  std::atomic<bool> stop_requested{false};
  std::atomic<bool> listening{false};
  explicit Impl(const Router& r) : router(r) {}
};

namespace {

HttpRequest to_request(const httplib::Request& in) {
  HttpRequest out;
  out.method = in.method;
  out.path = in.path;
  for (const auto& [key, value] : in.params) out.query[key] = value;
  for (const auto& [key, value] : in.headers) {
    std::string name = key;
    for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    out.headers[name] = value;
  }
  out.body = in.body;
  out.client = in.remote_addr;
  return out;
}

void write_response(const HttpResponse& in, httplib::Response& out) {
  out.status = in.status;
  for (const auto& [key, value] : in.headers) out.set_header(key, value);
  if (!in.body.empty() || !in.content_type.empty()) out.set_content(in.body, in.content_type);
}

}  // namespace

HttpServer::HttpServer(const Router& router, int threads) : impl_(std::make_unique<Impl>(router)) {
  httplib::Server& server = impl_->server;
  const auto worker_count = static_cast<size_t>(std::max(1, threads));
  server.new_task_queue = [worker_count] { return new httplib::ThreadPool(worker_count); };
  // Bodies above the largest route limit are refused from Content-Length, before they are read.
  server.set_payload_max_length(router.max_body_bytes());
  // Keep-alive lets a client reuse its connection; the library's default closes it every 5 requests.
  server.set_keep_alive_max_count(10000);
  // Without TCP_NODELAY a small response waits for the client's delayed ACK: ~40 ms per request.
  server.set_tcp_nodelay(true);
  server.set_read_timeout(5, 0);
  server.set_write_timeout(5, 0);

  const auto handle = [this](const httplib::Request& req, httplib::Response& res) {
    write_response(impl_->router.handle(to_request(req)), res);
  };
  server.Get(R"(/.*)", handle);
  server.Post(R"(/.*)", handle);
  server.Options(R"(/.*)", handle);
  server.Put(R"(/.*)", handle);
  server.Delete(R"(/.*)", handle);
  server.Patch(R"(/.*)", handle);

  // Answers the library's own refusals (413 from Content-Length, 400 on a malformed request line,
  // 404 for an unmatched method) with the same JSON body and headers as ours.
  server.set_error_handler([](const httplib::Request& req, httplib::Response& res) {
    if (!res.body.empty()) return;
    std::string message = res.status == 413 ? fmt::format("request body exceeds the limit for {}", req.path)
                                             : fmt::format("request refused ({})", res.status);
    HttpResponse response = error_response(res.status, message);
    add_security_headers(response);
    write_response(response, res);
  });
  server.set_exception_handler([](const httplib::Request& req, httplib::Response& res, std::exception_ptr ep) {
    try {
      if (ep) std::rethrow_exception(ep);
    } catch (const std::exception& e) {
      log::error("{} {} failed: {}", req.method, req.path, e.what());
    } catch (...) {
      log::error("{} {} failed", req.method, req.path);
    }
    HttpResponse response = error_response(500, "internal error");
    add_security_headers(response);
    write_response(response, res);
  });
}

HttpServer::~HttpServer() { stop(); }

Result<int> HttpServer::bind(const std::string& host, int port) {
  if (port < 0 || port > 65535) {
    return unexpected(ErrorCode::invalid_argument, fmt::format("port {} is outside 0..65535", port));
  }
  int bound = port;
  if (port == 0) {
    bound = impl_->server.bind_to_any_port(host);
    if (bound <= 0) bound = -1;
  } else if (!impl_->server.bind_to_port(host, port)) {
    bound = -1;
  }
  if (bound < 0) {
    return unexpected(ErrorCode::unavailable, fmt::format("cannot listen on {}:{} (address in use or not local?)", host, port));
  }
  return bound;
}

bool HttpServer::listen() {
  impl_->listening.store(true);
  if (impl_->stop_requested.load()) {
    impl_->listening.store(false);
    return true;
  }
  const bool ok = impl_->server.listen_after_bind();
  impl_->listening.store(false);
  return ok;
}

void HttpServer::stop() noexcept {
  impl_->stop_requested.store(true);
  // listen() has begun but its loop may not be running yet: wait for it (bounded) so the stop is not lost.
  for (int i = 0; i < 2000 && impl_->listening.load() && !impl_->server.is_running(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  try {
    impl_->server.stop();
  } catch (...) {
    log::warn("stopping the HTTP server raised an exception");
  }
}

bool HttpServer::is_running() const { return impl_->server.is_running(); }

}  // namespace ecocompute::server
