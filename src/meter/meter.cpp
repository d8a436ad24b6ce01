// Window and Meter: the move-only window handle and the begin/end protocol shared by every meter.
#include "meter/meter.hpp"

#include <chrono>

#include "meter/clock.hpp"
#include "util/log.hpp"

namespace ecocompute::meter {

Window::Window(Window&& other) noexcept : label_(std::move(other.label_)), id_(other.id_), open_(other.open_) {
  other.open_ = false;
}

Window& Window::operator=(Window&& other) noexcept {
  if (this != &other) {
    if (open_) log::warn("measurement window '{}' was replaced without end()", label_);
    label_ = std::move(other.label_);
    id_ = other.id_;
    open_ = other.open_;
    other.open_ = false;
  }
  return *this;
}

Window::~Window() {
  if (open_) log::warn("measurement window '{}' was dropped without end(); its energy is not recorded", label_);
}

Window Meter::begin(std::string label) { return do_begin(std::move(label)); }

Result<Measurement> Meter::end(Window window) {
  Result<Measurement> result = do_end(window);
  close(window);
  return result;
}

const char* to_string(WindowStatus status) noexcept {
  switch (status) {
    case WindowStatus::valid: return "valid";
    case WindowStatus::counter_reset: return "counter_reset";
    case WindowStatus::counter_stuck: return "counter_stuck";
    case WindowStatus::read_failed: return "read_failed";
    case WindowStatus::unavailable: return "unavailable";
  }
  return "unknown";
}

namespace {
class SystemClock final : public Clock {
 public:
  [[nodiscard]] Seconds steady() const override {
    return Seconds{std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count()};
  }
  [[nodiscard]] std::uint64_t wall_us() const override {
    return static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::microseconds>(
                                          std::chrono::system_clock::now().time_since_epoch())
                                          .count());
  }
};
}  // namespace

std::shared_ptr<Clock> system_clock() {
  static const std::shared_ptr<Clock> clock = std::make_shared<SystemClock>();
  return clock;
}

}  // namespace ecocompute::meter
