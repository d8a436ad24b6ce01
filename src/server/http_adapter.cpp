// Boost.Asio behind HttpServer: the listening socket, the threads that run the event loops, and the
// graceful stop. Each thread runs a loop of its own, and each accepted connection is served by one loop
// (in turn), on a strand of it, by an HttpConnection. One loop run by many threads would hand every
// ready socket from the thread waiting on it to another (a futex wake-up and a context switch per
// event): 0.18-0.20 ms of server CPU per new estimate against 0.12-0.14 ms on one thread (2026-12-06).
#include "server/http_adapter.hpp"

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>

#include <algorithm>
#include <atomic>
#include <functional>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "server/http_connection.hpp"
#include "util/log.hpp"

namespace ecocompute::server {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;

namespace {

std::vector<std::unique_ptr<asio::io_context>> make_loops(int threads) {
  std::vector<std::unique_ptr<asio::io_context>> loops;
  for (int i = 0; i < std::max(1, threads); ++i) loops.push_back(std::make_unique<asio::io_context>(1));  // one thread each
  return loops;
}

}  // namespace

struct HttpServer::Impl {
  const Router& router;
  HttpServerOptions options;
  // Declared before the loops: handlers destroyed with them release connections, which then leave
  // this set, so it must still exist.
  ConnectionSet connections;
  std::vector<std::unique_ptr<asio::io_context>> loops;  // one per thread; the first also accepts
  // Keep each loop running while it has no connection, until the server has shut down (after the
  // loops: released before they go).
  std::vector<asio::executor_work_guard<asio::io_context::executor_type>> keep_running;
  std::size_t next_loop = 0;  // the loop of the next accepted connection (on the control strand)
  // After the loops: destroyed first, so a dropped job's connection can still close its socket.
  WorkPool work;
  asio::strand<asio::io_context::executor_type> control{asio::make_strand(*loops.front())};  // acceptor and timers
  tcp::acceptor acceptor{control};
  asio::steady_timer retry_timer{control};  // accept() after running out of file descriptors
  asio::steady_timer grace_timer{control};  // stop(): ends requests that outlive stop_grace
  std::atomic<bool> stop_requested{false};
  std::atomic<bool> running{false};

  Impl(const Router& r, HttpServerOptions o) : router(r), options(o), loops(make_loops(o.threads)), work(o.work) {}

  void stop_loops() {
    for (auto& loop : loops) loop->stop();
  }

  void accept() {
    asio::io_context& loop = *loops[next_loop++ % loops.size()];
    acceptor.async_accept(asio::make_strand(loop), [this](boost::system::error_code ec, tcp::socket socket) {
      if (!acceptor.is_open()) return;  // stopped
      if (ec) {
        // Out of descriptors (EMFILE) or a connection reset before accept: try again shortly
        // rather than spinning on the same error.
        log::warn("accepting a connection failed: {}", ec.message());
        retry_timer.expires_after(std::chrono::milliseconds(100));
        retry_timer.async_wait([this](boost::system::error_code wait_ec) {
          if (!wait_ec && acceptor.is_open()) accept();
        });
        return;
      }
      boost::system::error_code ignored;
      // Without TCP_NODELAY a small answer waits for the client's delayed ACK: ~40 ms a request.
      socket.set_option(tcp::no_delay(true), ignored);
      auto connection = std::make_shared<HttpConnection>(std::move(socket), router, options, connections, work);
      connections.add(connection);
      connection->start();
      accept();
    });
  }

  // Runs on the control strand.
  void shut_down() {
    boost::system::error_code ignored;
    acceptor.close(ignored);
    retry_timer.cancel();
    grace_timer.expires_after(options.stop_grace);
    grace_timer.async_wait([this](boost::system::error_code ec) {
      if (ec) return;  // every connection finished in time
      log::warn("requests still in flight after {} ms; ending them", options.stop_grace.count());
      stop_loops();
    });
    // The last connection may go only when the loops are destroyed (after a forced stop): then there
    // is no loop left to post to. Once it goes, each loop runs out of work and its thread returns.
    connections.shut_down_all([this] {
      if (running.load()) {
        asio::post(control, [this] {
          grace_timer.cancel();
          keep_running.clear();
        });
      }
    });
  }
};

HttpServer::HttpServer(const Router& router, int threads)
    : HttpServer(router, HttpServerOptions{.threads = threads}) {}

HttpServer::HttpServer(const Router& router, HttpServerOptions options) : impl_(std::make_unique<Impl>(router, options)) {}

HttpServer::~HttpServer() { stop(); }

Result<int> HttpServer::bind(const std::string& host, int port) {
  if (port < 0 || port > 65535) {
    return unexpected(ErrorCode::invalid_argument, fmt::format("port {} is outside 0..65535", port));
  }
  const auto refuse = [&](const boost::system::error_code& ec) {
    return unexpected(ErrorCode::unavailable,
                      fmt::format("cannot listen on {}:{} (address in use or not local?): {}", host, port, ec.message()));
  };
  boost::system::error_code ec;
  tcp::resolver resolver(*impl_->loops.front());
  const auto endpoints = resolver.resolve(host, std::to_string(port), tcp::resolver::passive, ec);
  if (ec || endpoints.empty()) return refuse(ec);
  const tcp::endpoint endpoint = endpoints.begin()->endpoint();
  tcp::acceptor& acceptor = impl_->acceptor;
  if (acceptor.is_open()) acceptor.close(ec);
  acceptor.open(endpoint.protocol(), ec);
  if (!ec) acceptor.set_option(tcp::acceptor::reuse_address(true), ec);
  if (!ec) acceptor.bind(endpoint, ec);
  if (!ec) acceptor.listen(asio::socket_base::max_listen_connections, ec);
  if (ec) {
    boost::system::error_code ignored;
    acceptor.close(ignored);
    return refuse(ec);
  }
  const int bound = acceptor.local_endpoint(ec).port();
  if (ec) return refuse(ec);
  return bound;
}

bool HttpServer::listen() {
  Impl& impl = *impl_;
  if (impl.stop_requested.load()) {
    // Stopped before it started: no loop runs the shut-down stop() posted, so the socket is closed here;
    // left open, the kernel would go on taking connections that nothing answers.
    boost::system::error_code ignored;
    impl.acceptor.close(ignored);
    return true;
  }
  if (!impl.acceptor.is_open()) return false;
  impl.running.store(true);
  impl.keep_running.clear();
  for (auto& loop : impl.loops) impl.keep_running.push_back(asio::make_work_guard(*loop));
  asio::post(impl.control, [&impl] { impl.accept(); });
  std::vector<std::thread> helpers;
  // An exception escaping one connection's handler drops that connection (its handler is gone) and
  // must not end the server: log it and keep running the loop.
  const auto run = [](asio::io_context& loop) {
    for (;;) {
      try {
        loop.run();
        return;
      } catch (const std::exception& e) {
        log::error("a connection failed: {}", e.what());
      } catch (...) {
        log::error("a connection failed");
      }
    }
  };
  for (std::size_t i = 1; i < impl.loops.size(); ++i) helpers.emplace_back(run, std::ref(*impl.loops[i]));
  run(*impl.loops.front());
  for (std::thread& helper : helpers) helper.join();
  impl.running.store(false);
  return true;
}

void HttpServer::stop() noexcept {
  if (impl_->stop_requested.exchange(true)) return;
  try {
    asio::post(impl_->control, [impl = impl_.get()] { impl->shut_down(); });
  } catch (...) {
    log::warn("stopping the HTTP server raised an exception");
  }
}

bool HttpServer::is_running() const { return impl_->running.load(); }

std::size_t HttpServer::expensive_in_flight() const { return impl_->work.load(); }

}  // namespace ecocompute::server
