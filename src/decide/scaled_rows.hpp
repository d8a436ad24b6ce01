// The two loops the decision model's predictions spend their time in, each element updated on its
// own (no running sum), written over vector lanes and compiled once per vector unit (AVX-512, AVX2,
// the baseline SSE2); the widest the CPU runs is chosen at the first call. Each element sees one
// multiplication and one addition or subtraction, rounded apart as in the plain loop, so the results
// are the same to the bit on every CPU.
#pragma once

#include <array>
#include <cstddef>
#include <span>

namespace ecocompute::decide {

/// out[i] −= x[i] · s for i < n.
void subtract_scaled(double* out, const double* x, double s, std::size_t n);
/// out[i] −= x[0][i] · s[0], then x[1][i] · s[1], x[2][i] · s[2], x[3][i] · s[3], for i < n: four
/// subtract_scaled calls in that order, to the bit, in one pass over out (a substitution's block of
/// four columns reads and writes its vector once, not four times).
void subtract_scaled_4(double* out, const std::array<const double*, 4>& x, const std::array<double, 4>& s, std::size_t n);
/// out[i] += x[i] · s for i < n.
void add_scaled(double* out, const double* x, double s, std::size_t n);

/// One vector unit's compiled forms of the three functions above.
struct ScaledRowsKernels {
  const char* unit;  ///< "avx512f", "avx2" or "sse2"
  void (*subtract)(double*, const double*, double, std::size_t);
  void (*subtract_4)(double*, const std::array<const double*, 4>&, const std::array<double, 4>&, std::size_t);
  void (*add)(double*, const double*, double, std::size_t);
};

/// The forms this CPU can run, widest first; the first is the one the functions above call. Tests
/// run every one, since the machine that runs them picks only one.
std::span<const ScaledRowsKernels> scaled_rows_kernels_this_cpu_runs();

}  // namespace ecocompute::decide
