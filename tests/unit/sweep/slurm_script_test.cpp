// The sbatch script: one array task per job, the GPU request, the task command, quoting.
#include <gtest/gtest.h>

#include "sweep/job.hpp"
#include "sweep/slurm_script.hpp"

namespace ecocompute::sweep {
namespace {

SweepPlan three_jobs() {
  auto plan = parse_plan(Json::parse(R"({"name": "fleet", "models": ["a.gguf", "b.gguf", "c.gguf"]})"), "p", "/plans");
  EXPECT_TRUE(plan);
  return *plan;
}

TEST(SweepSlurmScript, OneArrayTaskPerJob) {
  const SweepPlan plan = three_jobs();
  SlurmOptions options;
  options.plan = "/plans/fleet.json";
  options.dir = "/shared/sweep";
  options.binary = "/opt/ecocompute/bin/ecocompute";
  options.partition = "gpu";
  options.time_limit = "02:00:00";
  options.post_url = "http://store:8080";
  auto script = slurm_script(plan, expand_jobs(plan).size(), options);
  ASSERT_TRUE(script) << script.error().describe();
  EXPECT_TRUE(script->starts_with("#!/bin/bash\n"));
  EXPECT_NE(script->find("#SBATCH --array=0-2\n"), std::string::npos) << *script;
  EXPECT_NE(script->find("#SBATCH --gres=gpu:1\n"), std::string::npos);
  EXPECT_NE(script->find("#SBATCH --partition=gpu\n"), std::string::npos);
  EXPECT_NE(script->find("#SBATCH --time=02:00:00\n"), std::string::npos);
  EXPECT_NE(script->find("#SBATCH --job-name=ecocompute-fleet\n"), std::string::npos);
  EXPECT_NE(script->find("#SBATCH --output=/shared/sweep/slurm/%A_%a.out\n"), std::string::npos);
  EXPECT_NE(script->find("exec '/opt/ecocompute/bin/ecocompute' sweep task '/plans/fleet.json' --out '/shared/sweep' "
                         "--index \"$SLURM_ARRAY_TASK_ID\" --post 'http://store:8080'\n"),
            std::string::npos)
      << *script;
}

TEST(SweepSlurmScript, OptionalDirectivesAreLeftOut) {
  const SweepPlan plan = three_jobs();
  SlurmOptions options;
  options.plan = "/p.json";
  options.dir = "/s";
  options.binary = "/b";
  options.gres.clear();
  options.max_parallel = 2;
  auto script = slurm_script(plan, 3, options);
  ASSERT_TRUE(script);
  EXPECT_EQ(script->find("--gres"), std::string::npos);
  EXPECT_EQ(script->find("--partition"), std::string::npos);
  EXPECT_EQ(script->find("--post"), std::string::npos);
  EXPECT_NE(script->find("#SBATCH --array=0-2%2\n"), std::string::npos);
}

TEST(SweepSlurmScript, RefusesWhatSlurmDirectivesCannotCarry) {
  const SweepPlan plan = three_jobs();
  SlurmOptions options;
  options.plan = "/p.json";
  options.dir = "/s";
  options.binary = "/b";
  options.partition = "gpu a";
  auto script = slurm_script(plan, 3, options);
  ASSERT_FALSE(script);
  EXPECT_NE(script.error().message().find("--partition"), std::string::npos);
  options.partition.clear();
  EXPECT_FALSE(slurm_script(plan, 0, options));
}

TEST(SweepSlurmScript, QuotesPathsForTheShell) {
  EXPECT_EQ(shell_quote("/a b/it's"), "'/a b/it'\\''s'");
  const SweepPlan plan = three_jobs();
  SlurmOptions options;
  options.plan = "/my plans/p.json";
  options.dir = "/s";
  options.binary = "/b";
  auto script = slurm_script(plan, 3, options);
  ASSERT_TRUE(script);
  EXPECT_NE(script->find("'/my plans/p.json'"), std::string::npos);
}

}  // namespace
}  // namespace ecocompute::sweep
