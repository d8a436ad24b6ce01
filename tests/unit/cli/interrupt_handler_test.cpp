// How the stop handler of the measuring commands outlives its scope: after a stop request it stays, so
// the copy of that request `timeout` sends to the process group cannot end the process by the signal
// while it writes its reports; without one it gives the previous action back.
#include "cli/interrupt_handler.hpp"

#include <gtest/gtest.h>
#include <signal.h>

#include <cstdlib>

#include "cli/exit_code.hpp"

namespace ecocompute::cli {
namespace {

TEST(InterruptHandlerDeathTest, ATermAfterTheHandlersScopeIsStillTheFirstRequestDeliveredAgain) {
  EXPECT_EXIT(
      {
        { const InterruptHandler handler; ::raise(SIGTERM); }
        ::raise(SIGTERM);
        std::exit(InterruptHandler::interrupted().load() ? 7 : 8);
      },
      ::testing::ExitedWithCode(7), "interrupted: stopping now");
}

TEST(InterruptHandlerDeathTest, AnInterruptAfterATermStillQuitsAtOnce) {
  EXPECT_EXIT(
      {
        { const InterruptHandler handler; ::raise(SIGTERM); }
        ::raise(SIGINT);
        std::exit(7);
      },
      ::testing::ExitedWithCode(exit_interrupted), "interrupted again: quitting now");
}

TEST(InterruptHandlerDeathTest, WithoutAStopRequestThePreviousActionComesBack) {
  EXPECT_EXIT(
      {
        { const InterruptHandler handler; }
        ::raise(SIGTERM);
        std::exit(7);
      },
      ::testing::KilledBySignal(SIGTERM), "");
}

}  // namespace
}  // namespace ecocompute::cli
