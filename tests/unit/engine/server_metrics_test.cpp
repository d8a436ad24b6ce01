// The running-request gauge read from each serving engine's Prometheus text.
#include "engine/server_metrics.hpp"

#include <gtest/gtest.h>

namespace ecocompute::engine {
namespace {

TEST(ServerMetrics, ReadsLlamaServersRequestsProcessing) {
  const char* text =
      "# HELP llamacpp:requests_processing Number of requests processing.\n"
      "# TYPE llamacpp:requests_processing gauge\n"
      "llamacpp:requests_processing 3\n"
      "# TYPE llamacpp:requests_deferred gauge\n"
      "llamacpp:requests_deferred 5\n";
  EXPECT_EQ(running_requests(text), 3.0);
}

TEST(ServerMetrics, SumsVllmsGaugeOverItsLabelSets) {
  const char* text =
      "vllm:num_requests_waiting{model_name=\"m\"} 9.0\n"
      "vllm:num_requests_running{engine=\"0\",model_name=\"m\"} 7.0\n"
      "vllm:num_requests_running{engine=\"1\",model_name=\"m\"} 2.0 1733000000000\n";
  EXPECT_EQ(running_requests(text), 9.0);
}

TEST(ServerMetrics, ReadsSglangAndTgiGauges) {
  EXPECT_EQ(running_requests("sglang:num_running_reqs{model_name=\"x\"} 12\r\n"), 12.0);
  EXPECT_EQ(running_requests("tgi_batch_current_size 4\n"), 4.0);
}

TEST(ServerMetrics, ALongerNameOrAMalformedValueIsNotTheGauge) {
  EXPECT_FALSE(running_requests("llamacpp:requests_processing_total 3\n").has_value());
  EXPECT_FALSE(running_requests("llamacpp:requests_processing three\n").has_value());
  EXPECT_FALSE(running_requests("llamacpp:requests_processing{a=\"b\" 3\n").has_value());
  EXPECT_FALSE(running_requests("llamacpp:requests_processing NaN\n").has_value());
  EXPECT_FALSE(running_requests("# llamacpp:requests_processing 3\n").has_value());
  EXPECT_FALSE(running_requests("").has_value());
  // A malformed line beside a good one leaves the good one's value.
  EXPECT_EQ(running_requests("llamacpp:requests_processing x\nllamacpp:requests_processing 2\n"), 2.0);
}

TEST(ServerMetrics, TheFirstKnownGaugeWins) {
  EXPECT_EQ(running_requests("vllm:num_requests_running 5\nllamacpp:requests_processing 1\n"), 1.0);
}

}  // namespace
}  // namespace ecocompute::engine
