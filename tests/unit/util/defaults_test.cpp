// The defaults in util/defaults.hpp are the ones docs/defaults.md states, and the ones a default
// Design starts from.
#include "util/defaults.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <regex>
#include <string>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace ecocompute {
namespace {

// Rows "| `name` | `value` | …" between the defaults markers of docs/defaults.md.
std::map<std::string, std::string> documented_defaults() {
  std::ifstream in(std::string(ECOCOMPUTE_SOURCE_DIR) + "/docs/defaults.md");
  std::map<std::string, std::string> out;
  std::string line;
  bool inside = false;
  static const std::regex row(R"(^\|\s*`([a-z_]+)`\s*\|\s*`([^`]*)`\s*\|.*$)");
  while (std::getline(in, line)) {
    if (line.find("<!-- defaults -->") != std::string::npos) inside = true;
    if (line.find("<!-- /defaults -->") != std::string::npos) break;
    std::smatch m;
    if (inside && std::regex_match(line, m, row)) out[m[1]] = m[2];
  }
  return out;
}

std::map<std::string, std::string> defaults_in_code() {
  using namespace defaults;
  return {{"baseline", std::string(baseline)},
          {"candidates", fmt::format("{}", fmt::join(candidates, ","))},
          {"trials", fmt::format("{}", trials)},
          {"warmups", fmt::format("{}", warmups)},
          {"trial_warmup_iterations", fmt::format("{}", trial_warmup_iterations)},
          {"trial_warmup", std::string(trial_warmup)},
          {"prefill_windows", std::string(prefill_windows)},
          {"level_warmup_tokens", fmt::format("{}", level_warmup_tokens)},
          {"token_choice", std::string(token_choice)},
          {"tokens_per_iteration", fmt::format("{}", tokens_per_iteration)},
          {"measure_batches", fmt::format("{}", fmt::join(measure_batches, ","))},
          {"max_measure_batch", fmt::format("{}", max_measure_batch)},
          {"iterations", fmt::format("{}", iterations)},
          {"min_window_s", fmt::format("{}", min_window_s)},
          {"min_prefill_window_s", fmt::format("{}", min_prefill_window_s)},
          {"max_edge_error_pct", fmt::format("{}", max_edge_error_pct)},
          {"min_gpu_busy_pct", fmt::format("{}", min_gpu_busy_pct)},
          {"edges", std::string(edges)},
          {"assumed_counter_update_period_s", fmt::format("{}", assumed_counter_update_period_s)},
          {"idle_window_s", fmt::format("{}", idle_window_s)},
          {"schedule_order", std::string(schedule_order)},
          {"out_dir", std::string(out_dir)},
          {"serving_concurrency", fmt::format("{}", fmt::join(serving_concurrency, ","))},
          {"serving_requests", fmt::format("{}", serving_requests)},
          {"serving_prompt_words", std::string(serving_prompt_words)},
          {"serving_output_tokens", std::string(serving_output_tokens)},
          {"serving_requests_per_stream", fmt::format("{}", serving_requests_per_stream)},
          {"serving_warmup_requests", fmt::format("{}", serving_warmup_requests)},
          {"serving_level_warmup_trials", fmt::format("{}", serving_level_warmup_trials)},
          {"serving_edges", std::string(serving_edges)},
          {"serving_out_dir", std::string(serving_out_dir)},
          {"estimate_precision", std::string(estimate_precision)},
          {"batch", fmt::format("{}", batch)},
          {"context", fmt::format("{}", context)},
          {"optimize_precisions", fmt::format("{}", fmt::join(optimize_precisions, ","))},
          {"optimize_batches", fmt::format("{}", fmt::join(optimize_batches, ","))},
          {"optimize_contexts", fmt::format("{}", fmt::join(optimize_contexts, ","))},
          {"check_band_k", fmt::format("{}", check_band_k)}};
}

TEST(Defaults, TheDocsStateEveryDefaultAsTheCodeHasIt) {
  const auto documented = documented_defaults();
  const auto code = defaults_in_code();
  ASSERT_FALSE(documented.empty()) << "docs/defaults.md has no defaults table";
  for (const auto& [name, value] : code) {
    const auto it = documented.find(name);
    if (it == documented.end()) {
      ADD_FAILURE() << name << " is not in docs/defaults.md";
    } else {
      EXPECT_EQ(it->second, value) << name;
    }
  }
  for (const auto& [name, value] : documented) EXPECT_TRUE(code.contains(name)) << name << " is documented but not a default";
}

}  // namespace
}  // namespace ecocompute
