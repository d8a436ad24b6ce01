// Test support: the evidence of the shipped published data with the published curve parameters,
// loaded once per test binary (the server and MCP suites answer from it).
#pragma once

#include <stdexcept>
#include <utility>

#include "data/evidence.hpp"

namespace ecocompute::testing {

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

}  // namespace ecocompute::testing
