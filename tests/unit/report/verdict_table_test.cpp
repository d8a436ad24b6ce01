// Tests of the verdict table and the progress bar text.
#include "report/verdict_table.hpp"

#include <gtest/gtest.h>

#include "report/progress_bar.hpp"
#include "golden.hpp"
#include "sample_run.hpp"

namespace ecocompute::report {
namespace {

std::vector<OrderedJson> sample_reports(bool with_energy) {
  const protocol::RunResult run = testing::sample_run(with_energy);
  const RunContext context = testing::sample_context(with_energy);
  std::vector<OrderedJson> docs;
  for (std::size_t c = 0; c < 3; ++c) docs.push_back(*build_energy_json(run, c, context));
  return docs;
}

TEST(VerdictTable, MatchesGoldenFiles) {
  testing::expect_golden("console/verdict.txt", format_verdict_table(sample_reports(true)));
  testing::expect_golden("console/verdict-no-energy.txt", format_verdict_table(sample_reports(false)));
}

TEST(VerdictTable, ShowsDeltaWithCiHalfWidth) {
  const std::string table = format_verdict_table(sample_reports(true));
  // Q4_K_M: −30.00 ± 4.97 (half-width 4.968275); ΔPPL +5.00 ± 0.20; KLD 0.0200; 256.0 tok/s; 210.0 W.
  EXPECT_NE(table.find("-30.00 ± 4.97"), std::string::npos) << table;
  EXPECT_NE(table.find("+5.00 ± 0.20"), std::string::npos) << table;
  EXPECT_NE(table.find("0.0200"), std::string::npos) << table;
  EXPECT_NE(table.find("2 (1 failed)"), std::string::npos) << table;
}

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
}  // namespace ecocompute::report
