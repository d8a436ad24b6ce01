// End-to-end tests of `ecocompute sweep` on the trained fixture with CPU slots: a 2-slot sweep runs
// every job once and collects it; kill -9 of a worker's measure child and of the coordinator lose no
// finished report and run no job twice after the resume; `sweep task` runs one job by index.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "support/sweep_folder.hpp"
#include "support/cli_run.hpp"
#include "support/postgres_schema.hpp"
#include "support/scratch_dir.hpp"

namespace {
namespace fs = std::filesystem;
using ecocompute::testing::slurp;
using nlohmann::json;

using Outcome = ecocompute::testing::CliOutcome;

class SweepCliTest : public ecocompute::testing::ScratchDirTest {
 protected:
  // No NVML (whatever the machine has) and the shipped data.
  std::string environment() const {
    return "ECOCOMPUTE_NVML_LIBRARY=/nonexistent/libnvidia-ml.so.1 ECOCOMPUTE_DATA_DIR='" +
           std::string(ECOCOMPUTE_SOURCE_DIR) + "/data'";
  }

  Outcome ecocompute(const std::string& args) const { return ecocompute::testing::run_ecocompute(environment(), args, dir_); }

  void expect_task_posts_to_serve(const std::string& db);

  // Starts the binary in the background (exec'd by the shell, so the pid is the binary's own).
  pid_t start(const std::string& args) const {
    const std::string command = "exec env " + environment() + " '" + ECOCOMPUTE_BINARY + "' " + args + " > '" +
                                (dir_ / "bg.stdout").string() + "' 2> '" + (dir_ / "bg.stderr").string() + "'";
    const pid_t pid = ::fork();
    if (pid == 0) {
      ::execl("/bin/sh", "sh", "-c", command.c_str(), static_cast<char*>(nullptr));
      ::_exit(127);
    }
    return pid;
  }

  // Starts `ecocompute serve` on a free port with `args` and waits (bounded) for the port it writes;
  // the port is empty when the server did not come up.
  std::pair<pid_t, std::string> start_serve(const std::string& args) const {
    const fs::path port_file = dir_ / "port";
    const pid_t server = start("serve --port 0 --port-file '" + port_file.string() + "' " + args);
    std::string port;
    for (int i = 0; i < 600 && port.empty(); ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      port = slurp(port_file);
      while (!port.empty() && (port.back() == '\n' || port.back() == ' ')) port.pop_back();
    }
    return {server, port};
  }

  static int wait_exit(pid_t pid) {
    int status = 0;
    ::waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -WTERMSIG(status);
  }

  // The quantization cache is shared by all tests' jobs.
  fs::path write_plan() const {
    const json plan = ecocompute::testing::fixture_sweep_plan();
    const fs::path path = dir_ / "plan.json";
    std::ofstream(path) << plan.dump(2);
    return path;
  }

  fs::path sweep_dir() const { return dir_ / "sweep"; }
  std::string cache_flag() const { return " --cache-dir '" + (dir_ / "cache").string() + "'"; }

  std::vector<json> journal() const { return ecocompute::testing::read_journal(sweep_dir()); }

  // Waits (bounded) until `ready` holds for the journal; the bound only keeps a broken build from hanging.
  template <typename Predicate>
  bool wait_for_journal(Predicate ready) const {
    for (int i = 0; i < 6000; ++i) {
      if (ready(journal())) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return false;
  }

  static bool process_gone(long pid) {
    for (int i = 0; i < 600; ++i) {
      if (::kill(static_cast<pid_t>(pid), 0) != 0) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return false;
  }

  // Every job has exactly one done record, and no attempt of a job starts after its done record.
  void expect_each_job_done_once(const std::vector<json>& records, std::size_t jobs) const {
    std::map<std::string, int> done;
    for (const json& r : records) {
      if (r["event"] == "started") {
        EXPECT_EQ(done[r["job"]], 0) << "job " << r["job"] << " started after it was done";
      }
      if (r["event"] == "done") ++done[r["job"]];
    }
    EXPECT_EQ(done.size(), jobs);
    for (const auto& [job, count] : done) EXPECT_EQ(count, 1) << job;
  }

  std::map<std::string, std::string> done_reports() const { return ecocompute::testing::done_reports(sweep_dir()); }
};

TEST_F(SweepCliTest, TwoSlotSweepRunsEveryJobOnceThenStatusAndCollect) {
  const fs::path plan = write_plan();
  const Outcome run = ecocompute("sweep run '" + plan.string() + "' --out '" + sweep_dir().string() + "' --slots 2" + cache_flag());
  ASSERT_EQ(run.status, 0) << run.err;
  expect_each_job_done_once(journal(), 3);
  // measure names a report of batch B > 1 energy-<precision>-b<B>.json.
  const std::pair<const char*, std::string> jobs[] = {
      {"000-fixture-kjv-f16-b1", ""}, {"001-fixture-kjv-f16-b2", "-b2"}, {"002-fixture-kjv-f16-b3", "-b3"}};
  for (const auto& [job, suffix] : jobs) {
    for (const std::string& file : {"energy-F16" + suffix + ".json", "energy-Q8_0" + suffix + ".json", std::string("run.json")}) {
      EXPECT_TRUE(fs::exists(sweep_dir() / "jobs" / job / file)) << job << "/" << file;
    }
  }
  const auto q8 = json::parse(slurp(sweep_dir() / "jobs" / "002-fixture-kjv-f16-b3" / "energy-Q8_0-b3.json"));
  EXPECT_EQ(q8["workload"]["batch_size"], 3);

  const Outcome status = ecocompute("sweep status '" + sweep_dir().string() + "' --json");
  ASSERT_EQ(status.status, 0) << status.err;
  const json s = json::parse(status.out);
  EXPECT_EQ(s["pending"], 0);
  std::size_t done = 0;
  for (const auto& [slot, progress] : s["slots"].items()) {
    EXPECT_TRUE(slot == "cpu-0" || slot == "cpu-1") << slot;
    done += progress["done"].get<std::size_t>();
    EXPECT_EQ(progress["failed"], 0);
  }
  EXPECT_EQ(done, 3u);
  const Outcome text = ecocompute("sweep status '" + sweep_dir().string() + "'");
  EXPECT_NE(text.out.find("3 job(s): 3 done, 0 pending"), std::string::npos) << text.out;

  // A second run of the finished folder starts nothing.
  const Outcome again = ecocompute("sweep run '" + plan.string() + "' --out '" + sweep_dir().string() + "' --slots 2" + cache_flag());
  EXPECT_EQ(again.status, 0) << again.err;
  expect_each_job_done_once(journal(), 3);

  const Outcome collect = ecocompute("sweep collect '" + sweep_dir().string() + "' --to '" + (dir_ / "all").string() + "'");
  ASSERT_EQ(collect.status, 0) << collect.err;
  EXPECT_NE(collect.out.find("9 report file(s)"), std::string::npos) << collect.out;
  EXPECT_TRUE(fs::exists(dir_ / "all" / "001-fixture-kjv-f16-b2.energy-Q8_0-b2.json"));
  const Outcome valid = ecocompute("validate '" + (dir_ / "all" / "001-fixture-kjv-f16-b2.energy-Q8_0-b2.json").string() + "'");
  EXPECT_EQ(valid.status, 0) << valid.out << valid.err;

  // The store keeps measurements only: a report without an energy source is refused with its reason.
  const Outcome store = ecocompute("sweep collect '" + sweep_dir().string() + "' --json --store '" +
                                   (dir_ / "store.sqlite").string() + "'");
  ASSERT_EQ(store.status, 0) << store.err;
  const json imported = json::parse(store.out);
  EXPECT_EQ(imported["imported"].get<std::size_t>() + imported["refused"].size(), 6u) << store.out;
  if (q8["measurement_source"] == "none") {
    EXPECT_EQ(imported["refused"].size(), 6u) << store.out;
  }
}

TEST_F(SweepCliTest, KilledWorkerChildIsFailedThenRedoneOnResume) {
  const fs::path plan = write_plan();
  const pid_t coordinator = start("sweep run '" + plan.string() + "' --out '" + sweep_dir().string() + "' --slots 1" + cache_flag());
  long victim = 0;
  std::string victim_job;
  ASSERT_TRUE(wait_for_journal([&](const std::vector<json>& records) {
    for (const json& r : records) {
      if (r["event"] == "child" && r["step"] == "measure" && r["job"] == "001-fixture-kjv-f16-b2") {
        victim = r["pid"].get<long>();
        victim_job = r["job"];
        return true;
      }
    }
    return false;
  }));
  const auto before = done_reports();
  ASSERT_EQ(::kill(static_cast<pid_t>(victim), SIGKILL), 0);
  EXPECT_EQ(wait_exit(coordinator), 4) << slurp(dir_ / "bg.stderr");  // a job failed; the others ran

  const Outcome status = ecocompute("sweep status '" + sweep_dir().string() + "' --json");
  const json s = json::parse(status.out);
  EXPECT_EQ(s["jobs"][1]["state"], "failed") << status.out;
  EXPECT_NE(s["jobs"][1]["reason"].get<std::string>().find("signal 9"), std::string::npos) << status.out;

  const Outcome resume = ecocompute("sweep run '" + plan.string() + "' --out '" + sweep_dir().string() + "' --slots 2" + cache_flag());
  ASSERT_EQ(resume.status, 0) << resume.err;
  const auto records = journal();
  expect_each_job_done_once(records, 3);
  // Reports finished before the kill are still there, byte for byte.
  const auto after = done_reports();
  for (const auto& [path, bytes] : before) {
    ASSERT_TRUE(after.contains(path)) << path;
    EXPECT_EQ(after.at(path), bytes) << path;
  }
  // The killed attempt's folder was kept aside with its status.
  const fs::path aside = sweep_dir() / "jobs" / (victim_job + ".attempt-1");
  ASSERT_TRUE(fs::exists(aside / "sweep-status.json"));
  const json aside_status = json::parse(slurp(aside / "sweep-status.json"));
  EXPECT_EQ(aside_status["state"], "failed");
  EXPECT_EQ(aside_status["attempt"], 1);
  bool set_aside = false;
  for (const json& r : records) set_aside = set_aside || (r["event"] == "set_aside" && r["job"] == victim_job);
  EXPECT_TRUE(set_aside);
}

TEST_F(SweepCliTest, KilledCoordinatorLosesNoFinishedReportAndResumes) {
  const fs::path plan = write_plan();
  const pid_t coordinator = start("sweep run '" + plan.string() + "' --out '" + sweep_dir().string() + "' --slots 1" + cache_flag());
  // Wait until one job is done and the next one's measure child runs.
  long orphan = 0;
  ASSERT_TRUE(wait_for_journal([&](const std::vector<json>& records) {
    bool one_done = false;
    for (const json& r : records) {
      if (r["event"] == "done") one_done = true;
      if (one_done && r["event"] == "child" && r["step"] == "measure") {
        orphan = r["pid"].get<long>();
        return true;
      }
    }
    return false;
  }));
  ASSERT_EQ(::kill(coordinator, SIGKILL), 0);
  EXPECT_EQ(wait_exit(coordinator), -SIGKILL);
  // The measure child dies with its coordinator: nothing keeps writing into the sweep unrecorded.
  EXPECT_TRUE(process_gone(orphan));
  const auto before = done_reports();
  ASSERT_FALSE(before.empty());

  const Outcome status = ecocompute("sweep status '" + sweep_dir().string() + "' --json");
  ASSERT_EQ(status.status, 0) << status.err;
  std::size_t interrupted = 0;
  const json parsed = json::parse(status.out);
  for (const auto& job : parsed["jobs"]) interrupted += job["state"] == "interrupted" ? 1 : 0;
  EXPECT_EQ(interrupted, 1u) << status.out;

  const Outcome resume = ecocompute("sweep run '" + plan.string() + "' --out '" + sweep_dir().string() + "' --slots 2" + cache_flag());
  ASSERT_EQ(resume.status, 0) << resume.err;
  expect_each_job_done_once(journal(), 3);
  const auto after = done_reports();
  for (const auto& [path, bytes] : before) {
    ASSERT_TRUE(after.contains(path)) << path;
    EXPECT_EQ(after.at(path), bytes) << path;
  }
  bool kept_aside = false;
  for (const auto& entry : fs::directory_iterator(sweep_dir() / "jobs")) {
    if (entry.path().filename().string().find(".attempt-1") == std::string::npos) continue;
    kept_aside = true;
    const json aside = json::parse(slurp(entry.path() / "sweep-status.json"));
    EXPECT_EQ(aside["state"], "interrupted");
  }
  EXPECT_TRUE(kept_aside);
}

TEST_F(SweepCliTest, TaskRunsOneJobByIndexOnce) {
  const fs::path plan = write_plan();
  const std::string args = "sweep task '" + plan.string() + "' --out '" + sweep_dir().string() + "'" + cache_flag();
  const Outcome task = ecocompute(args + " --index 2");
  ASSERT_EQ(task.status, 0) << task.err;
  EXPECT_TRUE(fs::exists(sweep_dir() / "jobs" / "002-fixture-kjv-f16-b3" / "energy-Q8_0-b3.json"));
  auto records = journal();
  std::size_t started = 0;
  for (const json& r : records) {
    if (r["event"] != "started") continue;
    ++started;
    EXPECT_EQ(r["slot"], "task-2");
  }
  EXPECT_EQ(started, 1u);

  const Outcome again = ecocompute(args + " --index 2");
  EXPECT_EQ(again.status, 0) << again.err;
  EXPECT_NE(again.err.find("already done"), std::string::npos) << again.err;
  EXPECT_EQ(journal().size(), records.size());  // nothing ran

  const Outcome out_of_range = ecocompute(args + " --index 3");
  EXPECT_EQ(out_of_range.status, 2);
  EXPECT_NE(out_of_range.err.find("--index: 3 is not a job of the plan (it has 3 job(s)"), std::string::npos)
      << out_of_range.err;
}

// Runs job 0 with `--post` to an `ecocompute serve` whose replication store is `db`, and checks what the
// journal recorded of each upload.
void SweepCliTest::expect_task_posts_to_serve(const std::string& db) {
  const auto [server, port] = start_serve("--db '" + db + "'");
  ASSERT_FALSE(port.empty()) << slurp(dir_ / "bg.stderr");
  const fs::path plan = write_plan();
  const Outcome task = ecocompute("sweep task '" + plan.string() + "' --out '" + sweep_dir().string() + "'" +
                                  cache_flag() + " --index 0 --post http://127.0.0.1:" + port);
  ::kill(server, SIGTERM);
  wait_exit(server);
  ASSERT_EQ(task.status, 0) << task.err;
  const auto f16 = json::parse(slurp(sweep_dir() / "jobs" / "000-fixture-kjv-f16-b1" / "energy-F16.json"));
  std::set<std::string> offered;
  for (const json& r : journal()) {
    if (r["event"] != "uploaded") continue;
    offered.insert(r["reports"][0].get<std::string>());
    ASSERT_TRUE(r.contains("http_status")) << r.dump();
    // The server refuses a report no energy source read (400, with its reason); it stores a measurement.
    if (f16["measurement_source"] == "none") {
      EXPECT_EQ(r["http_status"], 400) << r.dump();
      EXPECT_FALSE(r["reason"].get<std::string>().empty());
    } else {
      EXPECT_TRUE(r["http_status"] == 201 || r["http_status"] == 200) << r.dump();
    }
  }
  EXPECT_EQ(offered, (std::set<std::string>{"energy-F16.json", "energy-Q8_0.json"}));
  EXPECT_NE(task.err.find("HTTP"), std::string::npos) << task.err;
}

TEST_F(SweepCliTest, TaskPostsItsReportsToAServeStore) { expect_task_posts_to_serve((dir_ / "replications.sqlite").string()); }

// The shared store of a cluster: the same upload to a serve backed by PostgreSQL (skipped without
// ECOCOMPUTE_TEST_PG_URL; scripts/test.sh starts a server).
TEST_F(SweepCliTest, TaskPostsItsReportsToAServeStoreOnPostgres) {
  ecocompute::testing::PostgresSchema schema;
  schema.create("sweep_post_");
  if (::testing::Test::IsSkipped()) return;
  expect_task_posts_to_serve(schema.url());
}

// A store that asks for write keys: a task without one is answered 401 for each report; with the key
// from --post-key-file the server reads the report (and answers what it makes of it, here 400: a CPU
// run has no energy source). The key never appears in the command line or the Slurm script.
TEST_F(SweepCliTest, TaskSendsTheWriteKeyFromItsFile) {
  const fs::path keys = dir_ / "keys.txt";
  const Outcome added = ecocompute("keys add sweeper --file '" + keys.string() + "'");
  ASSERT_EQ(added.status, 0) << added.err;
  std::string key = added.out.substr(added.out.find("eck_"));
  key = key.substr(0, key.find_first_of(" \n"));
  const fs::path key_file = dir_ / "key";
  std::ofstream(key_file) << key << "\n";
  const auto [server, port] = start_serve("--db '" + (dir_ / "replications.sqlite").string() + "' --write-keys '" +
                                          keys.string() + "'");
  ASSERT_FALSE(port.empty()) << slurp(dir_ / "bg.stderr");
  const fs::path plan = write_plan();
  const std::string task = "sweep task '" + plan.string() + "' --out '" + sweep_dir().string() + "'" + cache_flag() +
                           " --post http://127.0.0.1:" + port;
  const Outcome without = ecocompute(task + " --index 0");
  const Outcome with = ecocompute(task + " --index 1 --post-key-file '" + key_file.string() + "'");
  const Outcome empty_file = ecocompute(task + " --index 2 --post-key-file '" + (dir_ / "nothing").string() + "'");
  ::kill(server, SIGTERM);
  wait_exit(server);
  ASSERT_EQ(without.status, 0) << without.err;
  ASSERT_EQ(with.status, 0) << with.err;
  EXPECT_EQ(empty_file.status, 2);
  EXPECT_NE(empty_file.err.find("--post-key-file"), std::string::npos) << empty_file.err;
  std::map<std::string, std::set<int>> statuses;  // job → the HTTP statuses its uploads got
  for (const json& r : journal()) {
    if (r["event"] == "uploaded") statuses[r["job"].get<std::string>()].insert(r["http_status"].get<int>());
  }
  EXPECT_EQ(statuses["000-fixture-kjv-f16-b1"], (std::set<int>{401}));
  EXPECT_EQ(statuses["001-fixture-kjv-f16-b2"].count(401), 0u);
  EXPECT_FALSE(statuses["001-fixture-kjv-f16-b2"].empty());

  ASSERT_EQ(ecocompute("sweep slurm '" + plan.string() + "' --out '" + sweep_dir().string() + "' --post http://h:1" +
                       " --post-key-file '" + key_file.string() + "'").status, 0);
  const std::string script = slurp(sweep_dir() / "sweep.sbatch");
  EXPECT_NE(script.find("--post-key-file '" + key_file.string() + "'"), std::string::npos) << script;
  EXPECT_EQ(script.find(key), std::string::npos);
}

TEST_F(SweepCliTest, SlurmWritesAnArrayScriptForThePlan) {
  const fs::path plan = write_plan();
  const Outcome slurm = ecocompute("sweep slurm '" + plan.string() + "' --out '" + sweep_dir().string() +
                                   "' --partition gpu --gres gpu:1");
  ASSERT_EQ(slurm.status, 0) << slurm.err;
  const std::string script = slurp(sweep_dir() / "sweep.sbatch");
  EXPECT_NE(script.find("#SBATCH --array=0-2\n"), std::string::npos) << script;
  EXPECT_NE(script.find("#SBATCH --partition=gpu\n"), std::string::npos) << script;
  EXPECT_NE(script.find("sweep task '" + fs::absolute(plan).string() + "'"), std::string::npos) << script;
  EXPECT_TRUE(fs::is_directory(sweep_dir() / "slurm"));
  EXPECT_TRUE(fs::exists(sweep_dir() / "plan.json"));
}

TEST_F(SweepCliTest, BadPlansAreUsageErrorsNamingTheField) {
  const fs::path plan = dir_ / "bad.json";
  std::ofstream(plan) << R"({"models": ["a.gguf"], "batches": [[1], [0]]})";
  const Outcome run = ecocompute("sweep run '" + plan.string() + "' --out '" + sweep_dir().string() + "' --slots 1");
  EXPECT_EQ(run.status, 2);
  EXPECT_NE(run.err.find("batches[1][0]"), std::string::npos) << run.err;
  std::ofstream(plan, std::ios::trunc) << "{not json";
  EXPECT_EQ(ecocompute("sweep run '" + plan.string() + "' --out '" + sweep_dir().string() + "' --slots 1").status, 2);
  // A folder started with another plan is not silently mixed with this one.
  const fs::path good = write_plan();
  ASSERT_EQ(ecocompute("sweep slurm '" + good.string() + "' --out '" + sweep_dir().string() + "'").status, 0);
  std::ofstream(plan, std::ios::trunc) << R"({"models": [")" << ECOCOMPUTE_SOURCE_DIR
                                        << R"(/data/fixture/fixture-kjv-f16.gguf"], "batches": [5]})";
  const Outcome other = ecocompute("sweep run '" + plan.string() + "' --out '" + sweep_dir().string() + "' --slots 1");
  EXPECT_EQ(other.status, 2);
  EXPECT_NE(other.err.find("another plan"), std::string::npos) << other.err;
  EXPECT_EQ(ecocompute("sweep status '" + (dir_ / "nothing").string() + "'").status, 2);
  // A missing model is exit 3 (environment), before anything runs.
  std::ofstream(plan, std::ios::trunc) << R"({"models": ["/nonexistent/model.gguf"]})";
  const Outcome missing = ecocompute("sweep run '" + plan.string() + "' --out '" + (dir_ / "s2").string() + "' --slots 1");
  EXPECT_EQ(missing.status, 3);
  EXPECT_NE(missing.err.find("/nonexistent/model.gguf"), std::string::npos) << missing.err;
}

}  // namespace
