// HttpServer: the only door to the HTTP library (cpp-httplib); it turns the library's requests into
// HttpRequest, asks the Router, and writes back the HttpResponse.
#pragma once

#include <memory>
#include <string>

#include "server/router.hpp"
#include "util/result.hpp"

namespace ecocompute::server {

/// Serves a Router over HTTP/1.1 with a pool of worker threads.
///
///     HttpServer server(router);
///     Result<int> port = server.bind("127.0.0.1", 0);   // 0: any free port
///     std::thread t([&] { server.listen(); });
///     ... server.stop(); t.join();
class HttpServer {
 public:
  /// Constructs a server for `router` (not owned; must outlive the server) with `threads` workers.
  explicit HttpServer(const Router& router, int threads = 8);
  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  /// Binds to `host`:`port` (port 0 picks a free one) and returns the bound port; the error names
  /// the address.
  [[nodiscard]] Result<int> bind(const std::string& host, int port);

  /// Accepts connections until stop(); call after a successful bind(). Returns false if the
  /// listening loop failed.
  bool listen();

  /// Stops accepting, lets requests in flight finish, and makes listen() return. Thread-safe and
  /// callable before listen() has started.
  void stop() noexcept;

  /// Returns true while listen() is accepting connections.
  [[nodiscard]] bool is_running() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace ecocompute::server
