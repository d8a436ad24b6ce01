// Small dense symmetric linear algebra for the decision model: the covariance of a few hundred
// measured places at most, factored by Cholesky. Row-major, no aliasing tricks, no BLAS.
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

namespace ecocompute::decide {

/// A dense matrix, row-major.
struct Matrix {
  std::size_t rows = 0, cols = 0;
  std::vector<double> a;

  Matrix() = default;
  Matrix(std::size_t r, std::size_t c) : rows(r), cols(c), a(r * c, 0.0) {}
  double& operator()(std::size_t i, std::size_t j) { return a[i * cols + j]; }
  double operator()(std::size_t i, std::size_t j) const { return a[i * cols + j]; }
};

/// The lower Cholesky factor L (L Lᵀ = m) of a symmetric positive-definite matrix; nullopt when a
/// pivot is not positive (the matrix is not positive definite to working precision).
std::optional<Matrix> cholesky(const Matrix& m);

/// log det(m) from its Cholesky factor: 2 Σ ln L_ii.
double log_det(const Matrix& chol);

/// Solves (L Lᵀ) x = b for every column of b.
Matrix cholesky_solve(const Matrix& chol, const Matrix& b);
std::vector<double> cholesky_solve(const Matrix& chol, const std::vector<double>& b);

/// Solves L z = b (forward substitution): with K = L Lᵀ, bᵀK⁻¹b = |z|², without forming K⁻¹.
std::vector<double> forward_solve(const Matrix& chol, const std::vector<double>& b);

/// A Cholesky factor kept to predict from: many forward substitutions, one per prediction. Its lower
/// triangle is packed by columns, so a substitution updates the rest of the vector four columns at a
/// time, a loop over contiguous memory with no running sum to wait on (the row-by-row form of
/// forward_solve waits on one) that reads and writes the vector once per four columns. Each element
/// sees the same operations in the same order as there, so the results are the same to the bit.
class PackedLowerFactor {
 public:
  PackedLowerFactor() = default;
  explicit PackedLowerFactor(const Matrix& chol);
  /// Solves L z = b.
  [[nodiscard]] std::vector<double> forward_solve(std::vector<double> b) const;
  /// Solves Lᵀ u = z.
  [[nodiscard]] std::vector<double> backward_solve(std::vector<double> z) const;

 private:
  [[nodiscard]] const double* column(std::size_t k) const;  ///< L(k,k), L(k+1,k), …
  [[nodiscard]] const double* row(std::size_t k) const;     ///< L(k,0), …, L(k,k)

  std::size_t n_ = 0;
  std::vector<double> columns_;  // column k from its diagonal down: L(k,k), L(k+1,k), …, L(n−1,k)
  std::vector<double> rows_;     // row k up to its diagonal: L(k,0), …, L(k,k), for Lᵀ's columns
};

/// (L Lᵀ)⁻¹.
Matrix cholesky_inverse(const Matrix& chol);

/// aᵀ b.
Matrix transpose_times(const Matrix& a, const Matrix& b);
/// aᵀ v.
std::vector<double> transpose_times(const Matrix& a, const std::vector<double>& v);
/// m v.
std::vector<double> times(const Matrix& m, const std::vector<double>& v);
double dot(const std::vector<double>& x, const std::vector<double>& y);
/// xᵀ m x for a square m.
double quadratic_form(const Matrix& m, const std::vector<double>& x);

}  // namespace ecocompute::decide
