// Test support: a corpus window policy built from its four settings.
#pragma once

#include <cstdint>

#include "quality/corpus_windows.hpp"

namespace ecocompute::quality::testing {

inline WindowPolicy policy(std::int32_t seq_len, std::int32_t stride, bool add_bos, std::int64_t max_tokens = 0) {
  WindowPolicy p;
  p.seq_len = seq_len;
  p.stride = stride;
  p.add_bos = add_bos;
  p.max_tokens = max_tokens;
  return p;
}

}  // namespace ecocompute::quality::testing
