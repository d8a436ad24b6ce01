// Plan parsing: a full plan reads into every field, its design keys into the experiment options each
// job runs with; each kind of mistake is refused with a message naming the field.
#include <gtest/gtest.h>

#include "sweep/job.hpp"
#include "sweep/plan.hpp"
#include "util/defaults.hpp"

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
                        "quality": false, "prompt_lengths": [32], "trial_warmup": "change", "token_choice": "host",
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
  // The design keys are the experiment's options.
  const experiment::ExperimentOptions& s = plan->settings;
  EXPECT_EQ(s.design.candidates, (std::vector<std::string>{"Q8_0", "Q4_K_M"}));
  EXPECT_EQ(s.design.trials, 3);
  EXPECT_EQ(s.design.warmups, 1);
  EXPECT_EQ(s.design.tokens_per_iteration, 64);
  EXPECT_EQ(s.n_threads, 2);
  EXPECT_EQ(s.design.min_window.value, 1.5);
  EXPECT_EQ(s.design.idle_window.value, 2.0);
  EXPECT_TRUE(s.design.correct_edges);
  EXPECT_FALSE(s.quality);
  EXPECT_EQ(s.design.prompt.lengths_tokens, (std::vector<std::int64_t>{32}));
  EXPECT_EQ(s.design.trial_warmup, protocol::TrialWarmup::on_change);
  EXPECT_EQ(s.token_choice, engine::TokenChoice::host);
  EXPECT_FALSE(plan->design.contains("models"));
  EXPECT_EQ(plan->design["token_choice"], "host");
  EXPECT_FALSE(plan->all_gpus);
  EXPECT_EQ(plan->gpus, (std::vector<std::string>{"GPU-aaaa", "GPU-bbbb"}));
}

TEST(SweepPlan, DefaultsToEveryGpuAndOneBatchList) {
  auto plan = parse(R"({"models": ["a.gguf"]})");
  ASSERT_TRUE(plan) << plan.error().describe();
  EXPECT_TRUE(plan->all_gpus);
  EXPECT_EQ(plan->batch_lists, (std::vector<std::vector<int>>{{1}}));
  EXPECT_TRUE(plan->design.empty());
  EXPECT_EQ(plan->settings.design.trials, defaults::trials);  // measure's own default
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
      {R"({"models": ["a"], "measure_args": ["--prompt-lengths", "16"]})",
       "measure_args: is no longer read: every measure option is a design key of the plan itself, e.g. \"prompt_lengths\""},
      {R"({"models": ["a"], "trial_warmpu": "change"})", "trial_warmpu: unknown field"},
      {R"({"models": ["a"], "trial_warmup": "sometimes"})", "trial_warmup: must be \"every\" or \"change\""},
      {R"({"models": ["a"], "token_choice": 1})", "token_choice: must be \"device\" or \"host\""},
      {R"({"models": ["a"], "prompt_lengths": [16, 16]})", "prompt_lengths[1]: 16 is listed twice"},
      {R"({"models": ["a"], "precisions": ["Q9_9"]})", "precisions[0]"},
      {R"({"models": ["a"], "precisions": ["F16"]})", "precisions: F16 is the baseline"},
      {R"({"models": ["a"], "trials": 3, "min_trials": 5, "target_ci_pt": 1})", "min_trials: 5; with target_ci_pt"},
      {R"({"models": ["a"], "gpu": "GPU-1"})", "gpu: each job runs on one GPU of \"gpus\""},
      {R"({"models": ["a"], "out": "x"})", "out: each job writes into"},
      {R"({"models": [{"synth": "llama9-1t"}]})", "models[0].synth"},
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
                        "window": {"min_s": 1}, "quality": false, "seed": 18446744073709551615,
                        "order": "shuffled", "gpus": ["GPU-x"]})");
  ASSERT_TRUE(plan) << plan.error().describe();
  auto again = parse_plan(plan_to_json(*plan), "copy", "/elsewhere");
  ASSERT_TRUE(again) << again.error().describe();
  EXPECT_EQ(plan_to_json(*again), plan_to_json(*plan));
  EXPECT_EQ(again->models[0].path, std::filesystem::path("/plans/a.gguf"));
  EXPECT_EQ(again->settings.design.seed, std::uint64_t{18446744073709551615U});
  EXPECT_EQ(again->settings.design.order, protocol::ScheduleOrder::shuffled);
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

TEST(SweepJobs, JobExperimentIsThePlanDesignWithTheJobsPlaceAndGpu) {
  auto plan = parse(R"({"models": ["a.gguf"], "batches": [2, 4], "precisions": ["Q8_0", "Q4_0"], "trials": 2,
                        "threads": 1, "window": {"min_s": 0.5}, "quality": false, "prompt_lengths": [16],
                        "level_warmup_tokens": 4})");
  ASSERT_TRUE(plan) << plan.error().describe();
  const Job job = expand_jobs(*plan).front();
  const experiment::ExperimentOptions options = job_experiment(*plan, job, job_paths("/s", job), "/cache", "GPU-abc");
  EXPECT_EQ(options.design.model, std::filesystem::path("/plans/a.gguf"));
  EXPECT_EQ(options.out_dir, std::filesystem::path("/s/jobs/000-a-b2-4"));
  EXPECT_EQ(options.design.batches, (std::vector<int>{2, 4}));
  EXPECT_EQ(options.cache_dir, std::filesystem::path("/cache"));
  EXPECT_EQ(options.gpu, "GPU-abc");
  EXPECT_FALSE(options.progress_bar);
  EXPECT_EQ(options.design.candidates, (std::vector<std::string>{"Q8_0", "Q4_0"}));
  EXPECT_EQ(options.design.trials, 2);
  EXPECT_EQ(options.n_threads, 1);
  EXPECT_EQ(options.design.min_window.value, 0.5);
  EXPECT_FALSE(options.quality);
  EXPECT_EQ(options.design.prompt.lengths_tokens, (std::vector<std::int64_t>{16}));
  EXPECT_EQ(options.design.level_warmup_tokens, 4);
  EXPECT_TRUE(job_experiment(*plan, job, job_paths("/s", job), "", "").gpu.empty());
}

TEST(SweepJobs, AStepsChildIsNamedByItsJobNotByFlagsOfTheDesign) {
  const JobStepRequest request{"/s", "000-a-b2-4", JobStep::measure, "/cache", "GPU-abc"};
  EXPECT_EQ(job_step_arguments(request), (std::vector<std::string>{"sweep", "job", "/s", "--job", "000-a-b2-4", "--step",
                                                                   "measure", "--cache-dir", "/cache", "--gpu", "GPU-abc"}));
  const JobStepRequest cpu{"/s", "001-x", JobStep::synth, "", ""};
  EXPECT_EQ(job_step_arguments(cpu), (std::vector<std::string>{"sweep", "job", "/s", "--job", "001-x", "--step", "synth"}));
}

}  // namespace
}  // namespace ecocompute::sweep
