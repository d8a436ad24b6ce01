// The process clock and the one ISO 8601 formatter.
#include "util/clock.hpp"

#include <chrono>
#include <ctime>
#include <thread>

namespace ecocompute {
namespace {

class SystemClock final : public Clock {
 public:
  [[nodiscard]] Seconds now() const override {
    return Seconds{std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count()};
  }
  [[nodiscard]] std::uint64_t wall_us() const override {
    return static_cast<std::uint64_t>(
        std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::system_clock::now().time_since_epoch())
            .count());
  }
  void sleep_for(Seconds duration) override {
    if (duration.value <= 0.0) return;
    std::this_thread::sleep_for(std::chrono::duration<double>(duration.value));
  }
};

}  // namespace

std::string Clock::format_utc(std::uint64_t wall_us) {
  const auto seconds = static_cast<std::time_t>(wall_us / 1000000);
  std::tm utc{};
  ::gmtime_r(&seconds, &utc);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}

std::shared_ptr<Clock> system_clock() {
  static const std::shared_ptr<Clock> clock = std::make_shared<SystemClock>();
  return clock;
}

std::string utc_now() { return system_clock()->utc_now(); }

}  // namespace ecocompute
