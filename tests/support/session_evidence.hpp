// Test support: the evidence of some of our committed session folders (data/sessions/…), imported
// into an in-memory store as a user would import them. A folder that fails to load throws, as
// published_evidence() does, so a test never reads half an evidence.
#pragma once

#include <filesystem>
#include <initializer_list>
#include <stdexcept>
#include <string>
#include <utility>

#include "data/dataset_import.hpp"
#include "data/dataset_store.hpp"
#include "decide/evidence.hpp"

namespace ecocompute::testing {

inline decide::Evidence session_evidence(std::initializer_list<const char*> folders) {
  namespace fs = std::filesystem;
  auto store = data::DatasetStore::open_in_memory();
  if (!store) throw std::runtime_error(store.error().describe());
  data::RunSummaries runs;
  for (const char* folder : folders) {
    const fs::path dir = fs::path(ECOCOMPUTE_SOURCE_DIR) / "data/sessions" / folder;
    for (const fs::directory_entry& entry : fs::directory_iterator(dir)) {
      const std::string name = entry.path().filename().string();
      if (!name.starts_with("energy-") || entry.path().extension() != ".json") continue;
      auto batch = data::read_report_batch(entry.path(), runs);
      if (!batch) throw std::runtime_error(batch.error().describe());
      if (auto imported = store->import(*batch); !imported) {
        throw std::runtime_error(entry.path().string() + ": " + imported.error().describe());
      }
    }
  }
  auto rows = store->rows(data::RowQuery{});
  auto sessions = store->sessions();
  if (!rows || !sessions) throw std::runtime_error("the sessions' evidence does not load");
  return decide::evidence_from(std::move(*rows), std::move(*sessions));
}

}  // namespace ecocompute::testing
