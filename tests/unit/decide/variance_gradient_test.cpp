// The gradient of the predictive variance in the variance components (variance_gradient.hpp) against
// central differences of the variance of refactored fits, each with one component moved: at measured
// and unmeasured sizes, batches of both regimes, another GPU and another architecture, so that every
// kind of term (cards, shared, format, length scales, architecture, GPU, batch) is exercised.
#include "decide/variance_gradient.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <optional>
#include <set>

#include "decide/family_fit.hpp"
#include "decide/family_reml.hpp"
#include "decide/outcome_model.hpp"
#include "support/normal_draws.hpp"

namespace ecocompute::decide {
namespace {


void add_cells(std::vector<Cell>& cells, testing::NormalDraws& draws, const char* arch, const char* gpu, double n, int batch, int cards) {
  for (const char* precision : {"Q8_0", "Q4_K_M"}) {
    const double level = std::string(precision) == "Q8_0" ? -0.38 : -0.50;
    const double arch_shift = std::string(arch) == "ada" ? 0.06 : 0.0;
    const double gpu_shift = std::string(gpu) == "H100" ? -0.02 : 0.0;
    const double batch_shift = batch > 1 ? 0.15 * std::log(batch) - (batch > 8 ? 0.3 : 0.0) : 0.0;
    for (int card = 0; card < cards; ++card) {
      Cell c;
      c.place = CellPlace{"llama.cpp", precision, arch, gpu, n, batch};
      c.session_id = std::string(gpu) + "-card" + std::to_string(card) + "-" + std::to_string(n) + "-b" + std::to_string(batch);
      c.value = level + arch_shift + gpu_shift + batch_shift + 0.02 * std::log(n) + 0.03 * std::sin(std::log(n)) +
                0.03 * draws.normal() + 0.003 * draws.normal();
      c.within_var = 0.003 * 0.003;
      cells.push_back(c);
    }
  }
}

std::vector<Cell> rich_cells() {
  testing::NormalDraws draws{777};
  std::vector<Cell> cells;
  for (double n : {0.5, 1.2, 3.2, 8.0, 14.8}) add_cells(cells, draws, "hopper", "H200", n, 1, 3);
  for (double n : {1.2, 8.0}) add_cells(cells, draws, "hopper", "H100", n, 1, 2);
  for (double n : {1.2, 3.2, 8.0}) add_cells(cells, draws, "ada", "L40S", n, 1, 2);
  for (double n : {1.2, 8.0}) {
    for (int batch : {2, 4, 8, 16, 32}) add_cells(cells, draws, "hopper", "H200", n, batch, 2);
  }
  return cells;
}

ModelPoint gradient_point(double n, int batch = 1, const char* gpu = "H200", const char* arch = "hopper",
                          const char* precision = "Q4_K_M") {
  return point_of(CellPlace{"llama.cpp", precision, arch, gpu, n, batch});
}

// mean_var + card_var at `p` of the family refactored with free component j moved by `step` (log scale).
double moved_variance(const FamilyFit& fit, std::size_t j, double step, const ModelPoint& p) {
  FamilyFit::Stored stored = fit.stored();
  std::vector<double> x = get_components(stored.free, stored.components);
  x[j] += step;
  set_components(stored.free, x, card_variance_floor(), fit.locations(), stored.components);
  const auto moved = FamilyFit::restore(fit.family(), std::move(stored), card_variance_floor());
  EXPECT_TRUE(moved);
  const auto prediction = moved ? moved->predict(p) : std::nullopt;
  EXPECT_TRUE(prediction);
  return prediction ? prediction->mean_var + prediction->card_var : NAN;
}

// The family fitted to the cells, restored with every free component at a value of its own (REML puts
// some of them near 0 or a length scale at its bound here, where their derivatives vanish) and Σ_θ = I.
std::optional<FamilyFit> family_with_every_term() {
  const OutcomeModel model = OutcomeModel::fit(rich_cells());
  const FamilyFit* fit = model.family_of("llama.cpp");
  if (!fit) return std::nullopt;
  FamilyFit::Stored stored = fit->stored();
  VarianceComponents& c = stored.components;
  c.shared = 0.01, c.format = 0.004, c.size_scale = 0.8, c.arch = 0.003, c.arch_slope = 0.001, c.gpu = 0.002;
  c.batch_shared = 0.006, c.batch_format = 0.003, c.batch_scale = 0.7;
  for (auto& [key, value] : c.card) value = 0.0009 + 0.0001 * static_cast<double>(key.size() % 3);
  stored.theta_covariance = Matrix(stored.free.size(), stored.free.size());
  for (std::size_t j = 0; j < stored.free.size(); ++j) (*stored.theta_covariance)(j, j) = 1.0;
  return FamilyFit::restore(fit->family(), std::move(stored), card_variance_floor());
}

TEST(VarianceGradient, EqualsCentralDifferencesOfRefactoredFitsForEveryKindOfComponent) {
  const auto family = family_with_every_term();
  ASSERT_TRUE(family);
  const FamilyFit* fit = &*family;
  std::set<FreeComponent::Which> kinds;
  for (const FreeComponent& f : fit->free_components()) kinds.insert(f.which);
  using W = FreeComponent::Which;
  for (W w : {W::card, W::shared, W::format, W::size_scale, W::arch, W::arch_slope, W::gpu, W::batch_shared, W::batch_format,
              W::batch_scale}) {
    EXPECT_TRUE(kinds.contains(w)) << "the fixture no longer identifies component " << static_cast<int>(w);
  }
  const ModelPoint points[] = {
      gradient_point(8.0),         gradient_point(2.2),
      gradient_point(40.0),        gradient_point(8.0, 4),
      gradient_point(3.0, 12),     gradient_point(8.0, 24),
      gradient_point(2.2, 1, "H100"),                   gradient_point(5.0, 1, "L40S", "ada"),
      gradient_point(5.0, 1, "A100", "ampere"),         gradient_point(8.0, 8, "H100"),
      gradient_point(1.2, 1, "H200", "hopper", "Q8_0")};
  constexpr double h = 1e-4;
  for (const ModelPoint& p : points) {
    const std::vector<double> gradient = fit->log_variance_gradient(p);
    ASSERT_EQ(gradient.size(), fit->free_components().size()) << p.gpu << " " << std::exp(p.log_size) << " b" << p.batch;
    const auto base = fit->predict(p);
    ASSERT_TRUE(base);
    const double v = base->mean_var + base->card_var;
    for (std::size_t j = 0; j < gradient.size(); ++j) {
      const double numeric = (moved_variance(*fit, j, h, p) - moved_variance(*fit, j, -h, p)) / (2 * h) / v;
      EXPECT_NEAR(gradient[j], numeric, 1e-5 + 1e-4 * std::abs(numeric))
          << "component " << j << " (" << static_cast<int>(fit->free_components()[j].which) << ") at " << p.gpu << " "
          << std::exp(p.log_size) << " B batch " << p.batch << " " << p.precision;
    }
  }
}

}  // namespace
}  // namespace ecocompute::decide
