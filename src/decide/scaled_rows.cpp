// Vector-lane loops of scaled_rows.hpp. GCC's and clang's vector extension lowers an 8-lane vector
// to what the function's target has (one AVX-512 register, two AVX2 ones, four SSE2 ones);
// -ffp-contract=off (the top CMakeLists.txt) keeps the AVX-512 form from fusing a multiplication and
// an addition. Each form is its own function with a target attribute, chosen by hand once: clang 14
// silently drops target_clones from a definition whose declaration (the header's) came first in an
// earlier namespace block, and compiled one form with AVX-512 instructions for every CPU.
#include "decide/scaled_rows.hpp"

#include <cstring>
#include <vector>

namespace ecocompute::decide {
namespace {

using Lanes = double __attribute__((vector_size(64)));
constexpr std::size_t kLanes = sizeof(Lanes) / sizeof(double);

// The bodies are inlined into each target's functions below, and so compiled for that target.
template <bool Subtract>
[[gnu::always_inline]] inline void update(double* out, const double* x, double s, std::size_t n) {
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

// o −= x · s over the lanes (the vector type is passed by reference: by value it would change the
// ABI between the targets).
[[gnu::always_inline]] inline void subtract_lanes(Lanes& o, const double* x, const Lanes& s) {
  Lanes v;
  std::memcpy(&v, x, sizeof v);
  o -= v * s;
}

[[gnu::always_inline]] inline void update_4(double* out, const std::array<const double*, 4>& x, const std::array<double, 4>& s,
                                            std::size_t n) {
  Lanes s0, s1, s2, s3;
  for (std::size_t l = 0; l < kLanes; ++l) {
    s0[l] = s[0];
    s1[l] = s[1];
    s2[l] = s[2];
    s3[l] = s[3];
  }
  const double *x0 = x[0], *x1 = x[1], *x2 = x[2], *x3 = x[3];
  std::size_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    Lanes o;
    std::memcpy(&o, out + i, sizeof o);
    subtract_lanes(o, x0 + i, s0);  // each product rounded, then each difference, in the order of the four calls
    subtract_lanes(o, x1 + i, s1);
    subtract_lanes(o, x2 + i, s2);
    subtract_lanes(o, x3 + i, s3);
    std::memcpy(out + i, &o, sizeof o);
  }
  for (; i < n; ++i) {
    double o = out[i];
    o -= x0[i] * s[0];
    o -= x1[i] * s[1];
    o -= x2[i] * s[2];
    o -= x3[i] * s[3];
    out[i] = o;
  }
}

__attribute__((target("avx512f"))) void subtract_avx512(double* out, const double* x, double s, std::size_t n) {
  update<true>(out, x, s, n);
}
__attribute__((target("avx512f"))) void subtract_4_avx512(double* out, const std::array<const double*, 4>& x,
                                                           const std::array<double, 4>& s, std::size_t n) {
  update_4(out, x, s, n);
}
__attribute__((target("avx512f"))) void add_avx512(double* out, const double* x, double s, std::size_t n) {
  update<false>(out, x, s, n);
}

__attribute__((target("avx2"))) void subtract_avx2(double* out, const double* x, double s, std::size_t n) {
  update<true>(out, x, s, n);
}
__attribute__((target("avx2"))) void subtract_4_avx2(double* out, const std::array<const double*, 4>& x,
                                                     const std::array<double, 4>& s, std::size_t n) {
  update_4(out, x, s, n);
}
__attribute__((target("avx2"))) void add_avx2(double* out, const double* x, double s, std::size_t n) {
  update<false>(out, x, s, n);
}

void subtract_sse2(double* out, const double* x, double s, std::size_t n) { update<true>(out, x, s, n); }
void subtract_4_sse2(double* out, const std::array<const double*, 4>& x, const std::array<double, 4>& s, std::size_t n) {
  update_4(out, x, s, n);
}
void add_sse2(double* out, const double* x, double s, std::size_t n) { update<false>(out, x, s, n); }

std::vector<ScaledRowsKernels> kernels_this_cpu_runs() {
  __builtin_cpu_init();
  std::vector<ScaledRowsKernels> runs;
  // __builtin_cpu_supports takes only a literal, so each unit is asked for by name.
  if (__builtin_cpu_supports("avx512f")) runs.push_back({"avx512f", subtract_avx512, subtract_4_avx512, add_avx512});
  if (__builtin_cpu_supports("avx2")) runs.push_back({"avx2", subtract_avx2, subtract_4_avx2, add_avx2});
  runs.push_back({"sse2", subtract_sse2, subtract_4_sse2, add_sse2});
  return runs;
}

const ScaledRowsKernels& widest() { return scaled_rows_kernels_this_cpu_runs().front(); }

}  // namespace

std::span<const ScaledRowsKernels> scaled_rows_kernels_this_cpu_runs() {
  static const std::vector<ScaledRowsKernels> runs = kernels_this_cpu_runs();
  return runs;
}

void subtract_scaled(double* out, const double* x, double s, std::size_t n) { widest().subtract(out, x, s, n); }

void subtract_scaled_4(double* out, const std::array<const double*, 4>& x, const std::array<double, 4>& s, std::size_t n) {
  widest().subtract_4(out, x, s, n);
}

void add_scaled(double* out, const double* x, double s, std::size_t n) { widest().add(out, x, s, n); }

}  // namespace ecocompute::decide
