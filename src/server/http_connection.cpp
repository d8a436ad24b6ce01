// One connection's read → route → write loop on Boost.Beast, each phase under its own deadline.
#include "server/http_connection.hpp"

#include <boost/asio/dispatch.hpp>
#include <boost/asio/post.hpp>
#include <boost/beast/core/bind_handler.hpp>
#include <boost/beast/http/empty_body.hpp>
#include <boost/beast/http/error.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/write.hpp>

#include <limits>

#include <fmt/format.h>

#include "server/api_error.hpp"
#include "server/request_target.hpp"

namespace ecocompute::server {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;

void ConnectionSet::add(const std::shared_ptr<HttpConnection>& connection) {
  bool late = false;
  {
    std::lock_guard lock(mutex_);
    connections_[connection.get()] = connection;
    late = shutting_down_;
  }
  if (late) connection->shut_down();
}

void ConnectionSet::remove(const HttpConnection* connection) {
  std::function<void()> on_empty;
  {
    std::lock_guard lock(mutex_);
    connections_.erase(connection);
    if (shutting_down_ && connections_.empty()) on_empty = std::exchange(on_empty_, {});
  }
  if (on_empty) on_empty();
}

void ConnectionSet::shut_down_all(std::function<void()> on_empty) {
  std::vector<std::shared_ptr<HttpConnection>> live;
  {
    std::lock_guard lock(mutex_);
    if (shutting_down_) return;
    shutting_down_ = true;
    for (const auto& [key, weak] : connections_) {
      if (auto connection = weak.lock()) live.push_back(std::move(connection));
    }
    if (connections_.empty()) {
      on_empty_ = {};
    } else {
      on_empty_ = std::move(on_empty);
      on_empty = {};
    }
  }
  for (const auto& connection : live) connection->shut_down();
  if (on_empty) on_empty();
}

HttpConnection::HttpConnection(asio::ip::tcp::socket socket, const Router& router, const HttpServerOptions& options,
                               ConnectionSet& set, WorkPool& work)
    : stream_(std::move(socket)), router_(router), options_(options), set_(set), work_(work) {
  beast::error_code ec;
  const auto remote = stream_.socket().remote_endpoint(ec);
  client_ = ec ? std::string("unknown") : remote.address().to_string();
}

HttpConnection::~HttpConnection() { set_.remove(this); }

void HttpConnection::start() {
  asio::dispatch(stream_.get_executor(), beast::bind_front_handler(&HttpConnection::await_request, shared_from_this()));
}

void HttpConnection::shut_down() {
  asio::post(stream_.get_executor(), [self = shared_from_this()] {
    self->stopping_ = true;
    if (self->phase_ == Phase::idle || self->phase_ == Phase::header) self->close_now();
  });
}

void HttpConnection::await_request() {
  if (stopping_) return close_now();
  phase_ = Phase::idle;
  parser_.emplace();
  parser_->header_limit(static_cast<std::uint32_t>(options_.max_header_bytes));
  // Content-Length is judged by the Router from the head (Beast would refuse it here without saying
  // for which route); a chunked body is capped in read_body().
  parser_->body_limit(std::numeric_limits<std::uint64_t>::max());
  request_ = HttpRequest{};
  if (buffer_.size() > 0) return read_header();  // a pipelined request is already here

  // Idle keep-alive: wait for the first byte of the next request, then the header deadline starts.
  stream_.expires_after(options_.idle_timeout);
  stream_.async_read_some(buffer_.prepare(4096), [self = shared_from_this()](beast::error_code ec, std::size_t n) {
    if (ec) return self->close_now();  // idle too long, the client left, or shut_down()
    self->buffer_.commit(n);
    self->read_header();
  });
}

void HttpConnection::read_header() {
  phase_ = Phase::header;
  // One deadline for the whole header, however its bytes trickle in.
  stream_.expires_after(options_.header_timeout);
  http::async_read_header(stream_, buffer_, *parser_,
                          [self = shared_from_this()](beast::error_code ec, std::size_t) { self->on_header(ec); });
}

void HttpConnection::on_header(beast::error_code ec) {
  // The client left, took too long, or stop() closed an unfinished header: nobody to answer.
  if (ec == http::error::end_of_stream || ec == http::error::partial_message || ec == beast::error::timeout ||
      ec == asio::error::operation_aborted || ec == asio::error::connection_reset || ec == asio::error::eof) {
    return close_now();
  }
  if (ec == http::error::header_limit) {
    return answer_error(431, fmt::format("the request line and headers exceed {} bytes", options_.max_header_bytes));
  }
  if (ec) return answer_error(400, fmt::format("malformed request ({})", ec.message()));

  auto head = head_request();
  if (!head) return answer_error(400, head.error().message());
  request_ = std::move(head).value();
  if (auto refused = router_.refuse_before_body(request_)) {
    // A Transfer-Encoding Beast does not decode leaves the body's end unknown: close (RFC 9112 §6.3).
    const bool body_end_known = !request_.header("transfer-encoding") || parser_->chunked();
    return answer(std::move(*refused), body_is_read() && body_end_known && parser_->get().keep_alive());
  }
  if (body_is_read()) return handle_request(parser_->get().keep_alive());
  if (request_.header("expect") != "100-continue") return read_body();
  // curl and others wait (up to a second) for this before they send a body.
  auto proceed = std::make_shared<http::response<http::empty_body>>(http::status::continue_, parser_->get().version());
  stream_.expires_after(options_.write_timeout);
  http::async_write(stream_, *proceed, [self = shared_from_this(), proceed](beast::error_code write_ec, std::size_t) {
    if (write_ec) return self->close_now();
    self->read_body();
  });
}

void HttpConnection::read_body() {
  phase_ = Phase::body;
  parser_->body_limit(router_.max_body_bytes());
  stream_.expires_after(options_.body_timeout);
  http::async_read(stream_, buffer_, *parser_,
                   [self = shared_from_this()](beast::error_code ec, std::size_t) { self->on_body(ec); });
}

void HttpConnection::on_body(beast::error_code ec) {
  if (ec == http::error::body_limit) {
    return answer_error(413, fmt::format("request body exceeds the limit for {}", request_.path));
  }
  if (ec == beast::error::timeout || ec == asio::error::operation_aborted || ec == http::error::end_of_stream ||
      ec == asio::error::connection_reset || ec == asio::error::eof || ec == http::error::partial_message) {
    return close_now();
  }
  if (ec) return answer_error(400, fmt::format("malformed request body ({})", ec.message()));
  request_.body = std::move(parser_->get().body());
  handle_request(parser_->get().keep_alive());
}

void HttpConnection::handle_request(bool keep_alive) {
  phase_ = Phase::handling;
  if (!router_.is_expensive(request_)) return answer(router_.handle(request_), keep_alive);
  // The job owns the connection until its answer is posted back to the connection's strand.
  const bool queued = work_.try_submit([self = shared_from_this(), keep_alive] {
    HttpResponse response = self->router_.handle(self->request_);
    asio::post(self->stream_.get_executor(), [self, keep_alive, response = std::move(response)]() mutable {
      self->answer(std::move(response), keep_alive);
    });
  });
  if (queued) return;
  HttpResponse busy = error_response(503, fmt::format("the server is busy with {} expensive requests ({} at a time); "
                                                      "retry after 1 s",
                                                      work_.load(), work_.options().threads));
  busy.set_header("Retry-After", "1");
  add_security_headers(busy);
  answer(std::move(busy), keep_alive);
}

Result<HttpRequest> HttpConnection::head_request() const {
  const auto& message = parser_->get();
  auto target = parse_request_target(std::string_view(message.target().data(), message.target().size()));
  if (!target) return target.error();
  HttpRequest out;
  out.method = std::string(message.method_string());
  out.path = std::move(target->path);
  out.query = std::move(target->query);
  for (const auto& field : message) {
    std::string name(field.name_string());
    for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    out.headers[name] = std::string(field.value());
  }
  out.client = client_;
  if (const auto length = parser_->content_length()) out.content_length = static_cast<std::size_t>(*length);
  out.framed = out.content_length.has_value() || parser_->chunked();
  return out;
}

bool HttpConnection::body_is_read() const { return parser_ && parser_->is_done(); }

void HttpConnection::answer_error(int status, const std::string& message) {
  HttpResponse response = error_response(status, message);
  add_security_headers(response);
  answer(std::move(response), false);
}

void HttpConnection::answer(HttpResponse response, bool keep_alive) {
  phase_ = Phase::writing;
  keep_alive = keep_alive && !stopping_;
  const bool header_read = parser_ && parser_->is_header_done();
  response_ = {};
  response_.version(header_read ? parser_->get().version() : 11);
  response_.result(static_cast<unsigned>(response.status));
  for (auto& [name, value] : response.headers) response_.set(name, value);
  if (!response.content_type.empty()) response_.set(http::field::content_type, response.content_type);
  if (response.status == 204 || response.status == 304) response.body.clear();
  response_.body() = std::move(response.body);
  response_.keep_alive(keep_alive);
  response_.prepare_payload();
  stream_.expires_after(options_.write_timeout);
  http::async_write(stream_, response_, [self = shared_from_this(), keep_alive](beast::error_code ec, std::size_t) {
    if (ec) return self->close_now();
    if (!keep_alive) return self->close_gracefully();
    self->await_request();
  });
}

void HttpConnection::close_gracefully() {
  phase_ = Phase::closing;
  beast::error_code ignored;
  stream_.socket().shutdown(asio::ip::tcp::socket::shutdown_send, ignored);
  // Closing with unread bytes makes the kernel reset the connection, which can discard the answer
  // before the client reads it: read and drop what it still sends, until it closes or the deadline.
  stream_.expires_after(options_.linger_timeout);
  drain();
}

void HttpConnection::drain() {
  buffer_.consume(buffer_.size());
  stream_.async_read_some(buffer_.prepare(64 * 1024), [self = shared_from_this()](beast::error_code ec, std::size_t) {
    if (ec) return self->close_now();
    self->drain();
  });
}

void HttpConnection::close_now() {
  if (phase_ == Phase::closed) return;
  phase_ = Phase::closed;
  beast::error_code ignored;
  stream_.socket().shutdown(asio::ip::tcp::socket::shutdown_both, ignored);
  stream_.close();
}

}  // namespace ecocompute::server
