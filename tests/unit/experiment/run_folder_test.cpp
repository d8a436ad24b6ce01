// A run's files reach --out all at once: a process killed after any write or rename of a re-run leaves
// --out holding the previous run's whole set or the new run's whole set (each report naming the run
// that run.json names, every report run.json lists present, no other), and files no run wrote stay.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <string>

#include "experiment/run_folder.hpp"
#include "experiment/run_writer.hpp"
#include "sample_run.hpp"
#include "support/scratch_dir.hpp"
#include "util/json.hpp"

namespace ecocompute::experiment {
namespace {
namespace fs = std::filesystem;
using testing::sample_context;
using testing::sample_run;

class RunFolderTest : public ecocompute::testing::ScratchDirTest {
 protected:
  fs::path out() const { return dir_ / "out"; }

  // The first run: every condition has its report (F16, Q8_0, Q4_K_M), run id "run-old".
  void write_old_run() const {
    ReportContext context = sample_context();
    context.run_id = "run-old";
    ASSERT_TRUE(write_run_reports(sample_run(), context, out()));
    std::ofstream(out() / "measure.log") << "a sweep's log\n";
  }

  // The re-run: Q8_0 failed to load (no report), run id "run-new"; `stop_after` > 0 ends the process
  // right after that many steps, as kill -9 would.
  static void write_new_run(const fs::path& out, int stop_after, int* steps) {
    protocol::RunResult run = sample_run();
    run.setups[1].loaded = false;
    run.setups[1].failure = "unknown GGUF type";
    ReportContext context = sample_context();
    context.run_id = "run-new";
    int count = 0;
    auto written = write_run_reports(run, context, out, [&](std::string_view) {
      if (++count == stop_after) ::_exit(0);
    });
    ASSERT_TRUE(written) << written.error().describe();
    if (steps != nullptr) *steps = count;
  }

  // The run id --out holds, after checking that its files are that run's whole set.
  std::string whole_set_in_out() const {
    auto summary = read_json_file(out() / "run.json");
    if (!summary) return "no run.json";
    const std::string run_id = (*summary)["run_id"].get<std::string>();
    std::set<std::string> listed, present;
    for (const auto& condition : (*summary)["conditions"]) {
      if (condition["report"].is_string()) listed.insert(condition["report"].get<std::string>());
    }
    for (const auto& entry : fs::directory_iterator(out())) {
      const std::string name = entry.path().filename().string();
      if (!is_run_file(name) || name == "run.json") continue;
      present.insert(name);
      auto report = read_json_file(entry.path());
      if (!report || (*report)["provenance"]["run_id"] != run_id) return name + " is not from " + run_id;
    }
    if (listed != present) return "run.json of " + run_id + " lists other reports than the folder holds";
    if (ecocompute::testing::slurp(out() / "measure.log") != "a sweep's log\n") return "the log is gone";
    return run_id;
  }
};

TEST_F(RunFolderTest, AReRunReplacesTheWholeSetAndKeepsThePreviousRunBeside) {
  write_old_run();
  ASSERT_EQ(whole_set_in_out(), "run-old");
  int steps = 0;
  write_new_run(out(), 0, &steps);
  EXPECT_EQ(whole_set_in_out(), "run-new");
  EXPECT_FALSE(fs::exists(out() / "energy-Q8_0.json")) << "the previous run's Q8_0 report would mix two runs";
  auto previous = read_json_file(dir_ / "out.previous-1" / "run.json");
  ASSERT_TRUE(previous);
  EXPECT_EQ((*previous)["run_id"], "run-old");
  EXPECT_TRUE(fs::exists(dir_ / "out.previous-1" / "energy-Q8_0.json"));
  EXPECT_GE(steps, 4);  // two reports, run.json, the log's link, the exchange …
}

TEST_F(RunFolderTest, AKillAfterAnyStepLeavesTheOldSetOrTheNewSet) {
  write_old_run();
  int steps = 0;
  {
    const fs::path probe = dir_ / "probe";
    fs::copy(out(), probe);
    write_new_run(probe, 0, &steps);
  }
  std::set<std::string> seen;
  for (int n = 1; n <= steps; ++n) {
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    write_old_run();
    const pid_t child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      write_new_run(out(), n, nullptr);
      ::_exit(0);
    }
    int status = 0;
    ASSERT_EQ(::waitpid(child, &status, 0), child);
    const std::string state = whole_set_in_out();
    EXPECT_TRUE(state == "run-old" || state == "run-new") << "stopped after step " << n << ": " << state;
    seen.insert(state);
  }
  EXPECT_EQ(seen, (std::set<std::string>{"run-old", "run-new"}));
}

TEST_F(RunFolderTest, AnOutputFolderThatHoldsFoldersIsRefusedBeforeTheRun) {
  fs::create_directories(out() / "other-model");
  auto refused = prepare_out_dir(out());
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().code(), ErrorCode::invalid_argument);
  EXPECT_NE(refused.error().message().find("holds folders (other-model)"), std::string::npos) << refused.error().message();
  fs::remove_all(out() / "other-model");
  EXPECT_TRUE(prepare_out_dir(out()));
  EXPECT_EQ(std::distance(fs::directory_iterator(dir_), fs::directory_iterator()), 1) << "the check leaves nothing behind";
}

}  // namespace
}  // namespace ecocompute::experiment
