// The command engine against a real Python program (tests/programs/command_worker.py, speaking the
// protocol through contrib/ecocompute_marker.py): requests and replies, and every fault a program can
// commit — exit before hello, crash, hang, wrong count, garbage, an error reply.
#include "engine/command_engine.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <atomic>
#include <cerrno>
#include <string>

namespace ecocompute::engine {
namespace {
using ::testing::HasSubstr;

CommandSpec worker(const std::string& label, const std::string& arguments) {
  CommandSpec spec;
  spec.label = label;
  spec.command = "exec python3 '" + std::string(ECOCOMPUTE_SOURCE_DIR) + "/tests/programs/command_worker.py' driven " + arguments;
  spec.environment.emplace_back("PYTHONPATH", std::string(ECOCOMPUTE_SOURCE_DIR) + "/contrib");
  spec.environment.emplace_back("PYTHONDONTWRITEBYTECODE", "1");  // no __pycache__ in the source tree
  spec.start_timeout = Seconds{60.0};
  spec.reply_timeout = Seconds{60.0};
  return spec;
}

// Returns whether this process has no child at all: none running, none left unreaped (a zombie).
bool no_children() { return ::waitpid(-1, nullptr, WNOHANG) == -1 && errno == ECHILD; }

TEST(CommandEngine, DescribesWhatTheProgramDeclared) {
  auto engine = open_command_engine(worker("FP32", "--precision FP32"));
  ASSERT_TRUE(engine) << engine.error().describe();
  const EngineDescription d = (*engine)->describe();
  EXPECT_EQ(d.name, "pyworker");
  EXPECT_EQ(d.version, "1.0");
  EXPECT_EQ(d.device, "cpu");
  EXPECT_EQ(d.backend, "CPU");
  EXPECT_EQ((*engine)->model().name, "cpu-loop");
  EXPECT_EQ((*engine)->model().n_params, 1000u);
  EXPECT_TRUE((*engine)->model().synthetic_weights);
  const Hello* hello = command_declaration(**engine);
  ASSERT_NE(hello, nullptr);
  EXPECT_EQ(hello->precision, "FP32");
}

TEST(CommandEngine, PrefillAndDecodeCountTheTokensAsked) {
  CommandSpec spec = worker("FP32", "");
  spec.prompt_tokens = 24;
  auto engine = open_command_engine(spec);
  ASSERT_TRUE(engine) << engine.error().describe();
  auto prompt = (*engine)->tokenize("any text at all", true);
  ASSERT_TRUE(prompt);
  EXPECT_EQ(prompt->size(), 24u);  // a prompt is its token count
  EXPECT_EQ((*engine)->bos(), -1);
  ASSERT_TRUE((*engine)->reset());
  auto prefill = (*engine)->prefill(*prompt);
  ASSERT_TRUE(prefill) << prefill.error().describe();
  EXPECT_EQ(prefill->tokens, 24);
  auto decode = (*engine)->decode(17);
  ASSERT_TRUE(decode) << decode.error().describe();
  EXPECT_EQ(decode->tokens, 17);
  EXPECT_GT(decode->elapsed.value, 0.0);
  EXPECT_FALSE((*engine)->evaluate(*prompt, [](std::int64_t, std::span<const float>) {}));
  EXPECT_FALSE((*engine)->prefill_sequences(*prompt, 2));  // one sequence at a time
}

TEST(CommandEngine, ExitBeforeHelloIsAStartUpError) {
  auto engine = open_command_engine(worker("FP32", "--fault no-hello"));
  ASSERT_FALSE(engine);
  EXPECT_EQ(engine.error().code(), ErrorCode::engine);
  EXPECT_THAT(engine.error().describe(), HasSubstr("exit status 3"));
}

TEST(CommandEngine, MissingProgramIsAStartUpError) {
  CommandSpec spec = worker("FP32", "");
  spec.command = "exec /nonexistent/prog";
  auto engine = open_command_engine(spec);
  ASSERT_FALSE(engine);
  EXPECT_THAT(engine.error().describe(), HasSubstr("no hello"));
}

TEST(CommandEngine, CrashMidDecodeFailsThisAndEveryLaterRequest) {
  auto engine = open_command_engine(worker("NF4", "--fault crash"));
  ASSERT_TRUE(engine) << engine.error().describe();
  ASSERT_TRUE((*engine)->decode(5));
  auto crashed = (*engine)->decode(5);
  ASSERT_FALSE(crashed);
  EXPECT_EQ(crashed.error().code(), ErrorCode::engine);
  EXPECT_THAT(crashed.error().describe(), HasSubstr("exit status 9"));
  auto later = (*engine)->decode(5);
  ASSERT_FALSE(later);
  EXPECT_THAT(later.error().describe(), HasSubstr("stopped earlier"));
}

TEST(CommandEngine, HangPastTheTimeoutFails) {
  CommandSpec spec = worker("NF4", "--fault hang");
  spec.reply_timeout = Seconds{0.5};
  auto engine = open_command_engine(spec);
  ASSERT_TRUE(engine) << engine.error().describe();
  ASSERT_TRUE((*engine)->decode(5));
  auto hung = (*engine)->decode(5);
  ASSERT_FALSE(hung);
  EXPECT_THAT(hung.error().describe(), HasSubstr("no reply"));
}

TEST(CommandEngine, InterruptEndsAWaitForAHungProgram) {
  auto engine = open_command_engine(worker("NF4", "--fault hang"));
  ASSERT_TRUE(engine);
  std::atomic<bool> interrupted{false};
  (*engine)->set_interrupt(&interrupted);
  ASSERT_TRUE((*engine)->decode(5));
  interrupted = true;
  auto stopped = (*engine)->decode(5);
  ASSERT_FALSE(stopped);
  EXPECT_EQ(stopped.error().code(), ErrorCode::cancelled);
}

TEST(CommandEngine, WrongTokenCountFailsOnlyThatRequest) {
  auto engine = open_command_engine(worker("NF4", "--fault wrong-count"));
  ASSERT_TRUE(engine);
  ASSERT_TRUE((*engine)->decode(5));
  auto wrong = (*engine)->decode(5);
  ASSERT_FALSE(wrong);
  EXPECT_THAT(wrong.error().describe(), HasSubstr("tokens=4"));
  // The program is still in step: a prefill is answered correctly.
  std::vector<Token> prompt(3, 0);
  auto next = (*engine)->prefill(prompt);
  ASSERT_TRUE(next) << next.error().describe();
  EXPECT_EQ(next->tokens, 3);
}

TEST(CommandEngine, GarbageReplyStopsTheProgram) {
  auto engine = open_command_engine(worker("NF4", "--fault garbage"));
  ASSERT_TRUE(engine);
  ASSERT_TRUE((*engine)->decode(5));
  auto garbage = (*engine)->decode(5);
  ASSERT_FALSE(garbage);
  EXPECT_THAT(garbage.error().describe(), HasSubstr("printable"));
  auto later = (*engine)->decode(5);
  ASSERT_FALSE(later);
  EXPECT_THAT(later.error().describe(), HasSubstr("stopped earlier"));
}

TEST(CommandEngine, ErrorReplyCarriesTheProgramsMessage) {
  auto engine = open_command_engine(worker("NF4", "--fault error"));
  ASSERT_TRUE(engine);
  ASSERT_TRUE((*engine)->decode(5));
  auto failed = (*engine)->decode(5);
  ASSERT_FALSE(failed);
  EXPECT_THAT(failed.error().describe(), HasSubstr("out of memory (pretend)"));
}

}  // namespace
}  // namespace ecocompute::engine

namespace ecocompute::engine {
namespace {

TEST(CommandEngine, EveryProgramIsReapedWhateverBecameOfIt) {
  for (const char* fault : {"", "--fault crash", "--fault hang", "--fault garbage", "--fault wrong-count"}) {
    {
      CommandSpec spec = worker("NF4", fault);
      spec.reply_timeout = Seconds{0.5};
      auto engine = open_command_engine(spec);
      ASSERT_TRUE(engine) << fault << ": " << engine.error().describe();
      ASSERT_TRUE((*engine)->decode(5));
      (void)(*engine)->decode(5);
    }  // the engine is gone: so is its program
    EXPECT_TRUE(no_children()) << fault;
  }
  EXPECT_FALSE(open_command_engine(worker("NF4", "--fault no-hello")));
  EXPECT_TRUE(no_children());
}

}  // namespace
}  // namespace ecocompute::engine
