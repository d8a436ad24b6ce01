// Plan parsing: a full plan reads into every field; each kind of mistake is refused with a message
// naming the field.
#include <gtest/gtest.h>

#include "sweep/job.hpp"
#include "sweep/plan.hpp"

namespace ecocompute::sweep {
namespace {

Result<SweepPlan> parse(const std::string& text) {
  return parse_plan(Json::parse(text), "plan.json", "/plans");
}

// The error message of a plan that must be refused ("" when it was accepted).
std::string refusal(const std::string& text) {
  auto plan = parse(text);
  return plan ? std::string() : plan.error().message();
}

TEST(SweepPlan, ReadsEveryField) {
  auto plan = parse(R"({"name": "fleet", "models": ["m/a.gguf", {"path": "/abs/b.gguf"},
                        {"synth": "llama3-1b", "type": "bf16", "seed": 7}],
                        "batches": [[1], [8, 16]], "baseline": "F16", "precisions": ["Q8_0", "Q4_K_M"],
                        "trials": 3, "warmups": 1, "tokens": 64, "threads": 2,
                        "window": {"min_s": 1.5, "min_prefill_s": 0.5, "idle_s": 2, "cool_down_s": 0, "edges": "corrected"},
                        "quality": false, "measure_args": ["--prompt-lengths", "32"],
                        "gpus": ["GPU-aaaa", "GPU-bbbb"]})");
  ASSERT_TRUE(plan) << plan.error().describe();
  EXPECT_EQ(plan->name, "fleet");
  ASSERT_EQ(plan->models.size(), 3u);
  EXPECT_EQ(plan->models[0].path, std::filesystem::path("/plans/m/a.gguf"));
  EXPECT_EQ(plan->models[1].path, std::filesystem::path("/abs/b.gguf"));
  EXPECT_EQ(plan->models[2].synth_arch, "llama3-1b");
  EXPECT_EQ(plan->models[2].synth_type, "bf16");
  EXPECT_EQ(plan->models[2].synth_seed, 7u);
  EXPECT_EQ(plan->batch_lists, (std::vector<std::vector<int>>{{1}, {8, 16}}));
  EXPECT_EQ(plan->settings.precisions, (std::vector<std::string>{"Q8_0", "Q4_K_M"}));
  EXPECT_EQ(plan->settings.trials, 3);
  EXPECT_EQ(plan->settings.min_window_s, 1.5);
  EXPECT_EQ(plan->settings.edges, "corrected");
  EXPECT_EQ(plan->settings.quality, false);
  EXPECT_FALSE(plan->all_gpus);
  EXPECT_EQ(plan->gpus, (std::vector<std::string>{"GPU-aaaa", "GPU-bbbb"}));
}

TEST(SweepPlan, DefaultsToEveryGpuAndOneBatchList) {
  auto plan = parse(R"({"models": ["a.gguf"]})");
  ASSERT_TRUE(plan) << plan.error().describe();
  EXPECT_TRUE(plan->all_gpus);
  EXPECT_EQ(plan->batch_lists, (std::vector<std::vector<int>>{{1}}));
  EXPECT_FALSE(plan->settings.trials.has_value());  // measure's own default
  auto flat = parse(R"({"models": ["a.gguf"], "batches": [1, 4]})");
  ASSERT_TRUE(flat);
  EXPECT_EQ(flat->batch_lists, (std::vector<std::vector<int>>{{1, 4}}));
}

TEST(SweepPlan, ErrorsNameTheField) {
  const std::pair<const char*, const char*> cases[] = {
      {R"([])", "(top level)"},
      {R"({})", "models: missing"},
      {R"({"models": []})", "models: must be a non-empty list"},
      {R"({"models": [3]})", "models[0]"},
      {R"({"models": [{"path": "a", "synth": "b"}]})", "models[0]: needs exactly one"},
      {R"({"models": [{"synth": "llama3-1b", "type": "q4"}]})", "models[0].type"},
      {R"({"models": [{"path": "a", "seed": 1}]})", "models[0]: \"type\" and \"seed\""},
      {R"({"models": [{"path": "a", "colour": 1}]})", "models[0].colour: unknown field"},
      {R"({"models": ["a"], "trails": 3})", "trails: unknown field"},
      {R"({"models": ["a"], "trials": 0})", "trials: must be a whole number from 1 to 1000"},
      {R"({"models": ["a"], "trials": 2.5})", "trials"},
      {R"({"models": ["a"], "batches": [1, 1]})", "batches[1]: batch 1 is listed twice"},
      {R"({"models": ["a"], "batches": [[1], [0]]})", "batches[1][0]"},
      {R"({"models": ["a"], "batches": []})", "batches"},
      {R"({"models": ["a"], "precisions": ["Q8_0,Q4_0"]})", "precisions[0]"},
      {R"({"models": ["a"], "baseline": "Q8_0"})", "baseline"},
      {R"({"models": ["a"], "window": {"min_s": -1}})", "window.min_s"},
      {R"({"models": ["a"], "window": {"mins": 1}})", "window.mins: unknown field"},
      {R"({"models": ["a"], "window": {"edges": "both"}})", "window.edges"},
      {R"({"models": ["a"], "quality": "no"})", "quality"},
      {R"({"models": ["a"], "measure_args": ["--out", "x"]})", "measure_args[0]: '--out' is set by the sweep"},
      {R"({"models": ["a"], "measure_args": ["--gpu=GPU-1"]})", "measure_args[0]: '--gpu'"},
      {R"({"models": ["a"], "gpus": "some"})", "gpus"},
      {R"({"models": ["a"], "gpus": ["0"]})", "gpus[0]: must be a GPU UUID"},
      {R"({"models": ["a"], "gpus": ["GPU-1", "GPU-1"]})", "gpus[1]: listed twice"},
  };
  for (const auto& [text, expected] : cases) {
    const std::string message = refusal(text);
    EXPECT_NE(message.find(expected), std::string::npos) << text << " → '" << message << "'";
    EXPECT_TRUE(message.starts_with("plan.json: ")) << message;
  }
}

TEST(SweepPlan, ReadPlanNamesTheFileOfBadJson) {
  auto plan = read_plan("/nonexistent/plan.json");
  ASSERT_FALSE(plan);
  EXPECT_NE(plan.error().describe().find("/nonexistent/plan.json"), std::string::npos);
}

TEST(SweepPlan, RoundTripsThroughItsFolderCopy) {
  auto plan = parse(R"({"models": ["a.gguf", {"synth": "qwen2-0.5b"}], "batches": [[1], [2, 4]], "trials": 2,
                        "window": {"min_s": 1}, "quality": false, "gpus": ["GPU-x"]})");
  ASSERT_TRUE(plan);
  auto again = parse_plan(plan_to_json(*plan), "copy", "/elsewhere");
  ASSERT_TRUE(again) << again.error().describe();
  EXPECT_EQ(plan_to_json(*again), plan_to_json(*plan));
  EXPECT_EQ(again->models[0].path, std::filesystem::path("/plans/a.gguf"));
}

TEST(SweepJobs, OneJobPerModelAndBatchListInPlanOrder) {
  auto plan = parse(R"({"models": ["a.gguf", {"synth": "llama3-8b"}], "batches": [[1], [8, 16]]})");
  ASSERT_TRUE(plan);
  const std::vector<Job> jobs = expand_jobs(*plan);
  ASSERT_EQ(jobs.size(), 4u);
  EXPECT_EQ(jobs[0].id, "000-a-b1");
  EXPECT_EQ(jobs[1].id, "001-a-b8-16");
  EXPECT_EQ(jobs[2].id, "002-llama3-8b-b1");
  EXPECT_EQ(jobs[3].id, "003-llama3-8b-b8-16");
  for (std::size_t i = 0; i < jobs.size(); ++i) EXPECT_EQ(jobs[i].index, i);
  EXPECT_EQ(jobs[3].batches, (std::vector<int>{8, 16}));
  EXPECT_EQ(job_paths("/s", jobs[2]).model, std::filesystem::path("/s/models/002-llama3-8b-b1.gguf"));
  EXPECT_EQ(job_paths("/s", jobs[0]).model, std::filesystem::path("/plans/a.gguf"));
}

TEST(SweepJobs, MeasureArgumentsCarryThePlanAndTheGpu) {
  auto plan = parse(R"({"models": ["a.gguf"], "batches": [2, 4], "precisions": ["Q8_0", "Q4_0"], "trials": 2,
                        "threads": 1, "window": {"min_s": 0.5}, "quality": false,
                        "measure_args": ["--prompt-lengths", "16"]})");
  ASSERT_TRUE(plan);
  const Job job = expand_jobs(*plan).front();
  const auto args = measure_arguments(*plan, job, job_paths("/s", job), "/cache", "GPU-abc");
  const std::vector<std::string> expected{"measure", "--model", "/plans/a.gguf", "--out", "/s/jobs/000-a-b2-4",
                                          "--batch", "2,4", "--no-progress", "--cache-dir", "/cache", "--gpu", "GPU-abc",
                                          "--precisions", "Q8_0,Q4_0", "--trials", "2", "--threads", "1",
                                          "--min-window", "0.5", "--no-quality", "--prompt-lengths", "16"};
  EXPECT_EQ(args, expected);
  const auto cpu = measure_arguments(*plan, job, job_paths("/s", job), "", "");
  EXPECT_EQ(std::count(cpu.begin(), cpu.end(), std::string("--gpu")), 0);
}

}  // namespace
}  // namespace ecocompute::sweep
