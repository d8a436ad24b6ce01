// The two loops the decision model's predictions spend their time in, each element updated on its
// own (no running sum), written over vector lanes and compiled for the widest vector unit the CPU
// has (chosen once at load). Each element sees one multiplication and one addition or subtraction,
// rounded apart as in the plain loop, so the results are the same to the bit on every CPU.
#pragma once

#include <cstddef>

namespace ecocompute::decide {

/// out[i] −= x[i] · s for i < n.
void subtract_scaled(double* out, const double* x, double s, std::size_t n);
/// out[i] += x[i] · s for i < n.
void add_scaled(double* out, const double* x, double s, std::size_t n);

}  // namespace ecocompute::decide
