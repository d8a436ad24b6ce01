// Vector-lane loops of scaled_rows.hpp. GCC's vector extension lowers an 8-lane vector to what the
// clone's target has (one AVX-512 register, two AVX2 ones, four SSE2 ones); -ffp-contract=off (the
// top CMakeLists.txt) keeps the AVX-512 clone from fusing a multiplication and an addition.
#include "decide/scaled_rows.hpp"

#include <cstring>

namespace ecocompute::decide {
namespace {

using Lanes = double __attribute__((vector_size(64)));
constexpr std::size_t kLanes = sizeof(Lanes) / sizeof(double);

template <bool Subtract>
inline void update(double* out, const double* x, double s, std::size_t n) {
  Lanes scale;
  for (std::size_t l = 0; l < kLanes; ++l) scale[l] = s;
  std::size_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    Lanes o, v;
    std::memcpy(&o, out + i, sizeof o);
    std::memcpy(&v, x + i, sizeof v);
    const Lanes product = v * scale;
    if constexpr (Subtract) {
      o -= product;
    } else {
      o += product;
    }
    std::memcpy(out + i, &o, sizeof o);
  }
  for (; i < n; ++i) {
    const double product = x[i] * s;
    if constexpr (Subtract) {
      out[i] -= product;
    } else {
      out[i] += product;
    }
  }
}

}  // namespace

__attribute__((target_clones("avx512f", "avx2", "default"))) void subtract_scaled(double* out, const double* x, double s, std::size_t n) {
  update<true>(out, x, s, n);
}

__attribute__((target_clones("avx512f", "avx2", "default"))) void add_scaled(double* out, const double* x, double s, std::size_t n) {
  update<false>(out, x, s, n);
}

}  // namespace ecocompute::decide
