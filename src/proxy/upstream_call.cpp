#define CPPHTTPLIB_OPENSSL_SUPPORT
#define CPPHTTPLIB_ZLIB_SUPPORT
#define CPPHTTPLIB_BROTLI_SUPPORT
#include <httplib.h>

#include "proxy/upstream_call.hpp"

#include <strings.h>

namespace ecocompute::proxy {

std::string UpstreamHead::header(const std::string& name) const {
  for (const auto& [key, value] : headers) {
    if (strcasecmp(key.c_str(), name.c_str()) == 0) return value;
  }
  return {};
}

UpstreamCall::UpstreamCall(const UpstreamUrl& upstream, ForwardedRequest request, UpstreamTimeouts timeouts,
                           std::size_t max_buffered_bytes)
    : max_buffered_bytes_(max_buffered_bytes) {
  thread_ = std::thread([this, upstream, request = std::move(request), timeouts]() mutable {
    run(upstream, std::move(request), timeouts);
  });
}

UpstreamCall::~UpstreamCall() {
  cancel();
  if (thread_.joinable()) thread_.join();
}

void UpstreamCall::cancel() {
  {
    std::lock_guard lock(mutex_);
    cancelled_ = true;
  }
  changed_.notify_all();
}

bool UpstreamCall::push_body(const char* data, std::size_t length) {
  std::unique_lock lock(mutex_);
  // A slow client: hold at most max_buffered_bytes_, then stop reading the server until it catches up.
  changed_.wait(lock, [&] { return cancelled_ || writer_ != nullptr || buffered_bytes_ < max_buffered_bytes_; });
  if (cancelled_) return false;
  if (writer_ != nullptr) {
    // relay_body holds the client's connection and waits for the end: write to it from here. No one
    // else writes meanwhile, and relay_body does not return before this call has ended.
    const auto* write = writer_;
    lock.unlock();
    if ((*write)(std::string_view(data, length))) return true;
    lock.lock();
    write_refused_ = true;
    cancelled_ = true;
    changed_.notify_all();
    return false;
  }
  body_.emplace_back(data, length);
  buffered_bytes_ += length;
  changed_.notify_all();
  return true;
}

void UpstreamCall::run(const UpstreamUrl& upstream, ForwardedRequest request, UpstreamTimeouts timeouts) {
  httplib::Client client(upstream.scheme_host_port);
  client.set_connection_timeout(timeouts.connect);
  client.set_read_timeout(timeouts.read);
  client.set_write_timeout(timeouts.write);
  client.set_keep_alive(false);
  client.set_url_encode(false);  // the client's request target is forwarded as it came, already encoded
  httplib::Request http;
  http.method = request.method;
  http.path = request.path;
  for (auto& [name, value] : request.headers) http.headers.emplace(std::move(name), std::move(value));
  http.body = std::move(request.body);
  http.response_handler = [this](const httplib::Response& response) {
    std::lock_guard lock(mutex_);
    UpstreamHead head;
    head.status = response.status;
    head.headers.assign(response.headers.begin(), response.headers.end());
    head_ = std::move(head);
    changed_.notify_all();
    return !cancelled_;
  };
  http.content_receiver = [this](const char* data, std::size_t length, std::uint64_t, std::uint64_t) {
    return push_body(data, length);
  };
  const httplib::Result result = client.send(http);
  std::lock_guard lock(mutex_);
  if (!result && !cancelled_) failure_ = httplib::to_string(result.error());
  done_ = true;
  changed_.notify_all();
}

std::optional<UpstreamHead> UpstreamCall::wait_head() {
  std::unique_lock lock(mutex_);
  changed_.wait(lock, [&] { return head_.has_value() || done_; });
  return head_;
}

std::optional<std::string> UpstreamCall::next_body_bytes() {
  std::unique_lock lock(mutex_);
  changed_.wait(lock, [&] { return !body_.empty() || done_ || cancelled_; });
  if (body_.empty()) return std::nullopt;
  std::string bytes = std::move(body_.front());
  body_.pop_front();
  buffered_bytes_ -= bytes.size();
  changed_.notify_all();
  return bytes;
}

bool UpstreamCall::relay_body(const std::function<bool(std::string_view)>& write) {
  std::unique_lock lock(mutex_);
  while (!body_.empty()) {
    std::string bytes = std::move(body_.front());
    body_.pop_front();
    buffered_bytes_ -= bytes.size();
    lock.unlock();
    if (!write(bytes)) {
      cancel();
      return false;
    }
    lock.lock();
  }
  if (!done_ && !cancelled_) {
    writer_ = &write;
    changed_.notify_all();
    changed_.wait(lock, [&] { return done_ || cancelled_; });
    writer_ = nullptr;
  }
  return !write_refused_;
}

std::string UpstreamCall::failure() const {
  std::lock_guard lock(mutex_);
  return failure_;
}

}  // namespace ecocompute::proxy
