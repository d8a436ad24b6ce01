// Test support: the evidence of some of our committed session folders (data/sessions/…), imported
// into an in-memory store as a user would import them.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <initializer_list>
#include <string>
#include <utility>

#include "data/dataset_import.hpp"
#include "data/dataset_store.hpp"
#include "data/evidence.hpp"

namespace ecocompute::testing {

inline data::Evidence session_evidence(std::initializer_list<const char*> folders) {
  namespace fs = std::filesystem;
  auto store = data::DatasetStore::open_in_memory();
  EXPECT_TRUE(store) << store.error().describe();
  data::RunSummaries runs;
  for (const char* folder : folders) {
    const fs::path dir = fs::path(ECOCOMPUTE_SOURCE_DIR) / "data/sessions" / folder;
    for (const fs::directory_entry& entry : fs::directory_iterator(dir)) {
      const std::string name = entry.path().filename().string();
      if (!name.starts_with("energy-") || entry.path().extension() != ".json") continue;
      auto batch = data::read_report_batch(entry.path(), runs);
      EXPECT_TRUE(batch) << batch.error().describe();
      EXPECT_TRUE(store->import(*batch)) << entry.path();
    }
  }
  auto evidence = data::load_evidence(*store);
  EXPECT_TRUE(evidence) << evidence.error().describe();
  return std::move(*evidence);
}

}  // namespace ecocompute::testing
