// The fast forms a prediction is computed in give the bits of the plain forms they replace: the
// vector-lane row updates, the packed factor's forward and backward substitutions, and the covariance rows laid out
// per family (place_covariance.hpp) against the place-by-place covariance and prior terms.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstring>
#include <optional>
#include <random>
#include <vector>

#include "decide/dense_matrix.hpp"
#include "decide/family_fit.hpp"
#include "decide/place_covariance.hpp"
#include "decide/scaled_rows.hpp"

namespace ecocompute::decide {
namespace {

bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

std::vector<double> random_values(std::mt19937_64& rng, std::size_t n) {
  std::uniform_real_distribution<double> u(-3.0, 3.0);
  std::vector<double> v(n);
  for (double& x : v) x = u(rng) * std::exp(u(rng));  // several magnitudes, so that roundings differ
  return v;
}

// The Cholesky factor of a random symmetric positive definite n × n matrix.
std::optional<Matrix> random_factor(std::mt19937_64& rng, std::size_t n) {
  Matrix a(n, n);
  for (double& v : a.a) v = random_values(rng, 1)[0];
  Matrix spd = transpose_times(a, a);
  for (std::size_t i = 0; i < n; ++i) spd(i, i) += 1.0;
  return cholesky(spd);
}

// Every form the CPU running the tests can run, not only the one the functions call.
TEST(ScaledRows, EveryVectorUnitsFormUpdatesEachElementAsThePlainLoopDoesToTheBit) {
  const auto kernels = scaled_rows_kernels_this_cpu_runs();
  ASSERT_FALSE(kernels.empty());
  EXPECT_STREQ(kernels.back().unit, "sse2");  // the baseline every x86-64 runs
  for (const ScaledRowsKernels& kernel : kernels) {
    std::mt19937_64 rng(7);
    for (std::size_t n = 0; n <= 41; ++n) {  // shorter than, equal to and longer than the lanes, with tails
      const std::vector<double> x = random_values(rng, n), start = random_values(rng, n);
      const double s = random_values(rng, 1)[0];
      std::vector<double> minus = start, plus = start;
      kernel.subtract(minus.data(), x.data(), s, n);
      kernel.add(plus.data(), x.data(), s, n);
      for (std::size_t i = 0; i < n; ++i) {
        const double product = x[i] * s;
        EXPECT_TRUE(same_bits(minus[i], start[i] - product)) << kernel.unit << " n " << n << " element " << i;
        EXPECT_TRUE(same_bits(plus[i], start[i] + product)) << kernel.unit << " n " << n << " element " << i;
      }
    }
  }
}

TEST(ScaledRows, EveryVectorUnitsFourUpdatesInOnePassAreTheFourPlainLoopsInTheirOrderToTheBit) {
  for (const ScaledRowsKernels& kernel : scaled_rows_kernels_this_cpu_runs()) {
    std::mt19937_64 rng(9);
    for (std::size_t n = 0; n <= 41; ++n) {
      std::array<std::vector<double>, 4> x;
      for (auto& v : x) v = random_values(rng, n);
      const std::vector<double> start = random_values(rng, n), scales = random_values(rng, 4);
      std::vector<double> one_pass = start, four_loops = start;
      kernel.subtract_4(one_pass.data(), {x[0].data(), x[1].data(), x[2].data(), x[3].data()},
                        {scales[0], scales[1], scales[2], scales[3]}, n);
      for (std::size_t j = 0; j < 4; ++j) {
        for (std::size_t i = 0; i < n; ++i) four_loops[i] -= x[j][i] * scales[j];
      }
      for (std::size_t i = 0; i < n; ++i) {
        EXPECT_TRUE(same_bits(one_pass[i], four_loops[i])) << kernel.unit << " n " << n << " element " << i;
      }
    }
  }
}

// Sizes below, at and past a block of four columns, with every remainder.
constexpr std::size_t kFactorSizes[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 37, 130, 131};

TEST(PackedLowerFactor, SubstitutesAsTheRowByRowFormToTheBit) {
  std::mt19937_64 rng(11);
  for (std::size_t n : kFactorSizes) {
    const auto chol = random_factor(rng, n);
    ASSERT_TRUE(chol);
    const std::vector<double> b = random_values(rng, n);
    const std::vector<double> row_by_row = forward_solve(*chol, b);
    const std::vector<double> packed = PackedLowerFactor(*chol).forward_solve(b);
    ASSERT_EQ(packed.size(), n);
    for (std::size_t i = 0; i < n; ++i) EXPECT_TRUE(same_bits(packed[i], row_by_row[i])) << "n " << n << " element " << i;
  }
}

TEST(PackedLowerFactor, BackwardSubstitutionSolvesTheTransposeAsThePlainLoopDoesToTheBit) {
  std::mt19937_64 rng(17);
  for (std::size_t n : kFactorSizes) {
    const auto chol = random_factor(rng, n);
    ASSERT_TRUE(chol);
    const std::vector<double> z = random_values(rng, n);
    std::vector<double> plain = z;  // Lᵀ u = z, each u_k leaving the earlier equations once known
    for (std::size_t k = n; k-- > 0;) {
      plain[k] /= (*chol)(k, k);
      for (std::size_t i = 0; i < k; ++i) plain[i] = plain[i] - (*chol)(k, i) * plain[k];
    }
    const std::vector<double> packed = PackedLowerFactor(*chol).backward_solve(z);
    ASSERT_EQ(packed.size(), n);
    for (std::size_t i = 0; i < n; ++i) {
      EXPECT_TRUE(same_bits(packed[i], plain[i])) << "n " << n << " element " << i;
      double back = 0;  // (Lᵀu)_i
      for (std::size_t k = i; k < n; ++k) back += (*chol)(k, i) * packed[k];
      EXPECT_NEAR(back, z[i], 1e-9 * (1 + std::abs(z[i]))) << "n " << n << " row " << i;
    }
  }
}

TEST(PackedLowerFactor, TransposeTimesAVectorAddsRowsInTheirOrder) {
  std::mt19937_64 rng(13);
  Matrix a(23, 11);
  for (double& v : a.a) v = random_values(rng, 1)[0];
  const std::vector<double> v = random_values(rng, 23);
  const std::vector<double> fast = transpose_times(a, v);
  for (std::size_t i = 0; i < 11; ++i) {
    double plain = 0;
    for (std::size_t k = 0; k < 23; ++k) plain += a(k, i) * v[k];
    EXPECT_TRUE(same_bits(fast[i], plain)) << "column " << i;
  }
}

ModelPoint at(const std::string& engine, const std::string& precision, const std::string& arch, const std::string& gpu, double params_b,
              int batch, int context = 2048) {
  return point_of(CellPlace{engine, precision, arch, gpu, params_b, batch, context});
}

TEST(PlaceCovariance, RowsEqualThePlaceByPlaceCovarianceAndPriorTermsToTheBit) {
  const std::vector<ModelPoint> places{
      at("llama.cpp", "Q4_K_M", "hopper", "H200", 8.03, 1),     at("llama.cpp", "Q4_K_M", "hopper", "H100", 8.03, 16),
      at("llama.cpp", "Q8_0", "hopper", "H200", 1.24, 4),       at("llama.cpp", "Q8_0", "hopper", "H200", 1.24, 4, 8192),
      at("llama.cpp", "Q4_K_M", "hopper", "H200", 0.494, 32),   at("llama.cpp", "Q4_K_M", "ada", "RTX 4090", 3.2, 1),
      at("llama-server", "Q4_K_M", "hopper", "H200", 8.03, 8),  at("llama.cpp", "Q6_K", "hopper", "H200", 14.77, 2),
      at("llama.cpp", "Q4_K_M", "hopper", "H200", 8.03, 1, 4096)};
  double mean_log_size = 0;
  for (const ModelPoint& p : places) mean_log_size += p.log_size / static_cast<double>(places.size());
  VarianceComponents c;
  c.shared = 0.31;
  c.format = 0.07;
  c.size_scale = 1.7;
  c.arch = 0.013;
  c.arch_slope = 0.002;
  c.gpu = 0.004;
  c.batch_shared = 0.09;
  c.batch_format = 0.021;
  c.batch_scale = 0.8;
  const PlaceCovariance table(places, mean_log_size);
  const std::vector<ModelPoint> questions{
      at("llama.cpp", "Q4_K_M", "hopper", "H200", 7.0, 1),   at("llama.cpp", "Q4_K_M", "hopper", "H100", 3.3, 24),
      at("llama.cpp", "Q8_0", "hopper", "H200", 70, 6, 8192), at("llama.cpp", "Q4_K_M", "ada", "RTX 4090", 13, 1),
      at("llama.cpp", "IQ4_NL", "hopper", "H200", 2, 12),    at("vllm", "AWQ", "blackwell", "B200", 9, 3)};
  for (const ModelPoint& q : questions) {
    std::vector<PriorTerm> terms;
    double weight = 0.5;
    for (const FixedEffect& e : effects_at(q)) {
      if (e.kind != EffectKind::level) terms.push_back(PriorTerm{e, weight *= 0.7});
    }
    const PlaceCovariance::Point point = table.point(q, terms);
    const std::vector<double> row = table.row(point, table.kernels(point, c.size_scale, c.batch_scale), c);
    ASSERT_EQ(row.size(), places.size());
    for (std::size_t i = 0; i < places.size(); ++i) {
      double plain = c.covariance(q, places[i], mean_log_size);
      for (const PriorTerm& t : terms) plain += t.weight * covariate(t.effect, places[i], mean_log_size);
      EXPECT_TRUE(same_bits(row[i], plain)) << q.key << " at " << std::exp(q.log_size) << " B batch " << q.batch << ", place " << i
                                            << ": " << row[i] << " vs " << plain;
    }
  }
}

TEST(SessionOrder, ListsEachIdOnceInOrderWithOrWithoutRanks) {
  const std::vector<std::string> ids{"s-9", "s-10", "s-1", "s-9", "a", "s-10"};
  const std::vector<std::uint32_t> by_id = session_order(ids);
  std::vector<std::string> listed;
  for (std::uint32_t i : by_id) listed.push_back(ids[i]);
  EXPECT_EQ(listed, (std::vector<std::string>{"a", "s-1", "s-10", "s-9"}));
  // The ranks a stored model gives its ids (their places in the sorted table) order them the same way.
  const std::vector<std::uint32_t> rank{3, 2, 1, 3, 0, 2};
  EXPECT_EQ(session_order(ids, &rank).size(), 4u);
  listed.clear();
  for (std::uint32_t i : session_order(ids, &rank)) listed.push_back(ids[i]);
  EXPECT_EQ(listed, (std::vector<std::string>{"a", "s-1", "s-10", "s-9"}));
}

}  // namespace
}  // namespace ecocompute::decide
