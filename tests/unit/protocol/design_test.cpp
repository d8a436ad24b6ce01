// Design tests: expansion into conditions and validation errors that name the field.
#include "protocol/design.hpp"
#include "protocol/trial_result.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>
#include <string>
#include <utility>
#include <vector>

namespace ecocompute::protocol {
namespace {

Design two_candidates() {
  Design d;
  d.candidates = {"Q8_0", "Q4_K_M"};
  return d;
}

TEST(Design, DefaultsFollowThePublishedProtocol) {
  const Design d;
  EXPECT_EQ(d.baseline, "F16");
  EXPECT_EQ(d.trials, 3);
  EXPECT_EQ(d.warmups, 2);
  EXPECT_EQ(d.tokens_per_iteration, 256);
  EXPECT_EQ(d.iterations, 10);
  EXPECT_EQ(d.min_window.value, 20.0);
  EXPECT_EQ(d.max_edge_error_pct, 0.5);
  EXPECT_EQ(d.idle_window.value, 10.0);
  EXPECT_EQ(d.prompt.text, kDefaultPromptText);
  EXPECT_EQ(d.order, ScheduleOrder::alternating);
}

TEST(Design, ExpandPutsTheBaselineFirst) {
  const std::vector<Condition> c = two_candidates().expand();
  ASSERT_EQ(c.size(), 3u);
  EXPECT_EQ(c[0], (Condition{0, "F16", true, 0}));
  EXPECT_EQ(c[1], (Condition{1, "Q8_0", false, 0}));
  EXPECT_EQ(c[2], (Condition{2, "Q4_K_M", false, 0}));
}

TEST(Design, ExpandCrossesPrecisionsWithPromptLengths) {
  Design d = two_candidates();
  d.baseline = "BF16";
  d.prompt.lengths_tokens = {16, 512};
  const std::vector<Condition> c = d.expand();
  ASSERT_EQ(c.size(), 6u);  // 3 precisions × 2 lengths
  EXPECT_EQ(c[1], (Condition{1, "BF16", true, 512}));
  EXPECT_EQ(c[4], (Condition{4, "Q4_K_M", false, 16}));
  EXPECT_EQ(c[4].label(), "Q4_K_M/p16");
  EXPECT_EQ(c[0].label(), "BF16/p16");
}

TEST(Design, ExpandCrossesPrecisionsWithBatchesAndLabelsThemOnlyWhenTheyVary) {
  Design d = two_candidates();
  d.prompt.lengths_tokens = {16};
  d.batches = {1, 16};
  const std::vector<Condition> c = d.expand();
  ASSERT_EQ(c.size(), 6u);  // 3 precisions × 1 length × 2 batches
  EXPECT_EQ(c[1], (Condition{1, "F16", true, 16, 16, true}));
  EXPECT_EQ(c[1].label(), "F16/p16/b16");
  EXPECT_EQ(c[2].label(), "Q8_0/p16/b1");
  EXPECT_EQ(d.max_batch(), 16);

  d.prompt.lengths_tokens.clear();
  d.batches = {4};
  const std::vector<Condition> one = d.expand();
  ASSERT_EQ(one.size(), 3u);
  EXPECT_EQ(one[1].batch, 4);
  EXPECT_EQ(one[1].label(), "Q8_0");  // a single batch level is no factor of the label
}

TEST(Design, ValidDesignHasNoWarnings) {
  Result<ValidatedDesign> r = validate(two_candidates());
  ASSERT_TRUE(r.has_value());
  EXPECT_TRUE(r->warnings().empty());
  EXPECT_EQ(r->precision_types(), (std::vector<GgufType>{GgufType::F16, GgufType::Q8_0, GgufType::Q4_K_M}));
}

TEST(Design, ValidationPutsPrecisionsInTheTablesSpelling) {
  Design d = two_candidates();
  d.baseline = "bf16";
  d.candidates = {"q8_0", "iq4_nl"};
  Result<ValidatedDesign> r = validate(d);
  ASSERT_TRUE(r.has_value()) << r.error().describe();
  EXPECT_EQ(r->design().baseline, "BF16");
  EXPECT_EQ(r->design().candidates, (std::vector<std::string>{"Q8_0", "IQ4_NL"}));
}

TEST(Design, ValidationNamesTheField) {
  // Each case: the field the error must name, and how it is broken.
  const std::vector<std::pair<std::string, std::function<void(Design&)>>> cases{
      {"baseline", [](Design& d) { d.baseline = "Q8_0"; }},
      {"candidates", [](Design& d) { d.candidates.push_back("Q8_0"); }},
      {"candidates", [](Design& d) { d.candidates.push_back("F16"); }},
      {"candidates", [](Design& d) { d.candidates.push_back(""); }},
      {"candidates", [](Design& d) { d.candidates.push_back("NF4"); }},
      {"candidates", [](Design& d) { d.candidates.push_back("Q4_K_X"); }},
      {"candidates", [](Design& d) { d.candidates.push_back("q8_0"); }},
      {"trials", [](Design& d) { d.trials = 0; }},
      {"warmups", [](Design& d) { d.warmups = 0; }},
      {"trial_warmup_iterations", [](Design& d) { d.trial_warmup_iterations = -1; }},
      {"tokens_per_iteration", [](Design& d) { d.tokens_per_iteration = 0; }},
      {"level_warmup_tokens", [](Design& d) { d.level_warmup_tokens = 0; }},
      {"iterations", [](Design& d) { d.iterations = 0; }},
      {"min_window", [](Design& d) { d.min_window = Seconds{-1.0}; }},
      {"min_window", [](Design& d) { d.min_window = Seconds{std::nan("")}; }},
      {"min_prefill_window", [](Design& d) { d.min_prefill_window = Seconds{std::numeric_limits<double>::infinity()}; }},
      {"idle_window", [](Design& d) { d.idle_window = Seconds{std::nan("")}; }},
      {"cool_down.pause", [](Design& d) { d.cool_down.pause = Seconds{std::nan("")}; }},
      {"cool_down.max_temperature_c", [](Design& d) { d.cool_down.max_temperature_c = std::nan(""); }},
      {"max_edge_error_pct", [](Design& d) { d.max_edge_error_pct = 0.0; }},
      {"prompt.text", [](Design& d) { d.prompt.text.clear(); }},
      {"prompt.lengths_tokens", [](Design& d) { d.prompt.lengths_tokens = {32, 0}; }},
      {"prompt.lengths_tokens", [](Design& d) { d.prompt.lengths_tokens = {32, 32}; }},
      {"batches", [](Design& d) { d.batches = {1, 0}; }},
      {"batches", [](Design& d) { d.batches = {513}; }},
      {"batches", [](Design& d) { d.batches = {4, 4}; }},
      {"idle_window", [](Design& d) { d.idle_window = Seconds{-1.0}; }},
      {"cool_down.gate_poll", [](Design& d) {
         d.cool_down.max_temperature_c = 60.0;
         d.cool_down.gate_poll = Seconds{0.0};
       }},
  };
  for (const auto& [field, breaks] : cases) {
    Design design = two_candidates();
    breaks(design);
    Result<ValidatedDesign> r = validate(design);
    ASSERT_FALSE(r.has_value()) << field;
    EXPECT_EQ(r.error().code(), ErrorCode::invalid_argument);
    EXPECT_EQ(r.error().message().rfind(field + ":", 0), 0u) << r.error().message();
  }
}

TEST(Design, FewTrialsWarn) {
  Design d = two_candidates();
  d.trials = 1;
  Result<ValidatedDesign> one = validate(d);
  ASSERT_TRUE(one.has_value());
  ASSERT_EQ(one->warnings().size(), 1u);
  EXPECT_EQ(one->warnings().front().rfind("trials: 1;", 0), 0u);
  d.trials = 2;
  Result<ValidatedDesign> two = validate(d);
  ASSERT_EQ(two->warnings().size(), 1u);
  EXPECT_NE(two->warnings().front().find("12.71"), std::string::npos);
  d.trials = 3;
  d.candidates.clear();
  Result<ValidatedDesign> none = validate(d);
  ASSERT_EQ(none->warnings().size(), 1u);
  EXPECT_EQ(none->warnings().front().rfind("candidates:", 0), 0u);
}

TEST(ScheduleOrder, ParsesItsOwnSpelling) {
  for (ScheduleOrder o : {ScheduleOrder::alternating, ScheduleOrder::shuffled}) {
    EXPECT_EQ(parse_schedule_order(to_string(o)).value(), o);
  }
  Result<ScheduleOrder> bad = parse_schedule_order("abba");
  ASSERT_FALSE(bad.has_value());
  EXPECT_NE(bad.error().message().find("'abba'"), std::string::npos);
}

TEST(TrialWarmup, ParsesItsOwnSpelling) {
  for (TrialWarmup w : {TrialWarmup::every_trial, TrialWarmup::on_change}) {
    EXPECT_EQ(parse_trial_warmup(to_string(w)).value(), w);
  }
  EXPECT_EQ(to_string(TrialWarmup::on_change), "change");
  Result<TrialWarmup> bad = parse_trial_warmup("sometimes");
  ASSERT_FALSE(bad.has_value());
  EXPECT_NE(bad.error().message().find("'sometimes'"), std::string::npos);
}

TEST(TrialStatus, ParsesItsOwnSpelling) {
  for (TrialStatus s : {TrialStatus::ok, TrialStatus::throttled, TrialStatus::invalid_window,
                        TrialStatus::engine_failed, TrialStatus::not_run}) {
    EXPECT_EQ(parse_trial_status(to_string(s)).value(), s);
  }
  EXPECT_FALSE(parse_trial_status("failed").has_value());
}

}  // namespace
}  // namespace ecocompute::protocol

namespace ecocompute::protocol {
namespace {

Design labelled(std::string baseline, std::vector<std::string> candidates) {
  Design d;
  d.precision_labels = true;
  d.baseline = std::move(baseline);
  d.candidates = std::move(candidates);
  return d;
}

TEST(Design, PrecisionLabelsNeedNotBeGgufTypes) {
  auto checked = validate(labelled("FP16", {"NF4", "INT8", "bnb_nf4_dq"}));
  ASSERT_TRUE(checked) << checked.error().describe();
  EXPECT_EQ(checked->design().baseline, "FP16");
  EXPECT_EQ(checked->design().candidates[0], "NF4");  // kept as written, not respelled
  EXPECT_TRUE(checked->precision_types().empty());
  // Without precision_labels the same names are not GGUF types.
  Design gguf = labelled("FP16", {"NF4"});
  gguf.precision_labels = false;
  EXPECT_FALSE(validate(gguf));
}

TEST(Design, PrecisionLabelsMustFitTheReportsAndDiffer) {
  for (const Design& bad : {labelled("", {"NF4"}), labelled("FP-16", {"NF4"}), labelled("FP16", {"NF 4"}),
                            labelled("FP16", {std::string(33, 'A')}), labelled("FP16", {"FP16"}),
                            labelled("FP16", {"NF4", "NF4"})}) {
    auto checked = validate(bad);
    ASSERT_FALSE(checked) << bad.baseline;
    EXPECT_EQ(checked.error().code(), ErrorCode::invalid_argument);
  }
}

}  // namespace
}  // namespace ecocompute::protocol
