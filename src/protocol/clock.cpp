// SteadyClock: the real clock.
#include "protocol/clock.hpp"

#include <chrono>
#include <ctime>
#include <thread>

namespace ecocompute::protocol {

Seconds SteadyClock::now() {
  return Seconds{std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count()};
}

void SteadyClock::sleep_for(Seconds duration) {
  if (duration.value <= 0.0) return;
  std::this_thread::sleep_for(std::chrono::duration<double>(duration.value));
}

std::string SteadyClock::utc_now() {
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm utc{};
  gmtime_r(&now, &utc);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}

}  // namespace ecocompute::protocol
