// RateLimiter: a token bucket per client, for the API's 429 + Retry-After.
#pragma once

#include <chrono>
#include <functional>
#include <mutex>
#include <string>
#include <unordered_map>

namespace ecocompute::server {

/// Limits each client to `requests_per_minute` with a burst of the same size (a token bucket that
/// refills continuously). Thread-safe. A limit of 0 disables it.
class RateLimiter {
 public:
  using Clock = std::function<std::chrono::steady_clock::time_point()>;

  /// Constructs a limiter; `clock` is the seam tests replace (default: steady_clock::now).
  explicit RateLimiter(int requests_per_minute, Clock clock = {});

  /// Takes one token for `client`. Returns 0 when the request may proceed, otherwise the whole
  /// seconds (≥ 1) until the next token, for the Retry-After header.
  [[nodiscard]] int acquire(const std::string& client);

  [[nodiscard]] int requests_per_minute() const noexcept { return per_minute_; }

 private:
  struct Bucket {
    double tokens = 0;
    std::chrono::steady_clock::time_point updated;
  };
  int per_minute_;
  Clock clock_;
  std::mutex mutex_;
  std::unordered_map<std::string, Bucket> buckets_;
};

}  // namespace ecocompute::server
