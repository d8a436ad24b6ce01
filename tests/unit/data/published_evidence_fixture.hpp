// A fixture base for tests that ask the decision layer questions about the shipped published data,
// once from the store's curves and once from the published curve parameters. Loading the evidence is
// the slow part, so it is done once per test binary, not once per test.
//
// The loading happens in SetUp, not in SetUpTestSuite: gtest reports a suite set-up that fails as every
// test of the suite skipped, and ctest counts a skipped test as passed, so shipped data that no longer
// loads would have left CI green. A failure in SetUp fails each test.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <stdexcept>
#include <string>
#include <utility>

#include "data/evidence.hpp"

namespace ecocompute::data::testing {

class PublishedEvidenceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const Loaded& loaded = shipped();
    store_ = &loaded.store;
    published_ = &loaded.published;
  }

  static inline const Evidence* store_ = nullptr;      ///< CurveSource::store (the default)
  static inline const Evidence* published_ = nullptr;  ///< CurveSource::published

 private:
  struct Loaded {
    Evidence store;
    Evidence published;
  };
  static Evidence load(EvidenceOptions options) {
    auto evidence = load_published_evidence(options);
    if (!evidence) throw std::runtime_error(evidence.error().describe());
    return std::move(*evidence);
  }
  // Throws (failing the test) when the shipped data does not load; tried again by the next test.
  static const Loaded& shipped() {
    static const Loaded loaded = [] {
      // The shipped data as the source tree has it (without this, the build tree's copy).
      setenv("ECOCOMPUTE_DATA_DIR", (std::string(ECOCOMPUTE_SOURCE_DIR) + "/data").c_str(), 1);
      EvidenceOptions published;
      published.curve_source = CurveSource::published;
      return Loaded{load(EvidenceOptions{}), load(published)};
    }();
    return loaded;
  }
};

}  // namespace ecocompute::data::testing
