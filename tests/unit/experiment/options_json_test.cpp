// The JSON mapping of ExperimentOptions: every key sets its one field, a key left out keeps it, every
// mistake is refused naming the key, and every key is documented.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "experiment/options_json.hpp"

namespace ecocompute::experiment {
namespace {

// The message of a refused document ("" when it was accepted).
std::string refusal(const std::string& text, const RefusedKeys& refused = {}) {
  ExperimentOptions options;
  auto applied = apply_options_json(Json::parse(text), options, refused);
  return applied ? std::string() : applied.error().message();
}

TEST(OptionsJson, EveryKeySetsItsField) {
  const std::string corpus = std::string(ECOCOMPUTE_SOURCE_DIR) + "/data/fixture/fixture-kjv-f16.gguf";
  const Json document = Json::parse(R"({
    "baseline": "BF16", "precisions": ["q8_0", "Q4_K_M"], "trials": 7, "warmups": 3, "tokens": 64, "iterations": 5,
    "threads": 2, "quality": false, "prompt": "Hello", "prompt_lengths": [32, 128], "target_ci_pt": 0.5,
    "min_trials": 4, "trial_warmup": "change", "level_warmup_tokens": 8, "prefill_windows": "first-batch", "token_choice": "host", "order": "shuffled",
    "seed": 42, "accept_throttled": true, "n_gpu_layers": 0, "ctx": 4096, "allow_shared": true,
    "require_energy": true, "quality_ctx": 256, "quality_stride": 128, "quality_max_tokens": 0,
    "window": {"min_s": 2.5, "min_prefill_s": 1, "idle_s": 0, "cool_down_s": 3, "edges": "corrected",
               "max_temperature_c": 60}})");
  Json with_text = document;
  with_text["quality_text"] = corpus;
  ExperimentOptions o;
  ASSERT_TRUE(apply_options_json(with_text, o));
  const protocol::Design& d = o.design;
  EXPECT_EQ(d.baseline, "BF16");
  EXPECT_EQ(d.candidates, (std::vector<std::string>{"Q8_0", "Q4_K_M"}));
  EXPECT_EQ(d.trials, 7);
  EXPECT_EQ(d.warmups, 3);
  EXPECT_EQ(d.tokens_per_iteration, 64);
  EXPECT_EQ(d.iterations, 5);
  EXPECT_EQ(o.n_threads, 2);
  EXPECT_FALSE(o.quality);
  EXPECT_EQ(d.prompt.text, "Hello");
  EXPECT_EQ(d.prompt.lengths_tokens, (std::vector<std::int64_t>{32, 128}));
  EXPECT_EQ(d.target_ci_pt, 0.5);
  EXPECT_EQ(d.min_trials, 4);
  EXPECT_EQ(d.trial_warmup, protocol::TrialWarmup::on_change);
  EXPECT_EQ(d.level_warmup_tokens, 8);
  EXPECT_FALSE(d.prefill_at_every_batch);
  EXPECT_EQ(o.token_choice, engine::TokenChoice::host);
  EXPECT_EQ(d.order, protocol::ScheduleOrder::shuffled);
  EXPECT_EQ(d.seed, std::uint64_t{42});
  EXPECT_TRUE(d.accept_throttled);
  EXPECT_EQ(o.n_gpu_layers, 0);
  EXPECT_EQ(o.n_ctx, 4096u);
  EXPECT_TRUE(o.allow_shared);
  EXPECT_TRUE(o.require_energy);
  EXPECT_EQ(o.quality_text, std::filesystem::path(corpus));
  EXPECT_EQ(o.quality_policy.seq_len, 256);
  EXPECT_EQ(o.quality_policy.stride, 128);
  EXPECT_EQ(o.quality_policy.max_tokens, 0);
  EXPECT_EQ(d.min_window.value, 2.5);
  EXPECT_EQ(d.min_prefill_window.value, 1.0);
  EXPECT_EQ(d.idle_window.value, 0.0);
  EXPECT_EQ(d.cool_down.pause.value, 3.0);
  EXPECT_TRUE(d.correct_edges);
  EXPECT_EQ(d.cool_down.max_temperature_c, 60.0);
  EXPECT_TRUE(check_options(o));
}

TEST(OptionsJson, AKeyLeftOutKeepsItsField) {
  ExperimentOptions o;
  o.design.trials = 9;
  ASSERT_TRUE(apply_options_json(Json::parse(R"({"window": {}})"), o));
  EXPECT_EQ(o.design.trials, 9);
  const ExperimentOptions defaults;
  EXPECT_EQ(o.design.min_window.value, defaults.design.min_window.value);
  EXPECT_EQ(o.token_choice, defaults.token_choice);
}

TEST(OptionsJson, MistakesAreRefusedNamingTheKey) {
  const std::pair<const char*, const char*> cases[] = {
      {R"({"trails": 3})", "trails: unknown field"},
      {R"({"window": {"min": 1}})", "window.min: unknown field"},
      {R"({"window": 3})", "window: must be an object"},
      {R"({"trials": 0})", "trials: must be a whole number from 1 to 1000"},
      {R"({"trials": 1001})", "trials: must be a whole number from 1 to 1000"},
      {R"({"trials": 2.5})", "trials: must be a whole number"},
      {R"({"trials": "3"})", "trials: must be a whole number"},
      {R"({"threads": -1})", "threads: must be a whole number from 0 to 1024"},
      {R"({"ctx": -1})", "ctx: must be a whole number from 0"},
      {R"({"seed": -1})", "seed: must be a whole number from 0 to 18446744073709551615"},
      {R"({"window": {"min_s": 3601}})", "window.min_s: must be a number of seconds from 0 to 3600"},
      {R"({"window": {"idle_s": "10"}})", "window.idle_s: must be a number of seconds"},
      {R"({"window": {"edges": "both"}})", "window.edges: must be \"counter\" or \"corrected\""},
      {R"({"target_ci_pt": 0})", "target_ci_pt: must be a number of percentage points from 0.01 to 100"},
      {R"({"baseline": "Q8_0"})", "baseline: must be \"F16\" or \"BF16\" or \"F32\""},
      {R"({"precisions": []})", "precisions: must be a non-empty list"},
      {R"({"precisions": ["Q4_K_M", "q4_k_m"]})", "precisions[1]: Q4_K_M is listed twice"},
      {R"({"precisions": ["NF4"]})", "precisions[0]: "},
      {R"({"prompt": ""})", "prompt: must be a non-empty string"},
      {R"({"prompt_lengths": [0]})", "prompt_lengths[0]: must be a whole number from 1"},
      {R"({"order": "random"})", "order: must be \"alternating\" or \"shuffled\""},
      {R"({"quality": 1})", "quality: must be true or false"},
      {R"({"quality_text": "relative.txt"})", "quality_text: must be the absolute path of a file"},
      {R"({"quality_ctx": 8})", "quality_ctx: must be a whole number from 16 to 65536"},
  };
  for (const auto& [text, expected] : cases) {
    const std::string message = refusal(text);
    EXPECT_TRUE(message.starts_with(expected)) << text << " → '" << message << "'";
  }
  EXPECT_EQ(refusal(R"([1])"), "(top level): the options are a JSON object");
  EXPECT_EQ(refusal(R"({"gpu": "GPU-1"})", {{"gpu", "set by the caller"}}), "gpu: set by the caller");
}

TEST(OptionsJson, RulesBetweenKeysAreCheckedAsAWhole) {
  ExperimentOptions o;
  ASSERT_TRUE(apply_options_json(Json::parse(R"({"trials": 3, "min_trials": 4, "target_ci_pt": 1})"), o));
  auto checked = check_options(o);
  ASSERT_FALSE(checked);
  EXPECT_TRUE(checked.error().message().starts_with("min_trials: 4")) << checked.error().message();
  ExperimentOptions baseline_twice;
  ASSERT_TRUE(apply_options_json(Json::parse(R"({"precisions": ["F16", "Q8_0"]})"), baseline_twice));
  ASSERT_FALSE(check_options(baseline_twice));
  EXPECT_TRUE(check_options(ExperimentOptions{}));
}

TEST(OptionsJson, EveryKeyIsDocumentedInTheSweepGuide) {
  std::ifstream in(std::string(ECOCOMPUTE_SOURCE_DIR) + "/docs/sweep.md");
  std::stringstream text;
  text << in.rdbuf();
  ASSERT_FALSE(text.str().empty());
  for (const std::string& key : options_json_keys()) {
    EXPECT_NE(text.str().find("`" + key + "`"), std::string::npos) << key << " is not in docs/sweep.md";
  }
}

}  // namespace
}  // namespace ecocompute::experiment
