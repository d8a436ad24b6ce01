// End-to-end tests of `ecocompute measure` on the trained fixture (CPU engine): a good run writes
// validated reports with a quality block; bad input gets its exit code and a message naming it.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "support/scratch_dir.hpp"
#include "support/data_paths.hpp"

namespace {
namespace fs = std::filesystem;
using ecocompute::testing::slurp;

struct MeasureOutcome {
  int status = -1;
  std::string out;
  std::string err;
};

class MeasureCliTest : public ecocompute::testing::ScratchDirTest {
 protected:

  // Runs the binary with no NVML (whatever the machine has) and the shipped data; keeps both streams.
  MeasureOutcome ecocompute(const std::string& args) const {
    const std::string command = "ECOCOMPUTE_NVML_LIBRARY=/nonexistent/libnvidia-ml.so.1 ECOCOMPUTE_DATA_DIR='" +
                                std::string(ECOCOMPUTE_SOURCE_DIR) + "/data' '" + ECOCOMPUTE_BINARY + "' " + args +
                                " > '" + (dir_ / "stdout").string() + "' 2> '" + (dir_ / "stderr").string() + "'";
    MeasureOutcome outcome;
    const int status = std::system(command.c_str());
    outcome.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    outcome.out = slurp(dir_ / "stdout");
    outcome.err = slurp(dir_ / "stderr");
    return outcome;
  }

  static std::string fixture() { return ecocompute::testing::kFixtureModel.string(); }

  // Short windows: this machine has no GPU counter whose 100-ms edges need 20-s windows. One engine
  // thread: ctest runs two tests at once on CI's two cores, and llama.cpp's workers spin at barriers, so
  // two 2-thread runs there slow each other from seconds to many minutes.
  std::string fast_flags() const {
    return " -k 2 --warmups 1 --min-window 1 --min-prefill-window 0.5 --idle-window 0.5 --threads 1 --no-progress"
           " --quality-max-tokens 3000 --cache-dir '" + (dir_ / "cache").string() + "' --out '" + (dir_ / "out").string() + "'";
  }

};

TEST_F(MeasureCliTest, FixtureRunWritesValidatedReportsWithQuality) {
  const MeasureOutcome run = ecocompute("measure -m '" + fixture() + "' -p Q8_0,Q4_K_M" + fast_flags());
  ASSERT_EQ(run.status, 0) << run.err;
  // The verdict table names every precision.
  EXPECT_NE(run.out.find("F16"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("Q8_0"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("Q4_K_M"), std::string::npos) << run.out;

  for (const char* name : {"energy-F16.json", "energy-Q8_0.json", "energy-Q4_K_M.json", "run.json"}) {
    EXPECT_TRUE(fs::exists(dir_ / "out" / name)) << name;
  }
  const MeasureOutcome valid = ecocompute("validate '" + (dir_ / "out" / "energy-F16.json").string() + "' '" +
                                   (dir_ / "out" / "energy-Q8_0.json").string() + "' '" +
                                   (dir_ / "out" / "energy-Q4_K_M.json").string() + "'");
  EXPECT_EQ(valid.status, 0) << valid.out << valid.err;

  const auto q8 = nlohmann::json::parse(slurp(dir_ / "out" / "energy-Q8_0.json"));
  const auto q4 = nlohmann::json::parse(slurp(dir_ / "out" / "energy-Q4_K_M.json"));
  EXPECT_EQ(q8["workload"]["weights"], "trained-fixture");
  EXPECT_EQ(q8["workload"]["precision"], "Q8_0");
  EXPECT_EQ(q8["statistics"]["n_trials"], 2);
  // No NVML and (on CI machines) no RAPL: energy is unavailable, never made up; throughput is measured.
  if (q8["measurement_source"] == "none") {
    EXPECT_EQ(q8["results"]["basis"], "unavailable");
    EXPECT_TRUE(q8["results"]["energy_per_token_mj"].is_null());
  } else {
    EXPECT_EQ(q8["measurement_source"], "rapl");
  }
  EXPECT_GT(q8["results"]["throughput_tokens_per_s"].get<double>(), 0.0);
  // Same weights, same tokens: quantization costs quality, Q4_K_M more than Q8_0.
  ASSERT_TRUE(q8.contains("quality")) << q8.dump(2);
  const double ppl = q8["quality"]["fp16_value"].get<double>();
  EXPECT_LT(ppl, 1024.0 / 4);  // far below the 1024-piece vocabulary
  const double dppl8 = q8["quality"]["delta_vs_fp16_pct"].get<double>();
  const double dppl4 = q4["quality"]["delta_vs_fp16_pct"].get<double>();
  EXPECT_GT(dppl8, 0.0);
  EXPECT_GT(dppl4, dppl8);
  EXPECT_GT(q4["quality"]["kld"].get<double>(), q8["quality"]["kld"].get<double>());

  const auto summary = nlohmann::json::parse(slurp(dir_ / "out" / "run.json"));
  ASSERT_EQ(summary["trials"].size(), 6u);  // 3 precisions × k = 2, every one listed
  for (const auto& trial : summary["trials"]) EXPECT_EQ(trial["status"], "ok") << trial.dump();
}

TEST_F(MeasureCliTest, BatchLevelsWriteOneReportEachPairedAtTheirOwnBatch) {
  const MeasureOutcome run = ecocompute("measure -m '" + fixture() + "' -p Q8_0 --batch 1,2 --tokens 16 --iterations 1 --no-quality" +
                                 fast_flags());
  ASSERT_EQ(run.status, 0) << run.err;
  // Batch 1 keeps the plain name; batch 2 adds -b2.
  for (const char* name : {"energy-F16.json", "energy-Q8_0.json", "energy-F16-b2.json", "energy-Q8_0-b2.json"}) {
    ASSERT_TRUE(fs::exists(dir_ / "out" / name)) << name;
  }
  const MeasureOutcome valid = ecocompute("validate '" + (dir_ / "out" / "energy-Q8_0.json").string() + "' '" +
                                   (dir_ / "out" / "energy-Q8_0-b2.json").string() + "'");
  EXPECT_EQ(valid.status, 0) << valid.out << valid.err;

  const auto b1 = nlohmann::json::parse(slurp(dir_ / "out" / "energy-Q8_0.json"));
  const auto b2 = nlohmann::json::parse(slurp(dir_ / "out" / "energy-Q8_0-b2.json"));
  EXPECT_EQ(b1["workload"]["batch_size"], 1);
  EXPECT_EQ(b1["scenario"], "SingleStream");
  EXPECT_EQ(b2["workload"]["batch_size"], 2);
  EXPECT_EQ(b2["scenario"], "Offline");
  EXPECT_NE(b2["scenario_note"].get<std::string>().find("Batch 2"), std::string::npos);
  // Both sequences' tokens count: an iteration generates twice the tokens at batch 2. Each batch level
  // sizes its own windows, so the iterations per window may differ between the levels.
  const auto tokens_per_iteration = [](const nlohmann::json& report) {
    return report["results"]["tokens_generated"].get<std::int64_t>() /
           (report["measurement"]["iterations"].get<std::int64_t>() * report["statistics"]["n_trials"].get<std::int64_t>());
  };
  EXPECT_EQ(tokens_per_iteration(b1), 16);
  EXPECT_EQ(tokens_per_iteration(b2), 2 * 16);

  const auto summary = nlohmann::json::parse(slurp(dir_ / "out" / "run.json"));
  std::vector<std::string> labels;
  for (const auto& condition : summary["conditions"]) labels.push_back(condition["label"].get<std::string>());
  EXPECT_EQ(labels, (std::vector<std::string>{"F16/b1", "F16/b2", "Q8_0/b1", "Q8_0/b2"}));
}

TEST_F(MeasureCliTest, TruncatedModelIsBadInputNamingTheFile) {
  const fs::path broken = dir_ / "broken.gguf";
  {
    const std::string bytes = slurp(fixture());
    std::ofstream(broken, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size() / 2));
  }
  const MeasureOutcome run = ecocompute("measure -m '" + broken.string() + "' -p Q8_0" + fast_flags());
  EXPECT_EQ(run.status, 2) << run.err;
  EXPECT_NE(run.err.find("broken.gguf"), std::string::npos) << run.err;
  EXPECT_FALSE(fs::exists(dir_ / "out" / "run.json"));
}

TEST_F(MeasureCliTest, UnknownPrecisionIsAUsageError) {
  const MeasureOutcome run = ecocompute("measure -m '" + fixture() + "' -p Q9_X" + fast_flags());
  EXPECT_EQ(run.status, 2) << run.err;
  EXPECT_NE(run.err.find("Q9_X"), std::string::npos) << run.err;
}

TEST_F(MeasureCliTest, MissingModelIsAnEnvironmentError) {
  const MeasureOutcome run = ecocompute("measure -m '" + (dir_ / "nope.gguf").string() + "'" + fast_flags());
  EXPECT_EQ(run.status, 3) << run.err;  // README: 3 = environment unusable … model missing
  EXPECT_NE(run.err.find("nope.gguf"), std::string::npos) << run.err;
}

}  // namespace
