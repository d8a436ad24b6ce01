#include "protocol/server_occupancy.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <utility>

namespace ecocompute::protocol {

OccupancySampler::OccupancySampler(const engine::EndpointClient& client, const Clock& clock, Seconds interval)
    : client_(client), clock_(clock), interval_(interval) {
  if (read_once()) thread_ = std::thread([this] { run(); });
}

OccupancySampler::~OccupancySampler() { (void)stop(); }

bool OccupancySampler::read_once() {
  const Seconds asked = clock_.now();
  Result<double> running = client_.running_requests();
  const Seconds at{(asked.value + clock_.now().value) / 2.0};
  std::lock_guard lock(mutex_);
  if (!running) {
    trace_.unavailable = running.error().message();
    return false;
  }
  trace_.samples.push_back(OccupancySample{at, *running});
  return true;
}

void OccupancySampler::run() {
  const auto period = std::chrono::duration<double>(interval_.value);
  while (true) {
    {
      std::unique_lock lock(mutex_);
      if (stop_changed_.wait_for(lock, period, [this] { return stopping_; })) return;
    }
    if (!read_once()) return;
  }
}

OccupancyTrace OccupancySampler::stop() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  stop_changed_.notify_all();
  if (thread_.joinable()) thread_.join();
  std::lock_guard lock(mutex_);
  return std::exchange(trace_, OccupancyTrace{});
}

void OccupancyShares::add(std::span<const OccupancySample> samples, Seconds begin, Seconds end) {
  for (std::size_t i = 0; i < samples.size(); ++i) {
    if (samples[i].at.value >= begin.value && samples[i].at.value <= end.value) ++readings_inside;
    const double from = std::max(samples[i].at.value, begin.value);
    const double to = std::min(i + 1 < samples.size() ? samples[i + 1].at.value : end.value, end.value);
    if (!(to > from)) continue;
    const int occupancy = static_cast<int>(std::lround(samples[i].running));
    seconds_at[occupancy] += to - from;
    covered_s += to - from;
    weighted_sum += samples[i].running * (to - from);
  }
}

std::optional<double> OccupancyShares::mean() const {
  if (!(covered_s > 0.0)) return std::nullopt;
  return weighted_sum / covered_s;
}

std::map<int, double> OccupancyShares::shares() const {
  std::map<int, double> out;
  if (!(covered_s > 0.0)) return out;
  for (const auto& [occupancy, seconds] : seconds_at) out[occupancy] = seconds / covered_s;
  return out;
}

}  // namespace ecocompute::protocol
