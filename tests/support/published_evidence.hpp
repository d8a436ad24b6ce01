// Test support: the evidence of the shipped published data and our shipped sessions (what estimate,
// the server and the MCP tools answer from without a store), with the decision model fitted to it,
// loaded once per test binary. No cache file is read or written: each binary fits its own.
#pragma once

#include <stdexcept>
#include <utility>

#include "data/dataset_store.hpp"
#include "decide/evidence.hpp"

namespace ecocompute::testing {

inline const decide::Evidence& published_evidence() {
  static const decide::Evidence evidence = [] {
    auto store = data::open_published_store();
    if (!store) throw std::runtime_error(store.error().describe());
    auto rows = store->rows(data::RowQuery{});
    auto sessions = store->sessions();
    if (!rows || !sessions) throw std::runtime_error("the shipped evidence does not load");
    return decide::evidence_from(std::move(*rows), std::move(*sessions));
  }();
  return evidence;
}

}  // namespace ecocompute::testing
