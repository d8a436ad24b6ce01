// RateLimiter: a token bucket per client, for the API's 429 + Retry-After.
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

#include "util/clock.hpp"

namespace ecocompute::server {

/// Limits each client to `requests_per_minute` with a burst of the same size (a token bucket that
/// refills continuously). Thread-safe. A limit of 0 disables it.
class RateLimiter {
 public:
  /// Constructs a limiter reading time from `clock` (tests pass a fake one).
  explicit RateLimiter(int requests_per_minute, std::shared_ptr<const Clock> clock = system_clock());

  /// Takes one token for `client`. Returns 0 when the request may proceed, otherwise the whole
  /// seconds (≥ 1) until the next token, for the Retry-After header.
  [[nodiscard]] int acquire(const std::string& client);

  [[nodiscard]] int requests_per_minute() const noexcept { return per_minute_; }

 private:
  struct Bucket {
    double tokens = 0;
    Seconds updated;
  };
  int per_minute_;
  std::shared_ptr<const Clock> clock_;
  std::mutex mutex_;
  std::unordered_map<std::string, Bucket> buckets_;
};

}  // namespace ecocompute::server
