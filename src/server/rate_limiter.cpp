// Token buckets per client.
#include "server/rate_limiter.hpp"

#include <algorithm>
#include <cmath>

namespace ecocompute::server {

RateLimiter::RateLimiter(int requests_per_minute, std::shared_ptr<const Clock> clock)
    : per_minute_(std::max(0, requests_per_minute)), clock_(std::move(clock)) {}

int RateLimiter::acquire(const std::string& client) {
  if (per_minute_ == 0) return 0;
  const Seconds now = clock_->now();
  const double capacity = per_minute_;
  const double per_second = per_minute_ / 60.0;
  std::lock_guard lock(mutex_);
  // Forget idle clients once the map grows, so a scan of many addresses cannot exhaust memory;
  // a bucket idle for a minute is full again anyway.
  if (buckets_.size() > 10000) {
    std::erase_if(buckets_, [&](const auto& kv) { return (now - kv.second.updated).value > 60.0; });
  }
  auto [it, inserted] = buckets_.try_emplace(client, Bucket{capacity, now});
  Bucket& bucket = it->second;
  if (!inserted) {
    const double elapsed_s = (now - bucket.updated).value;
    bucket.tokens = std::min(capacity, bucket.tokens + elapsed_s * per_second);
    bucket.updated = now;
  }
  if (bucket.tokens >= 1.0) {
    bucket.tokens -= 1.0;
    return 0;
  }
  // Seconds until one whole token has accumulated, rounded up.
  return std::max(1, static_cast<int>(std::ceil((1.0 - bucket.tokens) / per_second)));
}

}  // namespace ecocompute::server
