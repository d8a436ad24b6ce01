// Test wiring for the runner: one FakeDevice drives the clock, the fake engines' work and the
// fake meter, so every duration and joule in a run is exact arithmetic.
#pragma once

#include <fmt/format.h>

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "fakes/fake_engine/fake_engine.hpp"
#include "fakes/fake_meter/fake_device.hpp"
#include "fakes/fake_meter/fake_meter.hpp"
#include "util/clock.hpp"
#include "protocol/runner.hpp"

namespace ecocompute::protocol::testing {

/// The design most runner tests use: F16 vs Q8_0 vs Q4_K_M, k = 3, a 10-token prompt ("abcdefghi"
/// + BOS), no per-trial warm-up, so window arithmetic stays short.
inline Design test_design() {
  Design design;
  design.model = "fake.gguf";
  design.candidates = {"Q8_0", "Q4_K_M"};
  design.trials = 3;
  design.warmups = 2;
  design.trial_warmup_iterations = 0;
  design.prompt.text = "abcdefghi";
  design.seed = 1;
  return design;
}

/// The runner's clock on fake time: sleeping idles the device.
class FakeDeviceClock final : public Clock {
 public:
  explicit FakeDeviceClock(fakes::FakeDevice& device) : device_(device) {}
  [[nodiscard]] Seconds now() const override { return device_.now(); }
  [[nodiscard]] std::uint64_t wall_us() const override {
    return static_cast<std::uint64_t>(device_.now().value * 1e6);
  }
  void sleep_for(Seconds duration) override { device_.idle(duration); }
  [[nodiscard]] std::string utc_now() const override { return fmt::format("fake+{:.3f}s", device_.now().value); }

 private:
  fakes::FakeDevice& device_;
};

/// A device, a meter, a clock and an engine script per precision, with a provider that builds
/// FakeEngines whose work runs on the device.
struct FakeRun {
  fakes::FakeDevice device{Watts{100.0}};
  fakes::FakeMeter meter{device};
  FakeDeviceClock clock{device};
  std::map<std::string, fakes::FakeEngineScript> scripts;
  std::map<std::string, std::string> load_failures;    ///< precision → error message
  std::map<std::string, std::function<void(fakes::FakeEngine&)>> setup;  ///< e.g. scripted failures
  int provider_calls = 0;
  std::vector<std::unique_ptr<fakes::FakeEngine>> loaded;  ///< the engines handed out, owned here

  /// Sets up the three test precisions (F16 10 ms/token at 400 W, Q8_0 8 ms at 350 W, Q4_K_M 5 ms
  /// at 300 W) unless `with_test_precisions` is false.
  explicit FakeRun(bool with_test_precisions = true) {
    meter.set_update_period(Seconds{0.1});
    if (with_test_precisions) {
      add("F16", 0.010, 400.0);
      add("Q8_0", 0.008, 350.0);
      add("Q4_K_M", 0.005, 300.0);
    }
  }

  /// Adds a precision whose decode takes `decode_s` per token at `decode_w`; prefill takes 1 ms per
  /// token at 300 W.
  void add(const std::string& precision, double decode_s, double decode_w) {
    fakes::FakeEngineScript script;
    script.model.gguf_type = precision;
    script.decode_time_per_token = Seconds{decode_s};
    script.decode_power = Watts{decode_w};
    script.prefill_time_per_token = Seconds{0.001};
    script.prefill_power = Watts{300.0};
    scripts[precision] = script;
  }

  /// Validates `design` and runs it on this fake; `configure` (cancel flag, progress) is applied to
  /// the runner first. An invalid design is returned as validate()'s error, nothing loaded.
  Result<RunResult> run(const Design& design = test_design(), const std::function<void(Runner&)>& configure = {}) {
    auto validated = validate(design);
    if (!validated) return validated.error();
    Runner runner(std::move(*validated), meter, provider(), clock);
    if (configure) configure(runner);
    return runner.run();
  }

  EngineProvider provider() {
    return [this](const Condition& condition) -> Result<std::reference_wrapper<engine::Engine>> {
      ++provider_calls;
      if (auto failure = load_failures.find(condition.precision); failure != load_failures.end()) {
        return unexpected(ErrorCode::engine, failure->second);
      }
      auto engine = std::make_unique<fakes::FakeEngine>(
          scripts.at(condition.precision), [this](Seconds d, Watts p) { device.run(d, p); });
      if (auto s = setup.find(condition.precision); s != setup.end()) s->second(*engine);
      loaded.push_back(std::move(engine));
      return std::ref<engine::Engine>(*loaded.back());
    };
  }
};

}  // namespace ecocompute::protocol::testing
