// `ecocompute sweep slurm` on a real single-node Slurm cluster (scripts/slurm_test_cluster.sh: Debian
// slurmctld + slurmd + munge, started and stopped here; skipped where they are not installed or this
// is not root): the array runs every job; an array task killed with kill -9 mid-job leaves its job
// unfinished, and a resubmission of the same script redoes only that job.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "support/sweep_folder.hpp"
#include "support/scratch_dir.hpp"

namespace {
namespace fs = std::filesystem;
using ecocompute::testing::slurp;
using nlohmann::json;

class SweepSlurmTest : public ecocompute::testing::ScratchDirTest {
 protected:
  void SetUp() override {
    ScratchDirTest::SetUp();
    const std::string start = "'" + script() + "' start '" + cluster().string() + "' > '" + (dir_ / "cluster.out").string() + "' 2>&1";
    const int status = std::system(start.c_str());
    const int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    if (code == 77) GTEST_SKIP() << "no single-node Slurm here: " << slurp(dir_ / "cluster.out");
    ASSERT_EQ(code, 0) << slurp(dir_ / "cluster.out");
    started_ = true;
  }
  void TearDown() override {
    if (started_) std::system(("'" + script() + "' stop '" + cluster().string() + "'").c_str());
    ScratchDirTest::TearDown();
  }

  static std::string script() { return std::string(ECOCOMPUTE_SOURCE_DIR) + "/scripts/slurm_test_cluster.sh"; }
  fs::path cluster() const { return dir_ / "cluster"; }
  fs::path sweep_dir() const { return dir_ / "sweep"; }

  // Runs a command with the cluster's configuration, no NVML and the shipped data; returns stdout.
  std::string run(const std::string& command, int* code = nullptr) const {
    const std::string line = "SLURM_CONF='" + (cluster() / "slurm.conf").string() +
                             "' ECOCOMPUTE_NVML_LIBRARY=/nonexistent/libnvidia-ml.so.1 ECOCOMPUTE_DATA_DIR='" +
                             std::string(ECOCOMPUTE_SOURCE_DIR) + "/data' " + command + " > '" + (dir_ / "out").string() +
                             "' 2> '" + (dir_ / "err").string() + "'";
    const int status = std::system(line.c_str());
    if (code != nullptr) *code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return slurp(dir_ / "out");
  }

  std::string submit() const {
    int code = -1;
    std::string id = run("sbatch --parsable '" + (sweep_dir() / "sweep.sbatch").string() + "'", &code);
    EXPECT_EQ(code, 0) << slurp(dir_ / "err");
    while (!id.empty() && (id.back() == '\n' || id.back() == ' ')) id.pop_back();
    return id;
  }

  // Waits (bounded, so a broken cluster cannot hang the suite) until the array has left the queue.
  bool wait_until_finished(const std::string& job) const {
    for (int i = 0; i < 1200; ++i) {
      if (run("squeue -h -j " + job).empty()) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(250));
    }
    return false;
  }

  std::vector<json> journal() const { return ecocompute::testing::read_journal(sweep_dir()); }

  std::map<std::string, std::string> done_reports() const { return ecocompute::testing::done_reports(sweep_dir()); }

  bool started_ = false;
};

TEST_F(SweepSlurmTest, ArrayTaskKilledMidJobIsRedoneByAResubmission) {
  const json plan = ecocompute::testing::fixture_sweep_plan();
  const fs::path plan_path = dir_ / "plan.json";
  std::ofstream(plan_path) << plan.dump(2);
  int code = -1;
  run("'" + std::string(ECOCOMPUTE_BINARY) + "' sweep slurm '" + plan_path.string() + "' --out '" + sweep_dir().string() +
          "' --gres ''",
      &code);
  ASSERT_EQ(code, 0) << slurp(dir_ / "err");
  const std::string first = submit();
  ASSERT_FALSE(first.empty());

  // Kill -9 the first array task that reaches its measure step: the `sweep task` process itself.
  std::string victim_job;
  long victim_owner = 0;
  for (int i = 0; i < 2400 && victim_owner == 0; ++i) {
    std::map<std::string, long> owners;
    for (const json& r : journal()) {
      if (r["event"] == "started") owners[r["job"]] = r["pid"].get<long>();
      if (r["event"] == "child" && r["step"] == "measure") {
        victim_job = r["job"];
        victim_owner = owners[victim_job];
        break;
      }
    }
    if (victim_owner == 0) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ASSERT_NE(victim_owner, 0) << slurp(sweep_dir() / "journal.jsonl");
  ASSERT_EQ(::kill(static_cast<pid_t>(victim_owner), SIGKILL), 0);
  ASSERT_TRUE(wait_until_finished(first));

  run("'" + std::string(ECOCOMPUTE_BINARY) + "' sweep status --json '" + sweep_dir().string() + "'", &code);
  const json status = json::parse(slurp(dir_ / "out"));
  std::map<std::string, std::string> states;
  for (const auto& job : status["jobs"]) states[job["id"]] = job["state"];
  EXPECT_EQ(states[victim_job], "interrupted") << status.dump(2);
  for (const auto& [job, state] : states) {
    if (job != victim_job) {
      EXPECT_EQ(state, "done") << job;
    }
  }
  const auto before = done_reports();

  const std::string second = submit();
  ASSERT_TRUE(wait_until_finished(second));
  const auto records = journal();
  std::map<std::string, int> done;
  for (const json& r : records) {
    if (r["event"] == "started") {
      EXPECT_EQ(done[r["job"]], 0) << "job " << r["job"] << " started after it was done";
    }
    if (r["event"] == "done") ++done[r["job"]];
  }
  ASSERT_EQ(done.size(), 3u) << slurp(sweep_dir() / "journal.jsonl");
  for (const auto& [job, count] : done) EXPECT_EQ(count, 1) << job;
  const auto after = done_reports();
  for (const auto& [path, bytes] : before) {
    ASSERT_TRUE(after.contains(path)) << path;
    EXPECT_EQ(after.at(path), bytes) << path;
  }
  EXPECT_TRUE(fs::exists(sweep_dir() / "jobs" / (victim_job + ".attempt-1") / "sweep-status.json"));
  // Each array task's slot is named after the array job and task.
  for (const json& r : records) {
    if (r["event"] == "started") {
      EXPECT_TRUE(r["slot"].get<std::string>().starts_with("slurm-")) << r.dump();
    }
  }
}

}  // namespace
