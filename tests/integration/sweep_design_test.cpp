// A sweep plan is an experiment design: its design keys reach each job's run (run.json and the
// reports), a synthetic model is written by its job without `ecocompute synth` flags, a plan that
// spells flags (measure_args) or an unknown key is refused naming it before anything runs, and every
// measure flag has its key (or the guide says why not).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "support/cli_run.hpp"
#include "support/scratch_dir.hpp"
#include "support/sweep_folder.hpp"

namespace {
namespace fs = std::filesystem;
using ecocompute::testing::slurp;
using nlohmann::json;

class SweepDesignTest : public ecocompute::testing::ScratchDirTest {
 protected:
  // No NVML (whatever the machine has) and the shipped data (its vocab files serve the synthetic shape).
  ecocompute::testing::CliOutcome ecocompute(const std::string& args) const {
    return ecocompute::testing::run_ecocompute("ECOCOMPUTE_NVML_LIBRARY=/nonexistent/libnvidia-ml.so.1 ECOCOMPUTE_DATA_DIR='" +
                                                   std::string(ECOCOMPUTE_SOURCE_DIR) + "/data'",
                                               args, dir_);
  }

  fs::path write_plan(const json& plan) const {
    const fs::path path = dir_ / "plan.json";
    std::ofstream(path, std::ios::trunc) << plan.dump(2);
    return path;
  }

  std::string run_args(const fs::path& plan) const {
    return "sweep run '" + plan.string() + "' --out '" + (dir_ / "sweep").string() + "' --slots 2 --cache-dir '" +
           (dir_ / "cache").string() + "'";
  }

  // The energy reports run.json of a job folder names.
  static std::vector<json> job_reports(const fs::path& folder) {
    std::vector<json> reports;
    const json run = json::parse(slurp(folder / "run.json"));
    for (const json& condition : run["conditions"]) {
      if (condition.contains("report") && condition["report"].is_string()) {
        reports.push_back(json::parse(slurp(folder / condition["report"].get<std::string>())));
      }
    }
    return reports;
  }
};

TEST_F(SweepDesignTest, DesignKeysReachEveryJobsRunAndReports) {
  json plan = ecocompute::testing::fixture_sweep_plan();
  plan["models"].push_back({{"synth", "llama3-tiny"}, {"seed", 3}});
  plan["batches"] = {{1}};
  plan["trial_warmup"] = "change";
  plan["token_choice"] = "host";
  plan["prompt_lengths"] = {12};
  const ecocompute::testing::CliOutcome run = ecocompute(run_args(write_plan(plan)));
  ASSERT_EQ(run.status, 0) << run.err;

  for (const std::string job : {"000-fixture-kjv-f16-b1", "001-llama3-tiny-b1"}) {
    const fs::path folder = dir_ / "sweep" / "jobs" / job;
    const json summary = json::parse(slurp(folder / "run.json"));
    EXPECT_EQ(summary["design"]["prompt_lengths_tokens"], json({12})) << job;
    const std::vector<json> reports = job_reports(folder);
    ASSERT_EQ(reports.size(), 2u) << job;
    bool skipped_warmup = false;
    for (const json& report : reports) {
      EXPECT_EQ(report["engine"]["token_choice"], "host") << job;
      for (const json& trial : report["trials"]) {
        skipped_warmup = skipped_warmup || trial.value("warmup", "").starts_with("none (the trial before ran the same");
      }
    }
    // Alternating blocks B Q | Q B: with warm-ups on a change only, the second block's first trial has none.
    EXPECT_TRUE(skipped_warmup) << job;
    EXPECT_FALSE(slurp(folder / "sweep-measure.log").empty()) << job;
  }
  // The synthetic job's model was written by its synth step, then removed once the job was done.
  bool synth_step = false;
  for (const json& r : ecocompute::testing::read_journal(dir_ / "sweep")) {
    synth_step = synth_step || (r["event"] == "child" && r["step"] == "synth" && r["job"] == "001-llama3-tiny-b1");
  }
  EXPECT_TRUE(synth_step);
  EXPECT_FALSE(fs::exists(dir_ / "sweep" / "models" / "001-llama3-tiny-b1.gguf"));
  const json tiny = job_reports(dir_ / "sweep" / "jobs" / "001-llama3-tiny-b1").front();
  EXPECT_EQ(tiny["workload"]["weights"], "synthetic") << tiny["workload"].dump();
}

TEST_F(SweepDesignTest, FlagsAndUnknownKeysAreRefusedNamingThemBeforeAnythingRuns) {
  json plan = ecocompute::testing::fixture_sweep_plan();
  plan["measure_args"] = {"--prompt-lengths", "128"};
  const ecocompute::testing::CliOutcome flags = ecocompute(run_args(write_plan(plan)));
  EXPECT_EQ(flags.status, 2);
  EXPECT_NE(flags.err.find("measure_args: is no longer read"), std::string::npos) << flags.err;
  EXPECT_NE(flags.err.find("\"prompt_lengths\": [128, 1024] for --prompt-lengths 128,1024"), std::string::npos) << flags.err;

  plan.erase("measure_args");
  plan["token_choise"] = "host";
  const ecocompute::testing::CliOutcome unknown = ecocompute(run_args(write_plan(plan)));
  EXPECT_EQ(unknown.status, 2);
  EXPECT_NE(unknown.err.find("plan.json: token_choise: unknown field"), std::string::npos) << unknown.err;

  plan.erase("token_choise");
  plan["trial_warmup"] = "always";
  const ecocompute::testing::CliOutcome value = ecocompute(run_args(write_plan(plan)));
  EXPECT_EQ(value.status, 2);
  EXPECT_NE(value.err.find("trial_warmup: must be \"every\" or \"change\""), std::string::npos) << value.err;
  EXPECT_FALSE(fs::exists(dir_ / "sweep" / "journal.jsonl"));
}

TEST_F(SweepDesignTest, AJobStepNamesAJobOfTheFolder) {
  const fs::path plan = write_plan(ecocompute::testing::fixture_sweep_plan());
  ASSERT_EQ(ecocompute("sweep slurm '" + plan.string() + "' --out '" + (dir_ / "sweep").string() + "'").status, 0);
  const ecocompute::testing::CliOutcome step =
      ecocompute("sweep job '" + (dir_ / "sweep").string() + "' --job 009-nothing --step measure");
  EXPECT_EQ(step.status, 2);
  EXPECT_NE(step.err.find("the plan has no job '009-nothing'"), std::string::npos) << step.err;
}

// A plan has a key for every measure option (or docs/sweep.md says why not): each long flag
// `measure --help` lists is named in the guide, as a key's flag or among the flags with no key.
TEST_F(SweepDesignTest, EveryMeasureFlagIsAKeyOrSaidNotToBe) {
  const ecocompute::testing::CliOutcome help = ecocompute("measure --help");
  ASSERT_EQ(help.status, 0) << help.err;
  const std::string guide = slurp(fs::path(ECOCOMPUTE_SOURCE_DIR) / "docs" / "sweep.md");
  ASSERT_FALSE(guide.empty());
  static const std::regex option_line(R"(^\s+(?:-\w,)?(--[a-z][a-z-]*))");
  std::istringstream lines(help.out);
  std::size_t flags = 0;
  for (std::string line; std::getline(lines, line);) {
    std::smatch m;
    if (!std::regex_search(line, m, option_line) || m[1] == "--help") continue;
    ++flags;
    const std::string flag = m[1];
    const bool named = guide.find("`" + flag + "`") != std::string::npos || guide.find("`" + flag + " ") != std::string::npos ||
                       guide.find(", " + flag + "`") != std::string::npos;
    EXPECT_TRUE(named) << flag << " of `measure` is neither a design key's flag nor named as having no key in docs/sweep.md";
  }
  EXPECT_GT(flags, 30u) << help.out;
}

}  // namespace
