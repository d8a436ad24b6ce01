// A raw HTTP/1.1 client on a loopback socket, for the requests a library client will not send as
// written: invalid bytes in the target or a header, a POST without Content-Length, a header that
// never ends. Every wait is bounded by the caller's timeout.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <map>
#include <string>
#include <string_view>

namespace ecocompute::server::testing {

/// One response as read off the socket; status 0 when none came whole before the timeout or close.
struct RawResponse {
  int status = 0;
  std::map<std::string, std::string> headers;  ///< names in lower case
  std::string body;

  /// Returns a header's value ("" when absent); `lower_name` in lower case.
  [[nodiscard]] std::string header(const std::string& lower_name) const {
    const auto it = headers.find(lower_name);
    return it == headers.end() ? "" : it->second;
  }
  [[nodiscard]] bool has_header(const std::string& lower_name) const { return headers.contains(lower_name); }
};

class RawConnection {
 public:
  explicit RawConnection(int port) {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(static_cast<std::uint16_t>(port));
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (::connect(fd_, reinterpret_cast<const sockaddr*>(&address), sizeof address) != 0) {
      ::close(fd_);
      fd_ = -1;
    }
    const int one = 1;
    if (fd_ >= 0) ::setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  }
  ~RawConnection() {
    if (fd_ >= 0) ::close(fd_);
  }
  RawConnection(const RawConnection&) = delete;
  RawConnection& operator=(const RawConnection&) = delete;

  [[nodiscard]] bool connected() const { return fd_ >= 0; }

  /// Sends every byte of `bytes`; false if the socket refused them.
  bool send(std::string_view bytes) {
    while (fd_ >= 0 && !bytes.empty()) {
      const ssize_t n = ::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL);
      if (n <= 0) return false;
      bytes.remove_prefix(static_cast<std::size_t>(n));
    }
    return fd_ >= 0;
  }

  /// Reads one response (its head and a Content-Length body) within `timeout`.
  RawResponse read_response(std::chrono::milliseconds timeout) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    for (;;) {
      if (RawResponse r; parse(r)) return r;
      if (!receive_until(deadline)) return {};
    }
  }

  /// Waits up to `timeout` for the server to close the connection; true if it did.
  bool wait_closed(std::chrono::milliseconds timeout) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (receive_until(deadline)) pending_.clear();
    return closed_;
  }

 private:
  // Receives more bytes into pending_; false on close, error or deadline.
  bool receive_until(std::chrono::steady_clock::time_point deadline) {
    if (fd_ < 0 || closed_) return false;
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return false;
    pollfd p{fd_, POLLIN, 0};
    if (::poll(&p, 1, static_cast<int>(left.count())) <= 0) return false;
    char chunk[16384];
    const ssize_t n = ::recv(fd_, chunk, sizeof chunk, 0);
    if (n <= 0) {
      closed_ = true;
      return false;
    }
    pending_.append(chunk, static_cast<std::size_t>(n));
    return true;
  }

  // Takes one whole response off the front of pending_, if there is one.
  bool parse(RawResponse& out) {
    const std::size_t head_end = pending_.find("\r\n\r\n");
    if (head_end == std::string::npos) return false;
    const std::string head = pending_.substr(0, head_end);
    RawResponse r;
    const std::size_t first_space = head.find(' ');
    if (first_space == std::string::npos) return false;
    r.status = std::atoi(head.c_str() + first_space + 1);
    std::size_t line_start = head.find("\r\n");
    while (line_start != std::string::npos) {
      line_start += 2;
      const std::size_t line_end = head.find("\r\n", line_start);
      const std::string line = head.substr(line_start, line_end == std::string::npos ? std::string::npos : line_end - line_start);
      const std::size_t colon = line.find(':');
      if (colon != std::string::npos) {
        std::string name = line.substr(0, colon);
        std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
        std::string value = line.substr(colon + 1);
        value.erase(0, value.find_first_not_of(' '));
        r.headers[name] = value;
      }
      line_start = line_end;
    }
    const std::size_t length = r.has_header("content-length") ? std::stoul(r.header("content-length")) : 0;
    if (pending_.size() < head_end + 4 + length) return false;
    r.body = pending_.substr(head_end + 4, length);
    pending_.erase(0, head_end + 4 + length);
    out = std::move(r);
    return true;
  }

  int fd_ = -1;
  bool closed_ = false;
  std::string pending_;
};

/// Sends `request` on a new connection and reads one response within `timeout`.
inline RawResponse raw_exchange(int port, std::string_view request,
                                std::chrono::milliseconds timeout = std::chrono::milliseconds(1000)) {
  RawConnection connection(port);
  if (!connection.send(request)) return {};
  return connection.read_response(timeout);
}

}  // namespace ecocompute::server::testing
