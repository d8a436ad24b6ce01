// Cholesky factorization and the products the decision model needs.
#include "decide/dense_matrix.hpp"

#include <array>
#include <cmath>

#include "decide/scaled_rows.hpp"

namespace ecocompute::decide {

std::optional<Matrix> cholesky(const Matrix& m) {
  const std::size_t n = m.rows;
  Matrix l(n, n);
  for (std::size_t j = 0; j < n; ++j) {
    double d = m(j, j);
    for (std::size_t k = 0; k < j; ++k) d -= l(j, k) * l(j, k);
    if (!(d > 0) || !std::isfinite(d)) return std::nullopt;
    const double root = std::sqrt(d);
    l(j, j) = root;
    for (std::size_t i = j + 1; i < n; ++i) {
      double s = m(i, j);
      for (std::size_t k = 0; k < j; ++k) s -= l(i, k) * l(j, k);
      l(i, j) = s / root;
    }
  }
  return l;
}

double log_det(const Matrix& chol) {
  double s = 0;
  for (std::size_t i = 0; i < chol.rows; ++i) s += std::log(chol(i, i));
  return 2 * s;
}

std::vector<double> forward_solve(const Matrix& chol, const std::vector<double>& b) {
  std::vector<double> z = b;
  for (std::size_t i = 0; i < chol.rows; ++i) {
    double s = z[i];
    for (std::size_t k = 0; k < i; ++k) s -= chol(i, k) * z[k];
    z[i] = s / chol(i, i);
  }
  return z;
}

PackedLowerFactor::PackedLowerFactor(const Matrix& chol) : n_(chol.rows) {
  columns_.reserve(n_ * (n_ + 1) / 2);
  for (std::size_t k = 0; k < n_; ++k) {
    for (std::size_t i = k; i < n_; ++i) columns_.push_back(chol(i, k));
  }
  rows_.reserve(columns_.size());
  for (std::size_t k = 0; k < n_; ++k) {
    for (std::size_t j = 0; j <= k; ++j) rows_.push_back(chol(k, j));
  }
}

const double* PackedLowerFactor::column(std::size_t k) const { return columns_.data() + k * (2 * n_ - k + 1) / 2; }

const double* PackedLowerFactor::row(std::size_t k) const { return rows_.data() + k * (k + 1) / 2; }

// Four columns at a time: their diagonal block first, each element taking the earlier columns'
// products in order, then the rows below in one pass (subtract_scaled_4), in the same order again.
std::vector<double> PackedLowerFactor::forward_solve(std::vector<double> b) const {
  std::size_t k = 0;
  for (; k + 4 <= n_; k += 4) {
    const std::array<const double*, 4> col{column(k), column(k + 1), column(k + 2), column(k + 3)};
    std::array<double, 4> z{};
    for (std::size_t j = 0; j < 4; ++j) {
      double v = b[k + j];
      for (std::size_t i = 0; i < j; ++i) v -= col[i][j - i] * z[i];
      z[j] = v / col[j][0];
      b[k + j] = z[j];
    }
    subtract_scaled_4(b.data() + k + 4, {col[0] + 4, col[1] + 3, col[2] + 2, col[3] + 1}, z, n_ - k - 4);
  }
  for (; k < n_; ++k) {
    const double* col = column(k);
    const double z = b[k] / col[0];
    b[k] = z;
    subtract_scaled(b.data() + k + 1, col + 1, z, n_ - k - 1);
  }
  return b;
}

// Lᵀ's column k is L's row k: once u_k is known, it leaves every earlier equation at once. Four rows at
// a time from the bottom, as in forward_solve: each element takes the later rows' products first.
std::vector<double> PackedLowerFactor::backward_solve(std::vector<double> z) const {
  std::size_t top = n_;
  for (; top >= 4; top -= 4) {
    const std::array<std::size_t, 4> k{top - 1, top - 2, top - 3, top - 4};
    const std::array<const double*, 4> rows{row(k[0]), row(k[1]), row(k[2]), row(k[3])};
    std::array<double, 4> u{};
    for (std::size_t j = 0; j < 4; ++j) {
      double v = z[k[j]];
      for (std::size_t i = 0; i < j; ++i) v -= rows[i][k[j]] * u[i];
      u[j] = v / rows[j][k[j]];
      z[k[j]] = u[j];
    }
    subtract_scaled_4(z.data(), rows, u, k[3]);
  }
  for (std::size_t k = top; k-- > 0;) {
    const double* r = row(k);
    const double u = z[k] / r[k];
    z[k] = u;
    subtract_scaled(z.data(), r, u, k);
  }
  return z;
}

std::vector<double> cholesky_solve(const Matrix& chol, const std::vector<double>& b) {
  const std::size_t n = chol.rows;
  std::vector<double> x = forward_solve(chol, b);  // L z = b
  for (std::size_t i = n; i-- > 0;) {  // Lᵀ x = z
    double s = x[i];
    for (std::size_t k = i + 1; k < n; ++k) s -= chol(k, i) * x[k];
    x[i] = s / chol(i, i);
  }
  return x;
}

Matrix cholesky_solve(const Matrix& chol, const Matrix& b) {
  Matrix out(b.rows, b.cols);
  std::vector<double> column(b.rows);
  for (std::size_t j = 0; j < b.cols; ++j) {
    for (std::size_t i = 0; i < b.rows; ++i) column[i] = b(i, j);
    const std::vector<double> x = cholesky_solve(chol, column);
    for (std::size_t i = 0; i < b.rows; ++i) out(i, j) = x[i];
  }
  return out;
}

Matrix cholesky_inverse(const Matrix& chol) {
  Matrix identity(chol.rows, chol.rows);
  for (std::size_t i = 0; i < chol.rows; ++i) identity(i, i) = 1;
  return cholesky_solve(chol, identity);
}

Matrix transpose_times(const Matrix& a, const Matrix& b) {
  Matrix out(a.cols, b.cols);
  for (std::size_t k = 0; k < a.rows; ++k) {
    for (std::size_t i = 0; i < a.cols; ++i) {
      const double aki = a(k, i);
      if (aki == 0) continue;
      for (std::size_t j = 0; j < b.cols; ++j) out(i, j) += aki * b(k, j);
    }
  }
  return out;
}

std::vector<double> transpose_times(const Matrix& a, const std::vector<double>& v) {
  std::vector<double> out(a.cols, 0.0);
  for (std::size_t k = 0; k < a.rows; ++k) add_scaled(out.data(), &a.a[k * a.cols], v[k], a.cols);
  return out;
}

std::vector<double> times(const Matrix& m, const std::vector<double>& v) {
  std::vector<double> out(m.rows, 0.0);
  for (std::size_t i = 0; i < m.rows; ++i) {
    for (std::size_t j = 0; j < m.cols; ++j) out[i] += m(i, j) * v[j];
  }
  return out;
}

double dot(const std::vector<double>& x, const std::vector<double>& y) {
  double s = 0;
  for (std::size_t i = 0; i < x.size(); ++i) s += x[i] * y[i];
  return s;
}

double quadratic_form(const Matrix& m, const std::vector<double>& x) { return dot(x, times(m, x)); }

}  // namespace ecocompute::decide
