// The journal: records written are read back; a torn line is skipped; states fold as documented.
#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>

#include "support/scratch_dir.hpp"
#include "sweep/journal.hpp"

namespace ecocompute::sweep {
namespace {

class SweepJournal : public testing::ScratchDirTest {};

JournalRecord record(JournalEvent event, const std::string& job, int attempt) {
  JournalRecord r;
  r.event = event;
  r.job = job;
  r.attempt = attempt;
  return r;
}

TEST_F(SweepJournal, AppendedRecordsReadBack) {
  const auto path = dir_ / "journal.jsonl";
  {
    auto writer = JournalWriter::open(path);
    ASSERT_TRUE(writer) << writer.error().describe();
    JournalRecord started = record(JournalEvent::started, "000-a-b1", 1);
    started.slot = "cpu-0";
    started.host = "h";
    started.pid = 42;
    ASSERT_TRUE(writer->append(started));
    JournalRecord done = record(JournalEvent::done, "000-a-b1", 1);
    done.exit_code = 0;
    done.reports = {"energy-F16.json", "run.json"};
    ASSERT_TRUE(writer->append(done));
  }
  auto contents = read_journal(path);
  ASSERT_TRUE(contents);
  ASSERT_EQ(contents->records.size(), 2u);
  EXPECT_EQ(contents->unreadable_lines, 0u);
  EXPECT_EQ(contents->records[0].slot, "cpu-0");
  EXPECT_EQ(contents->records[0].pid, 42);
  EXPECT_FALSE(contents->records[0].time_utc.empty());
  EXPECT_EQ(contents->records[1].reports, (std::vector<std::string>{"energy-F16.json", "run.json"}));
  EXPECT_EQ(contents->records[1].exit_code, 0);
}

TEST_F(SweepJournal, ATornLastLineIsSkippedAndCounted) {
  const auto path = dir_ / "journal.jsonl";
  std::ofstream(path) << R"({"event":"started","job":"a","attempt":1})" << "\n"
                      << R"({"event":"done","job":"a","att)";
  auto contents = read_journal(path);
  ASSERT_TRUE(contents);
  EXPECT_EQ(contents->records.size(), 1u);
  EXPECT_EQ(contents->unreadable_lines, 1u);
}

TEST_F(SweepJournal, AMissingJournalIsEmpty) {
  auto contents = read_journal(dir_ / "none.jsonl");
  ASSERT_TRUE(contents);
  EXPECT_TRUE(contents->records.empty());
}

TEST(SweepJobStates, FoldsEveryState) {
  const std::string host = "this-host";
  std::vector<JournalRecord> records;
  auto start = [&](const std::string& job, int attempt, long pid, const std::string& on_host) {
    JournalRecord r = record(JournalEvent::started, job, attempt);
    r.pid = pid;
    r.host = on_host;
    r.slot = "cpu-" + std::to_string(attempt);
    records.push_back(r);
  };
  start("done", 1, 1, host);
  records.push_back(record(JournalEvent::done, "done", 1));
  start("failed", 1, ::getpid(), host);
  JournalRecord failed = record(JournalEvent::failed, "failed", 1);
  failed.reason = "measure was killed by signal 9";
  records.push_back(failed);
  start("alive", 1, ::getpid(), host);           // this process: alive
  start("gone", 1, 999999999, host);              // no such pid: its owner is gone
  start("elsewhere", 1, 999999999, "other-host"); // cannot tell: running
  start("redone", 1, 999999999, host);
  start("redone", 2, ::getpid(), host);
  records.push_back(record(JournalEvent::done, "redone", 2));

  auto states = job_states(records, host);
  EXPECT_EQ(states["done"].state, JobState::done);
  EXPECT_EQ(states["failed"].state, JobState::failed);
  EXPECT_EQ(states["failed"].reason, "measure was killed by signal 9");
  EXPECT_EQ(states["alive"].state, JobState::running);
  EXPECT_EQ(states["gone"].state, JobState::interrupted);
  EXPECT_EQ(states["elsewhere"].state, JobState::running);
  EXPECT_EQ(states["redone"].state, JobState::done);
  EXPECT_EQ(states["redone"].attempts, 2);
  EXPECT_EQ(states["redone"].slot, "cpu-2");
  EXPECT_EQ(states["redone"].done_records, 1);
}

}  // namespace
}  // namespace ecocompute::sweep
