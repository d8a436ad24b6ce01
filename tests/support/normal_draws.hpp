// Deterministic normal deviates for tests that draw synthetic measurements (Box–Muller over a linear
// congruential generator), so a test's data are the same on every run and machine.
#pragma once

#include <cmath>

namespace ecocompute::testing {

struct NormalDraws {
  unsigned long long state = 12345;
  double uniform() {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (static_cast<double>(state >> 11) + 0.5) / 9007199254740992.0;
  }
  double normal() { return std::sqrt(-2 * std::log(uniform())) * std::cos(6.283185307179586 * uniform()); }
};

}  // namespace ecocompute::testing
