// UpstreamCall: one request to the upstream server, run on its own thread, its answer handed over in
// pieces: first the status and headers, then the body bytes as they arrive. The proxy's handler
// decides what to send its client from the headers, then relays the bytes (SSE streams as they come).
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "proxy/proxy_address.hpp"

namespace ecocompute::proxy {

/// A request as forwarded: method, path (with the upstream's prefix), headers, body.
struct ForwardedRequest {
  std::string method;
  std::string path;
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
};

/// How long the proxy waits on the upstream server.
struct UpstreamTimeouts {
  std::chrono::seconds connect{5};
  /// Longest silence inside an answer (a prompt may take long before the first token).
  std::chrono::seconds read{300};
  std::chrono::seconds write{30};
};

/// The upstream's status line and headers.
struct UpstreamHead {
  int status = 0;
  std::vector<std::pair<std::string, std::string>> headers;
  [[nodiscard]] std::string header(const std::string& name) const;  ///< case-insensitive; "" when absent
};

class UpstreamCall {
 public:
  /// Starts the call. `max_buffered_bytes`: body bytes held for a slow client before the call waits.
  UpstreamCall(const UpstreamUrl& upstream, ForwardedRequest request, UpstreamTimeouts timeouts,
               std::size_t max_buffered_bytes);
  /// Cancels the call if it still runs and joins its thread.
  ~UpstreamCall();
  UpstreamCall(const UpstreamCall&) = delete;
  UpstreamCall& operator=(const UpstreamCall&) = delete;

  /// Waits for the status and headers; nothing when the call failed before them (see failure()).
  std::optional<UpstreamHead> wait_head();
  /// Waits for the next body bytes; nothing at the end of the body (or when cancelled).
  std::optional<std::string> next_body_bytes();
  /// Hands every body byte to `write` as it arrives, on the call's own thread (no queue, no second
  /// wake-up per event), until the body ends; the caller blocks meanwhile. Returns false when `write`
  /// refused (the client left: the call is cancelled).
  bool relay_body(const std::function<bool(std::string_view)>& write);
  /// Why the call failed ("Connection refused", "read timeout"), empty when it did not.
  [[nodiscard]] std::string failure() const;
  /// Tells the call its client is gone: it stops reading and ends.
  void cancel();

 private:
  void run(const UpstreamUrl& upstream, ForwardedRequest request, UpstreamTimeouts timeouts);
  bool push_body(const char* data, std::size_t length);

  std::size_t max_buffered_bytes_;
  mutable std::mutex mutex_;
  std::condition_variable changed_;
  std::optional<UpstreamHead> head_;
  std::deque<std::string> body_;
  std::size_t buffered_bytes_ = 0;
  bool done_ = false;
  bool cancelled_ = false;
  bool write_refused_ = false;
  const std::function<bool(std::string_view)>* writer_ = nullptr;  // set while relay_body runs
  std::string failure_;
  std::thread thread_;
};

}  // namespace ecocompute::proxy
