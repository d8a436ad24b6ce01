// The /metrics text: valid exposition format, cumulative histogram buckets, escaped labels.
#include <gtest/gtest.h>

#include "proxy/proxy_metrics.hpp"
#include "support/prometheus_text.hpp"

namespace ecocompute::proxy {
namespace {

TEST(ProxyMetrics, RendersTheAccountsAndHistogramsInTheExpositionFormat) {
  ProxyMetrics metrics;
  metrics.record_settled({"llama", 2.0, 10, 4});
  metrics.record_settled({"llama", 20.0, 10, 40});
  metrics.record_settled({"we\"ird\nname", 0.05, 1, 0});
  metrics.count_answer("llama", "2xx");
  LedgerTotals totals;
  totals.counter_j = 30.0;
  totals.idle_j = 7.95;
  totals.attributed_j = {{"llama", 22.0}, {"we\"ird\nname", 0.05}};
  const auto text = testing::parse_prometheus_text(metrics.render(totals));
  EXPECT_TRUE(text.problems.empty()) << text.problems.front();
  EXPECT_DOUBLE_EQ(text.sum("ecocompute_proxy_counter_energy_joules_total"), 30.0);
  EXPECT_DOUBLE_EQ(text.sum("ecocompute_proxy_attributed_energy_joules_total") + text.sum("ecocompute_proxy_idle_energy_joules_total"), 30.0);
  EXPECT_DOUBLE_EQ(text.samples.at(R"(ecocompute_proxy_request_energy_joules_bucket{model="llama",le="3"})"), 1.0);
  EXPECT_DOUBLE_EQ(text.samples.at(R"(ecocompute_proxy_request_energy_joules_bucket{model="llama",le="30"})"), 2.0);
  EXPECT_DOUBLE_EQ(text.samples.at(R"(ecocompute_proxy_request_energy_joules_bucket{model="llama",le="+Inf"})"), 2.0);
  EXPECT_DOUBLE_EQ(text.samples.at(R"(ecocompute_proxy_request_energy_joules_sum{model="llama"})"), 22.0);
  EXPECT_DOUBLE_EQ(text.samples.at(R"(ecocompute_proxy_output_token_energy_joules_count{model="llama"})"), 2.0);
  EXPECT_DOUBLE_EQ(text.samples.at(R"(ecocompute_proxy_output_token_energy_joules_bucket{model="llama",le="0.3"})"), 0.0);
  EXPECT_DOUBLE_EQ(text.samples.at(R"(ecocompute_proxy_output_token_energy_joules_bucket{model="llama",le="1"})"), 2.0);
  // A request with no output token is in the request histogram but not the per-token one.
  EXPECT_DOUBLE_EQ(text.sum("ecocompute_proxy_output_token_energy_joules_count", "we"), 0.0);
  EXPECT_DOUBLE_EQ(text.samples.at(R"(ecocompute_proxy_answers_total{model="llama",outcome="2xx"})"), 1.0);
}

TEST(ProxyMetrics, HistogramCountsEachValueInOneBucket) {
  Histogram histogram({1.0, 2.0});
  histogram.observe(1.0);
  histogram.observe(1.5);
  histogram.observe(9.0);
  EXPECT_EQ(histogram.counts, (std::vector<std::uint64_t>{1, 1}));
  EXPECT_EQ(histogram.count, 3u);
  EXPECT_DOUBLE_EQ(histogram.sum, 11.5);
}

}  // namespace
}  // namespace ecocompute::proxy
