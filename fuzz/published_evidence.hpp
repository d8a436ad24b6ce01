// The shipped evidence for the fuzz targets that answer over it. It is loaded from
// LLVMFuzzerInitialize: the decision model's fit takes longer under the sanitizers than libFuzzer's
// per-input timeout, which would otherwise charge it to the first input as a hang.
#pragma once

#include <optional>

#include "decide/evidence.hpp"
#include "util/log.hpp"

namespace fuzz_support {

inline std::optional<ecocompute::decide::Evidence>& published_evidence_slot() {
  static std::optional<ecocompute::decide::Evidence> slot;
  return slot;
}

inline void load_published_evidence_once() {
  auto& slot = published_evidence_slot();
  if (slot) return;
  ecocompute::log::set_level(ecocompute::log::Level::quiet);
  auto loaded = ecocompute::decide::load_published_evidence();
  if (!loaded) __builtin_trap();  // the fuzzer needs the shipped data: ECOCOMPUTE_DATA_DIR
  slot.emplace(std::move(loaded).value());
}

inline const ecocompute::decide::Evidence& published_evidence() {
  load_published_evidence_once();  // a run without LLVMFuzzerInitialize (a reproducer build)
  return *published_evidence_slot();
}

}  // namespace fuzz_support
