// Test support: writes a fake-NVML script, loads the fake through the real dlopen path, and gives
// the meter a clock that reads the fake's virtual time.
#pragma once

#include <dlfcn.h>
#include <gtest/gtest.h>
#include <stdlib.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>

#include "util/clock.hpp"
#include "meter/nvml_library.hpp"

namespace ecocompute::meter::testing {

/// A Clock reading the fake's virtual clock through its exported control function.
class FakeClock final : public Clock {
 public:
  explicit FakeClock(void* handle)
      : time_us_(reinterpret_cast<std::uint64_t (*)()>(dlsym(handle, "fake_nvml_time_us"))),
        advance_us_(reinterpret_cast<void (*)(std::uint64_t)>(dlsym(handle, "fake_nvml_advance_us"))) {}
  [[nodiscard]] Seconds now() const override { return Seconds{static_cast<double>(time_us_()) / 1e6}; }
  [[nodiscard]] std::uint64_t wall_us() const override { return time_us_(); }
  void sleep_for(Seconds duration) override {
    if (duration.value > 0.0) advance_us_(static_cast<std::uint64_t>(duration.value * 1e6));
  }

 private:
  std::uint64_t (*time_us_)();
  void (*advance_us_)(std::uint64_t);
};

/// Base fixture: load(script) opens NVML on the fake with that script.
class FakeNvmlTest : public ::testing::Test {
 protected:
  void TearDown() override {
    nvml_.reset();
    unsetenv("FAKE_NVML_SCRIPT");
    if (!script_path_.empty()) std::filesystem::remove(script_path_);
  }

  /// Writes `json` as the script and opens the fake; fails the test if it does not open.
  /// The fake, like NVML, reads its script at the first of nested inits: every handle of an earlier
  /// script must be closed first (the fixture's here; a test's own meters by the test).
  void load(const std::string& json) {
    nvml_.reset();
    script_path_ = std::filesystem::temp_directory_path() /
                   ("fake_nvml_" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()) + ".json");
    std::ofstream(script_path_) << json;
    setenv("FAKE_NVML_SCRIPT", script_path_.c_str(), 1);
    auto library = NvmlLibrary::open(FAKE_NVML_PATH);
    ASSERT_TRUE(library.has_value()) << library.error().describe();
    nvml_ = *library;
    set_time_ = reinterpret_cast<void (*)(std::uint64_t)>(dlsym(nvml_->handle(), "fake_nvml_set_time_us"));
    ASSERT_NE(set_time_, nullptr);
    clock_ = std::make_shared<FakeClock>(nvml_->handle());
  }

  /// Sets the fake's clock to `seconds` (whole microseconds).
  void at(double seconds) { set_time_(static_cast<std::uint64_t>(seconds * 1e6 + 0.5)); }

  std::shared_ptr<NvmlLibrary> nvml_;
  std::shared_ptr<Clock> clock_;
  void (*set_time_)(std::uint64_t) = nullptr;
  std::filesystem::path script_path_;
};

inline constexpr const char* h200_uuid = "GPU-2f6d5b7e-1c3a-4e8b-9d0f-a1b2c3d4e5f6";

}  // namespace ecocompute::meter::testing
