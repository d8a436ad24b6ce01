// Shared pieces of the server tests: the published evidence, the fixture report, request builders,
// and a fixture that calls the API directly.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <memory>
#include <string>

#include "decide/evidence.hpp"
#include "support/published_evidence.hpp"
#include "server/api.hpp"
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

using ecocompute::testing::published_evidence;

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

/// An Api over the published evidence, a SQLite replication store and a web folder holding an
/// index.html, all in a fresh temporary folder per test; no rate limit, so a test may call it freely.
class ApiFixture : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = temp_dir(::testing::UnitTest::GetInstance()->current_test_info()->name());
    auto store = open_sqlite_replication_store((dir_ / "replications.sqlite").string());
    ASSERT_TRUE(store) << store.error().describe();
    store_ = std::move(store).value();
    std::filesystem::create_directories(dir_ / "web");
    ASSERT_TRUE(write_file_atomic(dir_ / "web/index.html", "<!doctype html><title>t</title>"));
    add_files();
    // A failed assertion in add_files() returns from it only: stop here as an ASSERT in SetUp would.
    if (HasFatalFailure()) return;
    auto files = StaticFiles::load(dir_ / "web");
    ASSERT_TRUE(files) << files.error().describe();
    ApiOptions options;
    options.rate_limit_per_minute = 0;
    api_ = std::make_unique<Api>(published_evidence(), *store_, std::move(files).value(), options);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  /// Writes files into dir_ before the web folder is loaded; by default none beyond web/index.html.
  virtual void add_files() {}

  /// Returns the API's answer to `request` as JSON, checking its status; the response stays in last_.
  Json call(const HttpRequest& request, int expected_status) {
    last_ = api_->handle(request);
    EXPECT_EQ(last_.status, expected_status) << request.method << " " << request.path << " → " << last_.body;
    Json body = Json::parse(last_.body, nullptr, false);
    EXPECT_FALSE(body.is_discarded()) << last_.body;
    return body;
  }

  std::filesystem::path dir_;
  std::unique_ptr<ReplicationStore> store_;
  std::unique_ptr<Api> api_;
  HttpResponse last_;
};

}  // namespace ecocompute::server::testing
