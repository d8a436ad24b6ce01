// HttpConnection: one client connection on Boost.Beast. It reads requests one after another, each
// phase under its own deadline (idle keep-alive, header, body, write), asks the Router, and writes the
// answers. Waiting for a client is an asynchronous operation, never a blocked thread.
// ConnectionSet: the live connections, so that stop() can close the idle ones.
#pragma once

#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/message.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/string_body.hpp>

#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>

#include "server/http_adapter.hpp"
#include "server/http_message.hpp"
#include "server/router.hpp"

namespace ecocompute::server {

class HttpConnection;

/// The live connections. Thread-safe.
class ConnectionSet {
 public:
  /// Registers `connection`; one added after shut_down_all() is shut down at once.
  void add(const std::shared_ptr<HttpConnection>& connection);
  /// Forgets `connection` (its destructor calls this); calls the on-empty function when the last
  /// one goes after shut_down_all().
  void remove(const HttpConnection* connection);
  /// Shuts every connection down (HttpConnection::shut_down) and calls `on_empty` once none is left.
  void shut_down_all(std::function<void()> on_empty);

 private:
  std::mutex mutex_;
  std::unordered_map<const HttpConnection*, std::weak_ptr<HttpConnection>> connections_;
  bool shutting_down_ = false;
  std::function<void()> on_empty_;
};

class HttpConnection : public std::enable_shared_from_this<HttpConnection> {
 public:
  /// Takes `socket` (whose executor must be a strand); `router`, `options` and `set` must outlive it.
  HttpConnection(boost::asio::ip::tcp::socket socket, const Router& router, const HttpServerOptions& options,
                 ConnectionSet& set, WorkPool& work);
  ~HttpConnection();
  HttpConnection(const HttpConnection&) = delete;
  HttpConnection& operator=(const HttpConnection&) = delete;

  /// Starts reading the first request.
  void start();

  /// Closes the connection if it is waiting for a request or still reading a header; a request
  /// being read, handled or answered finishes first, and the connection closes after its answer.
  /// Callable from any thread.
  void shut_down();

 private:
  using Parser = boost::beast::http::request_parser<boost::beast::http::string_body>;
  enum class Phase { idle, header, body, handling, writing, closing, closed };

  void await_request();
  void read_header();
  void on_header(boost::beast::error_code ec);
  void read_body();
  void on_body(boost::beast::error_code ec);
  // Answers the request read: on this thread, or for an expensive route on the WorkPool (503 when full).
  void handle_request(bool keep_alive);
  void answer(HttpResponse response, bool keep_alive);
  void answer_error(int status, const std::string& message);
  void close_gracefully();
  void drain();
  void close_now();
  // The request's head as the Router sees it, or the reason its target cannot be read.
  [[nodiscard]] Result<HttpRequest> head_request() const;
  [[nodiscard]] bool body_is_read() const;

  boost::beast::tcp_stream stream_;
  boost::beast::flat_buffer buffer_;
  std::optional<Parser> parser_;
  HttpRequest request_;
  boost::beast::http::response<boost::beast::http::string_body> response_;
  const Router& router_;
  const HttpServerOptions& options_;
  ConnectionSet& set_;
  WorkPool& work_;
  std::string client_;
  Phase phase_ = Phase::idle;  // read and written on the connection's strand only
  bool stopping_ = false;      // likewise
};

}  // namespace ecocompute::server
