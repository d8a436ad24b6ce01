// Test support: the evidence of the shipped published data and our shipped sessions (what estimate,
// the server and the MCP tools answer from without a store), with the decision model fitted to it,
// loaded once per test process. Under ctest, $ECOCOMPUTE_CACHE_DIR names a folder the run's
// `shipped_fit` fixture emptied and then filled with one fit of this evidence (tests/CMakeLists.txt):
// every test process reads that fit instead of fitting again (ctest runs each test in a process of its
// own, and one fit took ~4 s, ~80 s under AddressSanitizer). Run by hand without it, a binary fits its own.
#pragma once

#include <cstdlib>
#include <stdexcept>
#include <utility>

#include "data/dataset_store.hpp"
#include "decide/evidence.hpp"

namespace ecocompute::testing {

inline const decide::Evidence& published_evidence() {
  static const decide::Evidence evidence = [] {
    if (const char* dir = std::getenv("ECOCOMPUTE_CACHE_DIR"); dir != nullptr && *dir != '\0') {
      auto cached = decide::load_published_evidence();
      if (!cached) throw std::runtime_error(cached.error().describe());
      return std::move(*cached);
    }
    auto store = data::open_published_store();
    if (!store) throw std::runtime_error(store.error().describe());
    auto rows = store->rows(data::RowQuery{});
    auto sessions = store->sessions();
    if (!rows || !sessions) throw std::runtime_error("the shipped evidence does not load");
    decide::Evidence e = decide::evidence_from(std::move(*rows), std::move(*sessions));
    e.calibration = decide::calibration_for(e.model->digest);  // as load_published_evidence() does
    return e;
  }();
  return evidence;
}

}  // namespace ecocompute::testing
