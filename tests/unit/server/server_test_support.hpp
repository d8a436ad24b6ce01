// Shared pieces of the server tests: the published evidence, the fixture report, request builders.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "data/evidence.hpp"
#include "server/http_message.hpp"
#include "util/clock.hpp"
#include "util/file_io.hpp"
#include "util/json.hpp"

namespace ecocompute::server::testing {

/// A clock the test moves by hand (the rate limiter's time).
class ManualClock final : public Clock {
 public:
  Seconds at{0.0};
  [[nodiscard]] Seconds now() const override { return at; }
  [[nodiscard]] std::uint64_t wall_us() const override { return static_cast<std::uint64_t>(at.value * 1e6); }
  void sleep_for(Seconds duration) override { at += duration; }
};

/// Returns the evidence of the shipped published data with the published curve parameters (loaded once).
inline const data::Evidence& published_evidence() {
  static const data::Evidence evidence = [] {
    data::EvidenceOptions options;
    options.curve_source = data::CurveSource::published;
    auto loaded = data::load_published_evidence(options);
    if (!loaded) throw std::runtime_error(loaded.error().describe());
    return std::move(loaded).value();
  }();
  return evidence;
}

/// Returns the text of a fixture under tests/unit/server/fixtures.
inline std::string fixture(const std::string& name) {
  auto text = read_file(std::filesystem::path(ECOCOMPUTE_SOURCE_DIR) / "tests/unit/server/fixtures" / name);
  if (!text) throw std::runtime_error(text.error().describe());
  return *text;
}

/// Returns the fixture report (published RTX 4090 Qwen2.5-3B NF4 row) as JSON, to modify.
inline OrderedJson fixture_report() {
  return OrderedJson::parse(fixture("rtx4090_qwen2.5-3b_nf4.energy.json"));
}

inline HttpRequest get(std::string path, std::map<std::string, std::string> query = {}) {
  HttpRequest r;
  r.method = "GET";
  r.path = std::move(path);
  r.query = std::move(query);
  return r;
}

inline HttpRequest post(std::string path, std::string body) {
  HttpRequest r;
  r.method = "POST";
  r.path = std::move(path);
  r.body = std::move(body);
  r.headers["content-type"] = "application/json";
  return r;
}

/// Returns a fresh temporary folder for one test (removed by the caller or left for inspection).
inline std::filesystem::path temp_dir(const std::string& name) {
  const auto dir = std::filesystem::temp_directory_path() /
                   ("ecocompute-server-" + name + "-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

}  // namespace ecocompute::server::testing
