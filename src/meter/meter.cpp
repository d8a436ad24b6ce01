// Window and Meter: the move-only window handle and the begin/end protocol shared by every meter.
#include "meter/meter.hpp"

#include <chrono>

#include "util/clock.hpp"
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

const char* to_string(EdgeMethod method) noexcept {
  return method == EdgeMethod::corrected ? "corrected" : "counter";
}

}  // namespace ecocompute::meter
