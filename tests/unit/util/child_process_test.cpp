// Tests of ChildProcess with real programs (/bin/sh): the pipes, time limits, exit statuses, stopping
// a whole process group, and a closed pipe that must not end the test process with SIGPIPE.
#include "util/child_process.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>

#include <atomic>
#include <cerrno>
#include <string>

namespace ecocompute {
namespace {
using ::testing::HasSubstr;

Result<ChildProcess> shell(const std::string& script, ChildProcess::Options options = {}) {
  return ChildProcess::start({"/bin/sh", "-c", script}, options);
}

TEST(ChildProcess, ProgramFindsItsPipesInItsEnvironment) {
  ChildProcess::Options options;
  options.environment.emplace_back("ECO_TEST_WORD", "marmalade");
  auto child = shell(R"(read request <&$ECOCOMPUTE_CONTROL_FD; echo "got $request $ECO_TEST_WORD" >&$ECOCOMPUTE_REPLY_FD)",
                     options);
  ASSERT_TRUE(child) << child.error().describe();
  ASSERT_TRUE(child->write_line("prefill 3"));
  auto line = child->read_line(Seconds{30.0});
  ASSERT_TRUE(line) << line.error().describe();
  EXPECT_EQ(*line, "got prefill 3 marmalade");
  const ExitStatus status = child->wait();
  ASSERT_TRUE(status.code);
  EXPECT_EQ(*status.code, 0);
}

TEST(ChildProcess, SilenceIsATimeoutNotAHang) {
  auto child = shell("sleep 30");
  ASSERT_TRUE(child);
  auto line = child->read_line(Seconds{0.2});
  ASSERT_FALSE(line);
  EXPECT_EQ(line.error().code(), ErrorCode::unavailable);
  EXPECT_THAT(line.error().describe(), HasSubstr("no reply"));
  const ExitStatus status = child->stop(Seconds{0.5});
  ASSERT_TRUE(status.signal);
  EXPECT_EQ(*status.signal, SIGTERM);
}

TEST(ChildProcess, ExitBeforeReplyingNamesTheStatus) {
  auto child = shell("exit 7");
  ASSERT_TRUE(child);
  auto line = child->read_line(Seconds{30.0});
  ASSERT_FALSE(line);
  EXPECT_EQ(line.error().code(), ErrorCode::engine);
  EXPECT_THAT(line.error().describe(), HasSubstr("exit status 7"));
}

TEST(ChildProcess, OverlongLineIsAnError) {
  auto child = shell(R"(head -c 10000 /dev/zero | tr '\0' x >&$ECOCOMPUTE_REPLY_FD; sleep 30)");
  ASSERT_TRUE(child);
  auto line = child->read_line(Seconds{30.0});
  ASSERT_FALSE(line);
  EXPECT_EQ(line.error().code(), ErrorCode::invalid_input);
}

TEST(ChildProcess, CancelEndsTheWait) {
  auto child = shell("sleep 30");
  ASSERT_TRUE(child);
  auto line = child->read_line(Seconds{60.0}, [] { return true; });
  ASSERT_FALSE(line);
  EXPECT_EQ(line.error().code(), ErrorCode::cancelled);
}

TEST(ChildProcess, StopEndsTheWholeGroupEvenWhenTermIsIgnored) {
  // The program ignores SIGTERM and leaves a grandchild behind: both must be gone after stop().
  auto child = shell(R"(trap '' TERM; sleep 300 & echo $! >&$ECOCOMPUTE_REPLY_FD; while :; do sleep 1; done)");
  ASSERT_TRUE(child);
  auto grandchild = child->read_line(Seconds{30.0});
  ASSERT_TRUE(grandchild) << grandchild.error().describe();
  const pid_t sleeper = std::stoi(*grandchild);
  const ExitStatus status = child->stop(Seconds{0.3});
  ASSERT_TRUE(status.signal);
  EXPECT_EQ(*status.signal, SIGKILL);
  // The grandchild was re-parented and may take a moment to be reaped by init, but it was killed.
  bool gone = false;
  for (int i = 0; i < 200 && !gone; ++i) {
    gone = ::kill(sleeper, 0) != 0 && errno == ESRCH;
    if (!gone) ::usleep(10000);
  }
  EXPECT_TRUE(gone) << "process " << sleeper << " outlived its group";
  EXPECT_FALSE(child->running());
}

TEST(ChildProcess, WritingToAProgramThatStoppedReadingIsAnError) {
  auto child = shell("exit 0");
  ASSERT_TRUE(child);
  child->wait();
  Result<void> sent;
  for (int i = 0; i < 3 && sent; ++i) sent = child->write_line("decode 1");  // must not raise SIGPIPE here
  ASSERT_FALSE(sent);
  EXPECT_EQ(sent.error().code(), ErrorCode::engine);
}

TEST(ChildProcess, MissingProgramIsNotFound) {
  auto child = ChildProcess::start({"/nonexistent/program"}, {});
  ASSERT_FALSE(child);
  EXPECT_EQ(child.error().code(), ErrorCode::not_found);
  EXPECT_THAT(child.error().describe(), HasSubstr("/nonexistent/program"));
}

TEST(ChildProcess, ExitStatusSpelling) {
  EXPECT_EQ((ExitStatus{3, std::nullopt}).describe(), "exit status 3");
  EXPECT_EQ((ExitStatus{3, std::nullopt}).shell_status(), 3);
  EXPECT_EQ((ExitStatus{std::nullopt, 9}).shell_status(), 137);
  EXPECT_THAT((ExitStatus{std::nullopt, 9}).describe(), HasSubstr("signal 9"));
}

}  // namespace
}  // namespace ecocompute
