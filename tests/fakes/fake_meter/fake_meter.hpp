// FakeMeter: a Meter that reads a FakeDevice's energy counter at window edges, with scripted
// invalid windows, meter errors and throttling.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "fakes/fake_meter/fake_device.hpp"
#include "meter/meter.hpp"

namespace ecocompute::fakes {

/// What to do to a window whose label contains `label_contains`.
struct WindowScript {
  std::string label_contains;
  meter::WindowStatus status = meter::WindowStatus::valid;  ///< a non-valid status makes the window invalid
  std::string invalid_reason;
  std::optional<std::string> error;             ///< end() returns Error{measurement, *error}
  std::vector<std::string> throttle_reasons;    ///< reported at the window's end edge
  int times = 1;                                ///< how many matching windows it applies to (−1: all)
};

/// A Meter over a FakeDevice: energy = counter difference, duration = fake time difference, edge
/// uncertainty = average power × update period, temperature from the device. Not thread-safe.
///
///   FakeDevice device(Watts{100.0});
///   FakeMeter meter(device);
///   meter.invalidate("Q8_0 #1 decode", meter::WindowStatus::counter_reset, "counter went backwards");
class FakeMeter final : public meter::Meter {
 public:
  explicit FakeMeter(FakeDevice& device, bool measures_energy = true)
      : device_(device), measures_energy_(measures_energy) {}

  /// Adds a script; scripts are tried in the order added, the first match with uses left applies.
  void script(WindowScript window_script) { scripts_.push_back(std::move(window_script)); }
  /// Makes the next `times` windows whose label contains `label` come back with `status`.
  void invalidate(std::string label, meter::WindowStatus status, std::string reason, int times = 1) {
    WindowScript s;
    s.label_contains = std::move(label);
    s.status = status;
    s.invalid_reason = std::move(reason);
    s.times = times;
    script(std::move(s));
  }
  /// Makes end() of the next `times` windows whose label contains `label` return an error.
  void fail(std::string label, std::string message, int times = 1) {
    WindowScript s;
    s.label_contains = std::move(label);
    s.error = std::move(message);
    s.times = times;
    script(std::move(s));
  }
  /// Makes the next `times` windows whose label contains `label` report throttling at their end.
  void throttle(std::string label, std::vector<std::string> reasons, int times = 1) {
    WindowScript s;
    s.label_contains = std::move(label);
    s.throttle_reasons = std::move(reasons);
    s.times = times;
    script(std::move(s));
  }
  /// Sets the counter update period the measurements report (std::nullopt: not measured).
  void set_update_period(std::optional<Seconds> period) { update_period_ = period; }

  /// Returns every label begun, in order.
  [[nodiscard]] const std::vector<std::string>& labels() const { return labels_; }
  /// Returns every measurement end() returned, in order.
  [[nodiscard]] const std::vector<meter::Measurement>& measurements() const { return measurements_; }
  /// Returns how many windows are open.
  [[nodiscard]] std::size_t open_windows() const { return open_.size(); }

  [[nodiscard]] std::string source() const override { return measures_energy_ ? "fake-counter" : "none"; }
  [[nodiscard]] std::string device() const override { return "fake-gpu"; }
  [[nodiscard]] bool measures_energy() const override { return measures_energy_; }

 protected:
  meter::Window do_begin(std::string label) override {
    labels_.push_back(label);
    const std::uint64_t id = ++next_id_;
    open_[id] = Edge{device_.now(), device_.energy(), telemetry()};
    return make_window(std::move(label), id);
  }

  Result<meter::Measurement> do_end(meter::Window& window) override {
    const auto it = open_.find(window.id());
    if (it == open_.end()) return unexpected(ErrorCode::internal, "fake meter: unknown window " + window.label());
    const Edge begin = it->second;
    open_.erase(it);
    close(window);

    meter::Measurement m;
    m.label = window.label();
    m.source = source();
    m.device = device();
    m.duration = device_.now() - begin.time;
    m.at_begin = begin.telemetry;
    m.at_end = telemetry();
    m.counter_update_period = update_period_;
    if (measures_energy_) {
      m.status = meter::WindowStatus::valid;
      m.energy = device_.energy() - begin.energy;
      if (update_period_ && m.duration.value > 0.0) m.edge_uncertainty = *m.energy / m.duration * *update_period_;
    } else {
      m.status = meter::WindowStatus::unavailable;
      m.invalid_reason = "no energy source";
    }
    if (WindowScript* s = match(m.label)) {
      if (s->error) return unexpected(ErrorCode::measurement, *s->error);
      if (s->status != meter::WindowStatus::valid) {
        m.status = s->status;
        m.invalid_reason = s->invalid_reason;
        m.energy.reset();
        m.edge_uncertainty.reset();
      }
      m.at_end.throttle_reason_names = s->throttle_reasons;
    }
    measurements_.push_back(m);
    return m;
  }

 private:
  struct Edge {
    Seconds time;
    Joules energy;
    meter::Telemetry telemetry;
  };

  meter::Telemetry telemetry() const {
    meter::Telemetry t;
    t.temperature_c = device_.temperature_c();
    return t;
  }

  WindowScript* match(const std::string& label) {
    for (WindowScript& s : scripts_) {
      if (s.times == 0 || label.find(s.label_contains) == std::string::npos) continue;
      if (s.times > 0) --s.times;
      return &s;
    }
    return nullptr;
  }

  FakeDevice& device_;
  bool measures_energy_;
  std::optional<Seconds> update_period_;
  std::vector<WindowScript> scripts_;
  std::map<std::uint64_t, Edge> open_;
  std::uint64_t next_id_ = 0;
  std::vector<std::string> labels_;
  std::vector<meter::Measurement> measurements_;
};

}  // namespace ecocompute::fakes
