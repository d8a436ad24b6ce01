// `ecocompute measure` refuses bad input before any work, writes its reports where it was told, names
// precisions as the table spells them, and stops at Ctrl-C at once: the trial it interrupts is
// `cancelled` (its unfinished window discarded), the finished trials are written, exit 130; a second
// Ctrl-C quits at once.
#include <gtest/gtest.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "support/scratch_dir.hpp"
#include "support/data_paths.hpp"

extern char** environ;

namespace {
namespace fs = std::filesystem;
using ecocompute::testing::slurp;

class MeasureInputTest : public ecocompute::testing::ScratchDirTest {
 protected:

  static std::string fixture() { return ecocompute::testing::kFixtureModel.string(); }

  // The binary with no NVML, the shipped data, stderr kept: the exit status (-1 when killed).
  int run(const std::string& args, std::string* err = nullptr) const {
    const std::string command = "ECOCOMPUTE_NVML_LIBRARY=/nonexistent/libnvidia-ml.so.1 ECOCOMPUTE_DATA_DIR='" +
                                std::string(ECOCOMPUTE_SOURCE_DIR) + "/data' '" + ECOCOMPUTE_BINARY + "' " + args +
                                " > /dev/null 2> '" + (dir_ / "stderr").string() + "'";
    const int status = std::system(command.c_str());
    if (err != nullptr) *err = slurp(dir_ / "stderr");
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }

  // Starts `measure` in the background with stderr to a file; returns its pid.
  pid_t start(const std::vector<std::string>& args, const fs::path& err) const {
    std::vector<std::string> argv_text{ECOCOMPUTE_BINARY, "measure"};
    argv_text.insert(argv_text.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (std::string& a : argv_text) argv.push_back(a.data());
    argv.push_back(nullptr);
    std::vector<std::string> env_text{"ECOCOMPUTE_NVML_LIBRARY=/nonexistent/libnvidia-ml.so.1",
                                      "ECOCOMPUTE_DATA_DIR=" + std::string(ECOCOMPUTE_SOURCE_DIR) + "/data"};
    for (char** e = environ; *e != nullptr; ++e) env_text.emplace_back(*e);
    std::vector<char*> envp;
    for (std::string& e : env_text) envp.push_back(e.data());
    envp.push_back(nullptr);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    pid_t pid = -1;
    EXPECT_EQ(posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), envp.data()), 0);
    posix_spawn_file_actions_destroy(&actions);
    return pid;
  }

  // Waits until `text` appears in the file (at most 10 minutes: a slow machine, not a hang).
  static bool wait_for(const fs::path& file, const std::string& text) {
    const auto until = std::chrono::steady_clock::now() + std::chrono::minutes(10);
    while (std::chrono::steady_clock::now() < until) {
      if (slurp(file).find(text) != std::string::npos) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return false;
  }

  // One engine thread, like MeasureCliTest: parallel tests on two cores must not spin against each other.
  std::vector<std::string> quick(const std::string& out) const {
    return {"-m", fixture(), "-p", "Q8_0", "-k", "3", "--warmups", "1", "--min-window", "4", "--min-prefill-window",
            "0.2", "--idle-window", "0.2", "--threads", "1", "--no-quality", "--cache-dir", (dir_ / "cache").string(),
            "--out", out};
  }

};

TEST_F(MeasureInputTest, BadFlagValuesAreRefusedBeforeAnythingRuns) {
  const std::string base = "measure -m '" + fixture() + "' --cache-dir '" + (dir_ / "cache").string() +
                           "' --out '" + (dir_ / "out").string() + "' ";
  const std::vector<std::pair<std::string, std::string>> cases{
      {"-p ,, -k 3", "--precisions: ',,' has an empty item"},
      {"-p ''", "--precisions: no precision given"},
      {"-p Q8_0,,Q4_0", "--precisions: 'Q8_0,,Q4_0' has an empty item"},
      {"--seed -1", "--seed: '-1' is not a whole number"},
      {"--seed 18446744073709551616", "--seed: '18446744073709551616'"},
      {"--min-window nan", "--min-window: 'nan' is not a finite number"},
      {"--idle-window inf", "'inf' is not a finite number"},
      {"--prompt-lengths 16,0", "--prompt-lengths: '0' is not a token count"},
      {"--batch 1,0", "--batch: '0' is not a batch size from 1 to 512"},
      {"--batch 513", "--batch: '513' is not a batch size from 1 to 512"},
      {"--batch 4x", "--batch: '4x' is not a batch size"},
      {"--batch 4,4", "--batch: 4 is listed twice"},
      {"--batch 1,,4", "--batch: '1,,4' has an empty item"},
      {"-p NF4", "published (transformers/bitsandbytes) format name"},
      {"--edges trace", "--edges: trace not in {counter,corrected}"},
  };
  for (const auto& [flags, message] : cases) {
    std::string err;
    EXPECT_EQ(run(base + flags, &err), 2) << flags << ": " << err;
    EXPECT_NE(err.find(message), std::string::npos) << flags << ": " << err;
    EXPECT_FALSE(fs::exists(dir_ / "cache")) << flags << ": work began";
    EXPECT_FALSE(fs::exists(dir_ / "out" / "run.json")) << flags;
  }
}

TEST_F(MeasureInputTest, AnOutputFolderThatCannotBeWrittenIsFoundBeforeTheFirstWindow) {
  std::ofstream(dir_ / "taken") << "a file, not a folder";
  for (const fs::path& out : {dir_ / "taken", dir_ / "taken" / "below"}) {
    std::string err;
    EXPECT_EQ(run("measure -m '" + fixture() + "' --cache-dir '" + (dir_ / "cache").string() + "' --out '" +
                  out.string() + "'", &err), 2) << err;
    EXPECT_NE(err.find("output folder " + out.string()), std::string::npos) << err;
    EXPECT_FALSE(fs::exists(dir_ / "cache")) << "quantization began before the folder was checked";
  }
}

TEST_F(MeasureInputTest, PrecisionNamesAreNormalisedAndWindowFlagsHonouredWithoutAnEnergySource) {
  std::string err;
  ASSERT_EQ(run("measure -m '" + fixture() + "' -p q8_0 --baseline f16 -k 1 --warmups 1 --min-window 0.5 "
                "--min-prefill-window 0.2 --idle-window 0.2 --threads 1 --no-quality --no-progress --cache-dir '" +
                (dir_ / "cache").string() + "' --out '" + (dir_ / "out").string() + "'", &err), 0) << err;
  EXPECT_TRUE(fs::exists(dir_ / "out" / "energy-Q8_0.json"));
  EXPECT_FALSE(fs::exists(dir_ / "out" / "energy-q8_0.json"));
  const auto report = nlohmann::json::parse(slurp(dir_ / "out" / "energy-Q8_0.json"));
  EXPECT_EQ(report["workload"]["precision"], "Q8_0");
  EXPECT_EQ(report["measurement"]["baseline_precision"], "F16");
  // No energy source: the 0.5-s window is what was asked for (a counter's 0.1-s edges would need 20 s).
  EXPECT_DOUBLE_EQ(report["measurement"]["min_decode_window_s"].get<double>(), 0.5);
  EXPECT_LT(report["results"]["decode"]["duration_s"].get<double>(), 10.0);
}

TEST_F(MeasureInputTest, CtrlCStopsAtOnceAndWritesTheFinishedTrials) {
  const fs::path err = dir_ / "interrupted.err";
  const pid_t pid = start(quick((dir_ / "out").string()), err);
  // After the first trial has finished (its 4-s decode window), interrupt the second mid-window.
  ASSERT_TRUE(wait_for(err, "trial 2/6")) << slurp(err);
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  const auto sent = std::chrono::steady_clock::now();
  ASSERT_EQ(::kill(pid, SIGINT), 0);
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  const double stop_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - sent).count();
  RecordProperty("seconds_from_ctrl_c_to_exit", std::to_string(stop_s));
  ASSERT_TRUE(WIFEXITED(status)) << slurp(err);
  EXPECT_EQ(WEXITSTATUS(status), 130) << slurp(err);
  const std::string log = slurp(err);
  EXPECT_NE(log.find("interrupted: stopping now"), std::string::npos) << log;

  const auto summary = nlohmann::json::parse(slurp(dir_ / "out" / "run.json"));
  EXPECT_TRUE(summary["cancelled"].get<bool>());
  EXPECT_EQ(summary["trials"][0]["status"], "ok");
  // The trial Ctrl-C fell into was not waited for: it is cancelled, its window discarded.
  EXPECT_EQ(summary["trials"][1]["status"], "cancelled") << summary["trials"][1].dump();
  for (std::size_t i = 2; i < summary["trials"].size(); ++i) EXPECT_EQ(summary["trials"][i]["status"], "not_run");
  const auto baseline = nlohmann::json::parse(slurp(dir_ / "out" / "energy-F16.json"));
  EXPECT_EQ(baseline["statistics"]["n_trials"], 1);
  EXPECT_EQ(baseline["statistics"]["n_failed"], 0);  // interrupted is not failed
  const auto q8 = nlohmann::json::parse(slurp(dir_ / "out" / "energy-Q8_0.json"));
  EXPECT_EQ(q8["statistics"]["n_cancelled"], 3);
}

TEST_F(MeasureInputTest, ASecondCtrlCQuitsAtOnce) {
  const fs::path err = dir_ / "twice.err";
  const pid_t pid = start(quick((dir_ / "out2").string()), err);
  ASSERT_TRUE(wait_for(err, "trial 1/6")) << slurp(err);
  // The first interrupt stops the run within a step, often before a second could arrive: deliver two
  // at once (SIGINT, then SIGTERM, which the same handler takes) while the process is stopped.
  ASSERT_EQ(::kill(pid, SIGSTOP), 0);
  ASSERT_EQ(::kill(pid, SIGINT), 0);
  ASSERT_EQ(::kill(pid, SIGTERM), 0);
  ASSERT_EQ(::kill(pid, SIGCONT), 0);
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 130);
  const std::string log = slurp(err);
  EXPECT_NE(log.find("interrupted: stopping now"), std::string::npos) << log;
  EXPECT_NE(log.find("interrupted again: quitting now"), std::string::npos) << log;
  EXPECT_FALSE(fs::exists(dir_ / "out2" / "run.json"));  // quit at once: nothing more written
}

TEST_F(MeasureInputTest, OneStopRequestDeliveredTwiceIsOneRequest) {
  // `timeout` sends its TERM to the process and again to its process group: the run must still stop
  // gracefully and write what finished.
  const fs::path err = dir_ / "term.err";
  const pid_t pid = start(quick((dir_ / "out3").string()), err);
  ASSERT_TRUE(wait_for(err, "trial 2/6")) << slurp(err);
  ASSERT_EQ(::kill(pid, SIGTERM), 0);
  // Back to back the two often merge into one pending signal; the second may also come after the
  // handler ran for the first (as on the H200 in a sweep): sent after the acknowledgement, it must
  // still not quit.
  ASSERT_TRUE(wait_for(err, "interrupted: stopping now")) << slurp(err);
  ::kill(pid, SIGTERM);  // may find the process gone already
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 130);
  const std::string log = slurp(err);
  EXPECT_EQ(log.find("interrupted again"), std::string::npos) << log;
  const auto summary = nlohmann::json::parse(slurp(dir_ / "out3" / "run.json"));
  EXPECT_TRUE(summary["cancelled"].get<bool>());
  EXPECT_EQ(summary["trials"][0]["status"], "ok");
}

TEST_F(MeasureInputTest, ValidateSaysARunSummaryIsOne) {
  std::string err;
  const std::string golden = std::string(ECOCOMPUTE_SOURCE_DIR) + "/tests/golden/energy/run.json";
  const std::string command = "validate '" + golden + "' > '" + (dir_ / "stdout").string() + "'";
  const int status = std::system(("'" + std::string(ECOCOMPUTE_BINARY) + "' " + command).c_str());
  EXPECT_EQ(WEXITSTATUS(status), 0);
  EXPECT_NE(slurp(dir_ / "stdout").find("a run summary (ecocompute-run/1.0"), std::string::npos)
      << slurp(dir_ / "stdout");
}

TEST_F(MeasureInputTest, ValidateSaysAServingSweepSummaryIsOneAndChecksIt) {
  const auto run = [&](const std::string& file) {
    const std::string command = "'" + std::string(ECOCOMPUTE_BINARY) + "' validate '" + file + "' > '" +
                                (dir_ / "stdout").string() + "' 2>&1";
    return WEXITSTATUS(std::system(command.c_str()));
  };
  const std::string shipped =
      std::string(ECOCOMPUTE_SOURCE_DIR) + "/data/sessions/h200-2026-12-02-serve-llama3-8b-c8-k10/sweep/sweep.json";
  EXPECT_EQ(run(shipped), 0) << slurp(dir_ / "stdout");
  EXPECT_NE(slurp(dir_ / "stdout").find("a serving sweep summary (ecocompute-serving-sweep/1, run 20261202T030847Z)"),
            std::string::npos)
      << slurp(dir_ / "stdout");
  // One without its levels is refused, and the message names what is missing.
  auto broken = nlohmann::json::parse(slurp(shipped));
  broken.erase("levels");
  const auto path = dir_ / "sweep.json";
  std::ofstream(path) << broken.dump();
  EXPECT_EQ(run(path.string()), 2);
  EXPECT_NE(slurp(dir_ / "stdout").find("missing levels"), std::string::npos) << slurp(dir_ / "stdout");
}

}  // namespace
