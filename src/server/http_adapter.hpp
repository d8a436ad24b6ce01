// HttpServer: the only door to the HTTP library (Boost.Beast on Boost.Asio); it accepts connections,
// turns each request into an HttpRequest, asks the Router, and writes back the HttpResponse.
#pragma once

#include <chrono>
#include <cstddef>
#include <memory>
#include <string>

#include "server/router.hpp"
#include "server/work_pool.hpp"
#include "util/result.hpp"

namespace ecocompute::server {

/// How the server treats connections. An event loop serves them: a connection that is idle or slow
/// holds no thread, so neither keep-alive clients nor slow senders can starve the others.
struct HttpServerOptions {
  /// Event loops, a thread each, that run the routes (a route runs on the thread that read its request);
  /// connections are shared out among them in turn as they are accepted, and each stays on its loop.
  int threads = 8;
  /// A kept-alive connection with no new request for this long is closed.
  std::chrono::milliseconds idle_timeout{5000};
  /// A request's line and headers must be complete this long after their first byte: a client that
  /// sends a header line every few seconds is cut off, not waited for.
  std::chrono::milliseconds header_timeout{5000};
  /// A declared body must have arrived whole this long after the header.
  std::chrono::milliseconds body_timeout{10000};
  /// An answer the client does not take within this long is dropped with the connection.
  std::chrono::milliseconds write_timeout{10000};
  /// After an answer that ends the connection, what the client still sends (an unread body) is read
  /// and dropped for at most this long, so that closing does not reset the connection before the
  /// client has read the answer.
  std::chrono::milliseconds linger_timeout{2000};
  /// stop() waits at most this long for requests in flight before it ends them.
  std::chrono::milliseconds stop_grace{10000};
  /// The request line and headers together; larger ones are answered 431.
  std::size_t max_header_bytes = 16 * 1024;
  /// The threads and queue of the expensive routes (RouteOptions::expensive); a request that finds
  /// the queue full is answered 503 with Retry-After.
  WorkPoolOptions work{};
};

/// Serves a Router over HTTP/1.1.
///
///     HttpServer server(router);
///     Result<int> port = server.bind("127.0.0.1", 0);   // 0: any free port
///     std::thread t([&] { server.listen(); });
///     ... server.stop(); t.join();
class HttpServer {
 public:
  /// Constructs a server for `router` (not owned; must outlive the server) with `threads` threads.
  explicit HttpServer(const Router& router, int threads = 8);
  /// Constructs a server for `router` (not owned; must outlive the server) with `options`.
  HttpServer(const Router& router, HttpServerOptions options);
  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  /// Binds to `host`:`port` (port 0 picks a free one) and returns the bound port; the error names
  /// the address.
  [[nodiscard]] Result<int> bind(const std::string& host, int port);

  /// Accepts connections until stop(); call after a successful bind(). Returns false when called
  /// without a bound address.
  bool listen();

  /// Stops accepting, closes idle connections, lets requests in flight finish (for at most
  /// stop_grace), and makes listen() return. Thread-safe and callable before listen() has started.
  void stop() noexcept;

  /// Returns true while listen() is accepting connections.
  [[nodiscard]] bool is_running() const;

  /// Returns how many expensive requests are running or queued on the WorkPool now.
  [[nodiscard]] std::size_t expensive_in_flight() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace ecocompute::server
