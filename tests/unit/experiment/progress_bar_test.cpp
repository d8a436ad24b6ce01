// Tests of the progress bar's text.
#include "experiment/progress_bar.hpp"

#include <gtest/gtest.h>

#include <string>

namespace ecocompute::experiment {
namespace {

TEST(ProgressBar, RendersFractionPhaseAndEta) {
  ProgressBar bar(stderr, false, 10);
  protocol::Progress p;
  p.phase = protocol::Progress::Phase::trial;
  p.trial = 3;
  p.n_trials = 9;
  p.message = "trial 4/9 Q8_0 (block 1)";
  p.eta = Seconds{185.0};
  // 3 × 10 / 9 = 3 filled cells.
  EXPECT_EQ(bar.render(p), "[###-------] 3/9 trial: trial 4/9 Q8_0 (block 1) ETA 3m05s");
  p.trial = 0;
  p.phase = protocol::Progress::Phase::loading;
  p.message = "loading F16";
  p.eta_is_lower_bound = true;
  EXPECT_EQ(bar.render(p), "[----------] 0/9 loading: loading F16 ETA ≥3m05s");
  p.phase = protocol::Progress::Phase::done;
  p.trial = 9;
  p.message.clear();
  EXPECT_EQ(bar.render(p), "[##########] 9/9 done");
}

TEST(ProgressBar, FormatsEta) {
  EXPECT_EQ(format_eta(45.4), "45s");
  EXPECT_EQ(format_eta(185.0), "3m05s");
  EXPECT_EQ(format_eta(3720.0), "1h02m");
  EXPECT_EQ(format_eta(-3.0), "0s");
}

TEST(ProgressBar, WritesOneLinePerUpdateWhenNotATerminal) {
  std::FILE* file = std::tmpfile();
  ASSERT_NE(file, nullptr);
  {
    ProgressBar bar(file, false, 4);
    protocol::Progress p;
    p.n_trials = 2;
    p.phase = protocol::Progress::Phase::trial;
    bar.update(p);
    p.trial = 1;
    bar.update(p);
  }
  std::rewind(file);
  char buffer[256] = {};
  const std::size_t n = std::fread(buffer, 1, sizeof(buffer) - 1, file);
  std::fclose(file);
  EXPECT_EQ(std::string(buffer, n), "ecocompute: [----] 0/2 trial\necocompute: [##--] 1/2 trial\n");
}

}  // namespace
}  // namespace ecocompute::experiment
