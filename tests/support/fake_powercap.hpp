// A powercap folder written by a test (what /sys/class/powercap shows): RAPL zones with a name, a
// wrap range and an energy counter the test sets. Point RaplMeter, HostEnergyMeter or
// ECOCOMPUTE_POWERCAP_ROOT at root().
#pragma once

#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>

namespace ecocompute::testing {

class FakePowercap {
 public:
  explicit FakePowercap(std::filesystem::path root) : root_(std::move(root)) { std::filesystem::remove_all(root_); }
  /// A folder under the system's temporary folder, named for `tag` and this process.
  static FakePowercap in_temp(const std::string& tag) {
    return FakePowercap(std::filesystem::temp_directory_path() / ("fake_powercap_" + tag + "_" + std::to_string(::getpid())));
  }
  ~FakePowercap() { std::filesystem::remove_all(root_); }
  FakePowercap(const FakePowercap&) = delete;
  FakePowercap& operator=(const FakePowercap&) = delete;
  FakePowercap(FakePowercap&& other) noexcept : root_(std::move(other.root_)) { other.root_.clear(); }
  FakePowercap& operator=(FakePowercap&&) = delete;

  /// Writes zone `dir` (e.g. "intel-rapl:0", "intel-rapl:0/intel-rapl:0:0") with its name, range and counter.
  void zone(const std::string& dir, const std::string& name, std::uint64_t energy_uj,
            std::uint64_t range_uj = 262'143'328'850ULL) const {
    std::filesystem::create_directories(root_ / dir);
    std::ofstream(root_ / dir / "name") << name << "\n";
    std::ofstream(root_ / dir / "max_energy_range_uj") << range_uj << "\n";
    set(dir, energy_uj);
  }
  /// Sets a zone's counter; written beside and renamed into place, so a concurrent reader sees a whole number.
  void set(const std::string& dir, std::uint64_t energy_uj) const {
    const std::filesystem::path file = root_ / dir / "energy_uj";
    std::ofstream(file.string() + ".tmp") << energy_uj << "\n";
    std::filesystem::rename(file.string() + ".tmp", file);
  }
  [[nodiscard]] const std::filesystem::path& root() const noexcept { return root_; }

 private:
  std::filesystem::path root_;
};

}  // namespace ecocompute::testing
