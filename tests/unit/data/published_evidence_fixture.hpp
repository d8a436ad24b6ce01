// A fixture base for tests that ask the decision layer questions about the shipped published data,
// once from the store's curves and once from the published curve parameters. Loading the evidence is
// the slow part, so it is done once per test suite, not once per test.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "data/evidence.hpp"

namespace ecocompute::data::testing {

class PublishedEvidenceTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    // The shipped data as the source tree has it (without this, the build tree's copy).
    setenv("ECOCOMPUTE_DATA_DIR", (std::string(ECOCOMPUTE_SOURCE_DIR) + "/data").c_str(), 1);
    auto store = load_published_evidence();
    ASSERT_TRUE(store) << store.error().describe();
    store_ = new Evidence(std::move(*store));
    EvidenceOptions published;
    published.curve_source = CurveSource::published;
    auto p = load_published_evidence(published);
    ASSERT_TRUE(p) << p.error().describe();
    published_ = new Evidence(std::move(*p));
  }
  static void TearDownTestSuite() {
    // Every suite deriving from this one shares these two pointers: leave none dangling for the next.
    delete store_;
    store_ = nullptr;
    delete published_;
    published_ = nullptr;
  }

  static inline Evidence* store_ = nullptr;      ///< CurveSource::store (the default)
  static inline Evidence* published_ = nullptr;  ///< CurveSource::published
};

}  // namespace ecocompute::data::testing
