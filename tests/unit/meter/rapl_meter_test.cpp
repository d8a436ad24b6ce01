// RaplMeter on a fake powercap folder: package zones summed, sub-zones ignored, wrap handled.
#include "meter/rapl_meter.hpp"

#include <gtest/gtest.h>

#include <filesystem>

#include "support/fake_powercap.hpp"

namespace ecocompute::meter {
namespace {

namespace fs = std::filesystem;

class RaplMeterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    powercap_.zone("intel-rapl:0", "package-0", 1000);
    powercap_.zone("intel-rapl:1", "package-1", 5000);
    powercap_.zone("intel-rapl:0:0", "core", 7);  // a sub-zone: part of package 0, not added again
  }
  void set(const std::string& dir, std::uint64_t energy) { powercap_.set(dir, energy); }
  ecocompute::testing::FakePowercap powercap_ = ecocompute::testing::FakePowercap::in_temp("rapl");
  const fs::path& root_ = powercap_.root();
};

TEST_F(RaplMeterTest, SumsPackagesAndHandlesWrap) {
  auto meter = RaplMeter::open(root_);
  ASSERT_TRUE(meter.has_value()) << meter.error().describe();
  EXPECT_EQ((*meter)->source(), "rapl");
  EXPECT_EQ((*meter)->device(), "intel-rapl:0 (package-0) + intel-rapl:1 (package-1)");
  Window w = (*meter)->begin("w");
  set("intel-rapl:0", 500);        // wrapped: 500 + 262143328850 − 1000 = 262143328350 µJ
  set("intel-rapl:1", 2'005'000);  // 2005000 − 5000 = 2000000 µJ
  set("intel-rapl:0:0", 999999);
  auto m = (*meter)->end(std::move(w));
  ASSERT_TRUE(m.has_value());
  ASSERT_EQ(m->status, WindowStatus::valid);
  // (262143328350 + 2000000) µJ = 262145.32835 J
  EXPECT_NEAR(m->energy->value, 262145.32835, 1e-6);
}

TEST_F(RaplMeterTest, NoZonesIsUnavailableNamingThePath) {
  auto meter = RaplMeter::open(root_ / "empty");
  ASSERT_FALSE(meter.has_value());
  EXPECT_EQ(meter.error().code(), ErrorCode::unavailable);
  EXPECT_NE(meter.error().message().find((root_ / "empty").string()), std::string::npos);
}

TEST(WrappedDeltaTest, Arithmetic) {
  EXPECT_EQ(wrapped_delta(100, 250, 1000), 150u);
  EXPECT_EQ(wrapped_delta(900, 100, 1000), 200u);  // 100 + 1000 − 900
}

}  // namespace
}  // namespace ecocompute::meter
