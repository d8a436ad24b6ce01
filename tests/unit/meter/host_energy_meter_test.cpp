// HostEnergyMeter: the CPU packages' and DRAM's RAPL counters read at the edges of a GPU meter's window.
#include "meter/host_energy_meter.hpp"

#include <gtest/gtest.h>

#include <filesystem>

#include "fakes/fake_meter/fake_meter.hpp"
#include "support/fake_powercap.hpp"

namespace ecocompute::meter {
namespace {

namespace fs = std::filesystem;

class HostEnergyMeterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    powercap_.zone("intel-rapl:0", "package-0", 1'000'000);
    powercap_.zone("intel-rapl:1", "package-1", 3'000'000);
    powercap_.zone("intel-rapl:0/intel-rapl:0:0", "dram", 262'143'000'000);  // inside its package, as a copied tree may hold it
    powercap_.zone("intel-rapl:0:1", "core", 5);                              // a sub-zone that is not DRAM: left out
  }
  void set(const std::string& dir, std::uint64_t energy) { powercap_.set(dir, energy); }
  ecocompute::testing::FakePowercap powercap_ = ecocompute::testing::FakePowercap::in_temp("host");
  const fs::path& root_ = powercap_.root();
};

TEST_F(HostEnergyMeterTest, TheHostsCpuAndDramEnergyStandBesideTheGpusNeverInIt) {
  fakes::FakeDevice device(Watts{300.0});
  std::unique_ptr<Meter> meter = HostEnergyMeter::wrap(std::make_unique<fakes::FakeMeter>(device), root_);
  Window window = meter->begin("F16 #1 decode");
  device.run(Seconds{2.0}, Watts{300.0});
  set("intel-rapl:0", 41'000'000);                         // +40 J
  set("intel-rapl:1", 23'000'000);                         // +20 J
  set("intel-rapl:0/intel-rapl:0:0", 6'000'000);           // wrapped: 6e6 + 262143328850 − 262143000000 µJ = 6.32885 J
  set("intel-rapl:0:1", 999'999'999);
  auto m = meter->end(std::move(window));
  ASSERT_TRUE(m.has_value()) << m.error().describe();
  ASSERT_TRUE(m->energy.has_value());
  EXPECT_DOUBLE_EQ(m->energy->value, 600.0) << "the GPU's energy is the inner meter's";
  ASSERT_TRUE(m->cpu_energy.has_value());
  EXPECT_DOUBLE_EQ(m->cpu_energy->value, 60.0);
  ASSERT_TRUE(m->dram_energy.has_value());
  EXPECT_NEAR(m->dram_energy->value, 6.32885, 1e-9);
  EXPECT_EQ(meter->source(), "fake-counter") << "the source stays the GPU meter's";
}

TEST_F(HostEnergyMeterTest, WithoutReadablePowercapTheGpuMeterIsReturnedAsItIs) {
  fakes::FakeDevice device(Watts{300.0});
  auto inner = std::make_unique<fakes::FakeMeter>(device);
  Meter* raw = inner.get();
  std::unique_ptr<Meter> meter = HostEnergyMeter::wrap(std::move(inner), root_ / "missing");
  EXPECT_EQ(meter.get(), raw);
}

TEST_F(HostEnergyMeterTest, WithoutADramZoneOnlyTheCpuIsRead) {
  fs::remove_all(root_ / "intel-rapl:0" / "intel-rapl:0:0");
  fakes::FakeDevice device(Watts{300.0});
  std::unique_ptr<Meter> meter = HostEnergyMeter::wrap(std::make_unique<fakes::FakeMeter>(device), root_);
  Window window = meter->begin("w");
  set("intel-rapl:1", 4'000'000);
  auto m = meter->end(std::move(window));
  ASSERT_TRUE(m.has_value());
  ASSERT_TRUE(m->cpu_energy.has_value());
  EXPECT_DOUBLE_EQ(m->cpu_energy->value, 1.0);
  EXPECT_FALSE(m->dram_energy.has_value());
}

}  // namespace
}  // namespace ecocompute::meter
