// Runner tests on fake time: order, window arithmetic, failures kept with reasons, cancellation,
// the temperature gate, a meter without energy.
#include "protocol/runner.hpp"

#include <gtest/gtest.h>

#include <atomic>

#include "fake_run.hpp"

namespace ecocompute::protocol {
namespace {

using testing::FakeRun;

TEST(Runner, RunsEveryTrialInScheduleOrderWithExactEnergy) {
  FakeRun fake;
  Result<RunResult> result = fake.run();
  ASSERT_TRUE(result.has_value()) << result.error().describe();
  const RunResult& run = *result;

  EXPECT_EQ(fake.provider_calls, 3);  // each precision loaded once, up front
  ASSERT_EQ(run.trials.size(), 9u);
  for (const TrialResult& trial : run.trials) {
    EXPECT_EQ(trial.status, TrialStatus::ok) << trial.reason;
    EXPECT_EQ(trial.reason, "");  // an ok trial carries no reason
  }
  EXPECT_EQ(run.count_not_ok(), 0u);
  EXPECT_EQ(run.schedule.seed, 1u);

  // The meter saw the idle window, then prefill + decode per trial in alternating blocks.
  const std::vector<std::string> expected_labels{
      "idle",
      "F16 #1 prefill", "F16 #1 decode", "Q8_0 #1 prefill", "Q8_0 #1 decode", "Q4_K_M #1 prefill", "Q4_K_M #1 decode",
      "Q4_K_M #2 prefill", "Q4_K_M #2 decode", "Q8_0 #2 prefill", "Q8_0 #2 decode", "F16 #2 prefill", "F16 #2 decode",
      "F16 #3 prefill", "F16 #3 decode", "Q8_0 #3 prefill", "Q8_0 #3 decode", "Q4_K_M #3 prefill", "Q4_K_M #3 decode"};
  EXPECT_EQ(fake.meter.labels(), expected_labels);
  EXPECT_EQ(fake.meter.open_windows(), 0u);

  // Idle: 10 s at 100 W → 1000 J / 10 s = 100 W.
  ASSERT_TRUE(run.idle.power.has_value());
  EXPECT_DOUBLE_EQ(run.idle.power->value, 100.0);

  // Fastest iteration: Q4_K_M, 10 prompt tokens × 1 ms + 256 × 5 ms = 1.29 s.
  // Required window max(20 s, 0.1 s / 0.5 %) = 20 s; × 1.1 margin = 22 s; ⌈22 / 1.29⌉ = ⌈17.05⌉ = 18.
  EXPECT_EQ(run.iteration_decisions.front().iterations, 18);
  EXPECT_EQ(run.iteration_decisions.front().fastest_condition, std::optional<std::size_t>(2));
  EXPECT_TRUE(run.iteration_decisions.front().update_period_measured);
  EXPECT_DOUBLE_EQ(run.iteration_decisions.front().required_decode_window.value, 20.0);
  // Prefill: 10 tokens × 1 ms = 0.01 s per prefill; ⌈22 / 0.01⌉ = 2200 repeats.
  EXPECT_EQ(run.setups[0].prefill_repeats, 2200);
  EXPECT_EQ(run.setups[0].prompt_token_count, 10);
  ASSERT_EQ(run.setups[0].warmups.size(), 2u);

  // F16 decode window: 18 × (prefill 0.01 s × 300 W = 3 J + decode 2.56 s × 400 W = 1024 J)
  //   = 18486 J over 18 × 2.57 s = 46.26 s; idle 100 W × 46.26 s = 4626 J; net 13860 J;
  //   4608 tokens → 18486 / 4608 = 4.01171875 J = 4011.71875 mJ gross, 13860 / 4608 = 3007.8125 mJ net.
  const TrialResult& f16 = run.trials[0];
  ASSERT_TRUE(f16.decode.has_value());
  EXPECT_EQ(f16.decode->tokens, 4608);
  EXPECT_EQ(f16.decode->repeats, 18);
  EXPECT_EQ(f16.decode->prefill_tokens_inside, 180);
  EXPECT_NEAR(f16.decode->measurement.duration.value, 46.26, 1e-9);
  EXPECT_NEAR(f16.decode->energy_gross->value, 18486.0, 1e-6);
  EXPECT_NEAR(f16.decode->energy_idle->value, 4626.0, 1e-6);
  EXPECT_NEAR(f16.decode->energy_net->value, 13860.0, 1e-6);
  EXPECT_NEAR(*f16.decode->energy_per_token_gross_mj(), 4011.71875, 1e-6);
  EXPECT_NEAR(*f16.decode->energy_per_token_net_mj(), 3007.8125, 1e-6);
  // Prefill window: 2200 × 10 tokens × 1 ms at 300 W = 22 s, 6600 J, 22000 tokens → 300 mJ/token.
  ASSERT_TRUE(f16.prefill.has_value());
  EXPECT_EQ(f16.prefill->tokens, 22000);
  EXPECT_NEAR(f16.prefill->energy_gross->value, 6600.0, 1e-6);
  EXPECT_NEAR(*f16.prefill->energy_per_token_gross_mj(), 300.0, 1e-9);
  // Net prefill: 6600 − 100 W × 22 s = 4400 J → 200 mJ/token.
  EXPECT_NEAR(*f16.prefill->energy_per_token_net_mj(), 200.0, 1e-6);

  // Q4_K_M decode: 18 × (3 J + 1.28 s × 300 W = 384 J) = 6966 J; ΔE gross = 6966 / 18486 − 1 = −62.3174 %.
  // Net: 6966 − 100 × 23.22 = 4644 J; 4644 / 13860 − 1 = −66.4935 %. Identical in every block: SD 0.
  const PairedComparison* gross = run.find_comparison(2, "decode_energy_per_token_gross_mj");
  ASSERT_NE(gross, nullptr);
  EXPECT_EQ(gross->pairs.size(), 3u);
  EXPECT_NEAR(gross->delta_pct.mean, -62.317429406037, 1e-9);
  EXPECT_NEAR(*gross->delta_pct.sd, 0.0, 1e-9);
  const PairedComparison* net = run.find_comparison(2, "decode_energy_per_token_net_mj");
  ASSERT_NE(net, nullptr);
  EXPECT_NEAR(net->delta_pct.mean, -66.49350649350649, 1e-9);

  // Q8_0 decode: 18 × (3 J + 2.048 s × 350 W = 716.8 J) = 12956.4 J → 12956.4 / 4608 = 2811.71875 mJ/token.
  const ConditionSummary& q8 = run.summaries[1];
  EXPECT_EQ(q8.n_ok, 3u);
  ASSERT_NE(q8.find("decode_energy_per_token_gross_mj"), nullptr);
  EXPECT_NEAR(q8.find("decode_energy_per_token_gross_mj")->summary.mean, 2811.71875, 1e-6);
  // Each comparison: 2 candidates × 4 paired metrics.
  EXPECT_EQ(run.comparisons.size(), 8u);
}

TEST(Runner, FailedTrialIsKeptWithItsReasonAndTheRunGoesOn) {
  FakeRun fake;
  // Q8_0's decode calls: 2 warm-ups, then 18 per decode window; call 5 is inside trial 1's window.
  fake.setup["Q8_0"] = [](fakes::FakeEngine& e) { e.fail_call("decode", 5, "CUDA error: out of memory"); };
  Result<RunResult> result = fake.run();
  ASSERT_TRUE(result.has_value());
  const RunResult& run = *result;
  ASSERT_EQ(run.trials.size(), 9u);
  const TrialResult& failed = run.trials[1];
  EXPECT_EQ(failed.precision, "Q8_0");
  EXPECT_EQ(failed.status, TrialStatus::engine_failed);
  EXPECT_EQ(failed.reason, "decode window: CUDA error: out of memory");
  ASSERT_TRUE(failed.decode.has_value());
  EXPECT_EQ(failed.decode->repeats, 2);  // two iterations finished before the failing call
  EXPECT_EQ(fake.meter.open_windows(), 0u);
  EXPECT_EQ(run.count_not_ok(), 1u);
  EXPECT_EQ(run.summaries[1].n_trials, 3u);
  EXPECT_EQ(run.summaries[1].n_ok, 2u);
  const PairedComparison* q8 = run.find_comparison(1, "decode_energy_per_token_gross_mj");
  ASSERT_NE(q8, nullptr);
  ASSERT_EQ(q8->pairs.size(), 2u);  // blocks 2 and 3 only
  EXPECT_EQ(q8->pairs[0].block, 1);
  EXPECT_EQ(q8->pairs[1].block, 2);
}

TEST(Runner, InvalidWindowBecomesAnInvalidWindowTrial) {
  FakeRun fake;
  fake.meter.invalidate("Q4_K_M #2 decode", meter::WindowStatus::counter_reset, "counter went backwards");
  fake.meter.fail("F16 #3 prefill", "nvmlDeviceGetTotalEnergyConsumption failed");
  Result<RunResult> result = fake.run();
  ASSERT_TRUE(result.has_value());
  const RunResult& run = *result;
  const TrialResult& reset = run.trials[3];  // block 2 starts with Q4_K_M
  EXPECT_EQ(reset.precision, "Q4_K_M");
  EXPECT_EQ(reset.status, TrialStatus::invalid_window);
  EXPECT_EQ(reset.reason, "decode window: counter_reset: counter went backwards");
  const TrialResult& error = run.trials[6];  // block 3 starts with F16
  EXPECT_EQ(error.precision, "F16");
  EXPECT_EQ(error.status, TrialStatus::invalid_window);
  EXPECT_EQ(error.reason, "prefill window: nvmlDeviceGetTotalEnergyConsumption failed");
  EXPECT_FALSE(error.decode.has_value());  // the trial stopped at its first invalid window
  EXPECT_EQ(run.count_not_ok(), 2u);
  // Q4_K_M pairs: block 1 only (its block-2 trial is invalid, block 3's baseline is invalid).
  EXPECT_EQ(run.find_comparison(2, "decode_energy_per_token_gross_mj")->pairs.size(), 1u);
}

TEST(Runner, ThrottledTrialIsFlaggedAndExcludedUnlessAccepted) {
  for (bool accept : {false, true}) {
    FakeRun fake;
      fake.meter.throttle("F16 #3 decode", {"sw_thermal_slowdown"});
    Design design = testing::test_design();
    design.accept_throttled = accept;
    Result<RunResult> result = fake.run(design);
    ASSERT_TRUE(result.has_value());
    const TrialResult& trial = result->trials[6];
    EXPECT_TRUE(trial.throttled);
    if (accept) {
      EXPECT_EQ(trial.status, TrialStatus::ok);
      EXPECT_EQ(trial.reason, "throttled, accepted by the design: sw_thermal_slowdown (decode)");
      EXPECT_EQ(result->summaries[0].n_ok, 3u);
    } else {
      EXPECT_EQ(trial.status, TrialStatus::throttled);
      EXPECT_EQ(trial.reason, "throttled: sw_thermal_slowdown (decode)");
      EXPECT_EQ(result->summaries[0].n_ok, 2u);
    }
  }
}

TEST(Runner, AConditionThrottledInEveryTrialIsNamedInAWarningThatSaysWhatToDo) {
  // As at 14 B F16 on the H200: every baseline trial reaches the power cap.
  for (bool accept : {false, true}) {
    FakeRun fake;
    for (const char* trial : {"F16 #1 decode", "F16 #2 decode", "F16 #3 decode"}) fake.meter.throttle(trial, {"sw_power_cap"});
    Design design = testing::test_design();
    design.accept_throttled = accept;
    Result<RunResult> result = fake.run(design);
    ASSERT_TRUE(result.has_value());
    std::string warned;
    for (const std::string& w : result->warnings) {
      if (w.find("every trial of F16") != std::string::npos) warned = w;
    }
    if (accept) {
      EXPECT_EQ(warned, "");  // counted, flagged: nothing to warn about
      EXPECT_EQ(result->summaries[0].n_ok, 3u);
    } else {
      EXPECT_NE(warned.find("(3 of 3) was throttled (sw_power_cap (decode))"), std::string::npos) << warned;
      EXPECT_NE(warned.find("no candidate is compared with it"), std::string::npos) << warned;
      EXPECT_NE(warned.find("--accept-throttled"), std::string::npos) << warned;
    }
  }
  // One throttled trial of three is not "every trial".
  FakeRun fake;
  fake.meter.throttle("F16 #3 decode", {"sw_power_cap"});
  Result<RunResult> one = fake.run();
  ASSERT_TRUE(one.has_value());
  for (const std::string& w : one->warnings) EXPECT_EQ(w.find("every trial of"), std::string::npos) << w;
}

TEST(Runner, CancellationKeepsCompletedTrialsAndRecordsTheRestAsNotRun) {
  FakeRun fake;
  std::atomic<bool> cancel{false};
  Result<RunResult> result = fake.run(testing::test_design(), [&](Runner& runner) {
    runner.set_cancel_flag(&cancel);
    runner.set_progress([&](const Progress& p) {
      if (p.phase == Progress::Phase::trial && p.trial == 4) cancel = true;  // as Ctrl-C after trial 4
    });
  });
  ASSERT_TRUE(result.has_value());
  const RunResult& run = *result;
  EXPECT_TRUE(run.cancelled);
  ASSERT_EQ(run.trials.size(), 9u);
  for (std::size_t i = 0; i < 4; ++i) EXPECT_EQ(run.trials[i].status, TrialStatus::ok) << i;
  for (std::size_t i = 4; i < 9; ++i) {
    EXPECT_EQ(run.trials[i].status, TrialStatus::not_run) << i;
    EXPECT_EQ(run.trials[i].reason, "the run was cancelled before this trial");
    EXPECT_FALSE(run.trials[i].decode.has_value());
  }
  // Block 1 is complete, so each candidate still has its first pair.
  EXPECT_EQ(run.find_comparison(1, "decode_energy_per_token_gross_mj")->pairs.size(), 1u);
  EXPECT_EQ(fake.meter.open_windows(), 0u);
  EXPECT_EQ(run.count_not_ok(), 5u);
}

TEST(Runner, InterruptDuringADecodeWindowDiscardsItAtTheNextToken) {
  FakeRun fake;
  std::atomic<bool> cancel{false};
  bool armed = false;          // set when trial 2 (Q8_0 #1) starts: its warm-ups are over
  std::int64_t tokens_after_interrupt = 0;
  fake.setup["Q8_0"] = [&](fakes::FakeEngine& engine) {
    engine.on_decode_token = [&](std::int64_t) {
      if (cancel) ++tokens_after_interrupt;
      if (armed) cancel = true;  // as Ctrl-C at the first token of the decode window
    };
  };
  Result<RunResult> result = fake.run(testing::test_design(), [&](Runner& runner) {
    runner.set_cancel_flag(&cancel);
    runner.set_progress([&](const Progress& p) {
      if (p.phase == Progress::Phase::trial && p.message.rfind("trial 2/9 Q8_0", 0) == 0) armed = true;
    });
  });
  ASSERT_TRUE(result.has_value());
  const RunResult& run = *result;
  EXPECT_TRUE(run.cancelled);
  EXPECT_EQ(run.trials[0].status, TrialStatus::ok);
  const TrialResult& interrupted = run.trials[1];
  EXPECT_EQ(interrupted.status, TrialStatus::cancelled);
  EXPECT_NE(interrupted.reason.find("interrupted during the decode window"), std::string::npos) << interrupted.reason;
  EXPECT_TRUE(interrupted.prefill.has_value());   // finished before the interrupt: kept
  EXPECT_FALSE(interrupted.decode.has_value());   // unfinished: discarded
  EXPECT_FALSE(interrupted.failed());
  EXPECT_EQ(tokens_after_interrupt, 0);           // the engine stopped at the next token
  for (std::size_t i = 2; i < 9; ++i) EXPECT_EQ(run.trials[i].status, TrialStatus::not_run) << i;
  EXPECT_EQ(run.count_failed(), 0u);
  EXPECT_EQ(run.count_not_ok(), 8u);
  EXPECT_EQ(fake.meter.open_windows(), 0u);
}

TEST(Runner, LoadFailureIsRecordedAgainstEveryTrialOfThatPrecision) {
  FakeRun fake;
  fake.load_failures["Q8_0"] = "Q8_0: not enough GPU memory";
  Result<RunResult> result = fake.run();
  ASSERT_TRUE(result.has_value());
  const RunResult& run = *result;
  EXPECT_FALSE(run.setups[1].loaded);
  EXPECT_EQ(run.setups[1].failure, "load failed: Q8_0: not enough GPU memory");
  int failed = 0;
  for (const TrialResult& trial : run.trials) {
    if (trial.precision == "Q8_0") {
      EXPECT_EQ(trial.status, TrialStatus::engine_failed);
      EXPECT_EQ(trial.reason, "load failed: Q8_0: not enough GPU memory");
      ++failed;
    } else {
      EXPECT_EQ(trial.status, TrialStatus::ok);
    }
  }
  EXPECT_EQ(failed, 3);
}

TEST(Runner, WarmupFailureFailsOnlyThatCondition) {
  FakeRun fake;
  fake.setup["Q4_K_M"] = [](fakes::FakeEngine& e) { e.fail_call("decode", 2, "kernel launch failed"); };
  Result<RunResult> result = fake.run();
  ASSERT_TRUE(result.has_value());
  EXPECT_EQ(result->setups[2].failure, "warm-up 2 failed: kernel launch failed");
  EXPECT_EQ(result->trials[2].status, TrialStatus::engine_failed);
  // The fastest usable condition is now Q8_0: 0.01 + 256 × 0.008 = 2.058 s; ⌈22 / 2.058⌉ = ⌈10.69⌉ = 11.
  EXPECT_EQ(result->iteration_decisions.front().iterations, 11);
  EXPECT_EQ(result->iteration_decisions.front().fastest_condition, std::optional<std::size_t>(1));
}

TEST(Runner, NoLoadableEngineIsAnEngineError) {
  FakeRun fake;
  for (const char* p : {"F16", "Q8_0", "Q4_K_M"}) fake.load_failures[p] = "missing file";
  Result<RunResult> result = fake.run();
  ASSERT_FALSE(result.has_value());
  EXPECT_EQ(result.error().code(), ErrorCode::engine);
  EXPECT_NE(result.error().message().find("F16: missing file"), std::string::npos);
}

TEST(Runner, InvalidDesignIsRejectedBeforeAnythingLoads) {
  FakeRun fake;
  Design design = testing::test_design();
  design.trials = 0;
  Result<RunResult> result = fake.run(design);
  ASSERT_FALSE(result.has_value());
  EXPECT_EQ(result.error().code(), ErrorCode::invalid_argument);
  EXPECT_EQ(fake.provider_calls, 0);
}

TEST(Runner, MeterWithoutEnergyStillMeasuresThroughput) {
  fakes::FakeDevice device;
  fakes::FakeMeter meter(device, /*measures_energy=*/false);
  FakeRun fake;
  testing::FakeDeviceClock clock(device);
  // The engines' work must advance this run's device.
  std::vector<std::unique_ptr<fakes::FakeEngine>> engines;
  EngineProvider provider = [&](const Condition& c) -> Result<std::reference_wrapper<engine::Engine>> {
    engines.push_back(std::make_unique<fakes::FakeEngine>(fake.scripts.at(c.precision),
                                                          [&](Seconds d, Watts p) { device.run(d, p); }));
    return std::ref<engine::Engine>(*engines.back());
  };
  Runner runner(*validate(testing::test_design()), meter, provider, clock);
  Result<RunResult> result = runner.run();
  ASSERT_TRUE(result.has_value());
  const RunResult& run = *result;
  EXPECT_FALSE(run.meter_measures_energy);
  EXPECT_FALSE(run.idle.power.has_value());
  // No measured update period: the assumed 0.1 s gives the same 18 iterations.
  EXPECT_FALSE(run.iteration_decisions.front().update_period_measured);
  for (const TrialResult& trial : run.trials) {
    EXPECT_EQ(trial.status, TrialStatus::ok);
    EXPECT_FALSE(trial.decode->energy_gross.has_value());
  }
  // F16 decode: 4608 tokens / 46.26 s = 99.6109 tokens/s.
  EXPECT_NEAR(*run.trials[0].decode->throughput_tokens_per_s(), 4608.0 / 46.26, 1e-9);
  EXPECT_EQ(run.summaries[0].find("decode_energy_per_token_gross_mj"), nullptr);
  ASSERT_NE(run.summaries[0].find("decode_throughput_tokens_per_s"), nullptr);
  EXPECT_TRUE(run.find_comparison(1, "decode_energy_per_token_gross_mj")->pairs.empty());
}

// Runs the test design with a 70 °C gate on a device at 90 °C that cools 1 °C per idle second and
// does not heat: the 10-s idle window brings it to 80 °C before the first trial.
Result<RunResult> run_with_gate(Seconds gate_timeout) {
  FakeRun fake;
  fake.device.set_temperature_c(90.0);
  fake.device.set_thermal(0.0, 1.0, 20.0);
  Design design = testing::test_design();
  design.cool_down.max_temperature_c = 70.0;
  design.cool_down.gate_timeout = gate_timeout;
  return fake.run(design);
}

TEST(Runner, TemperatureGateWaitsUntilTheDeviceHasCooled) {
  Result<RunResult> result = run_with_gate(Seconds{120.0});
  ASSERT_TRUE(result.has_value());
  // Trial 1 reads 80, 79, … 70 °C one second apart: 10 s of waiting. Later trials start at 70 °C.
  EXPECT_NEAR(result->trials[0].cool_down_wait.value, 10.0, 1e-9);
  EXPECT_EQ(result->trials[0].temperature_start_c, std::optional<double>(70.0));
  EXPECT_FALSE(result->trials[0].gate_timed_out);
  EXPECT_NEAR(result->trials[1].cool_down_wait.value, 0.0, 1e-12);
}

TEST(Runner, TemperatureGateGivesUpAfterItsTimeoutAndFlagsTheTrial) {
  Result<RunResult> result = run_with_gate(Seconds{3.0});
  ASSERT_TRUE(result.has_value());
  // Reads at 0, 1, 2, 3 s: 80, 79, 78, 77 °C; at 3 s the timeout has passed.
  EXPECT_TRUE(result->trials[0].gate_timed_out);
  EXPECT_EQ(result->trials[0].temperature_start_c, std::optional<double>(77.0));
  EXPECT_NEAR(result->trials[0].cool_down_wait.value, 3.0, 1e-9);
  EXPECT_EQ(result->trials[0].status, TrialStatus::ok);
}

TEST(Runner, ProgressReportsEveryTrialWithAnEta) {
  FakeRun fake;
  std::vector<Progress> reports;
  ASSERT_TRUE(fake.run(testing::test_design(), [&](Runner& runner) {
                    runner.set_progress([&](const Progress& p) { reports.push_back(p); });
                  }).has_value());
  std::vector<std::size_t> finished;
  for (const Progress& p : reports) {
    EXPECT_EQ(p.n_trials, 9u);
    if (p.phase == Progress::Phase::trial && p.message.find(": ok") != std::string::npos) {
      finished.push_back(p.trial);
      EXPECT_TRUE(p.eta.has_value());
    }
  }
  EXPECT_EQ(finished, (std::vector<std::size_t>{1, 2, 3, 4, 5, 6, 7, 8, 9}));
  EXPECT_EQ(reports.back().phase, Progress::Phase::done);
  EXPECT_EQ(reports.front().phase, Progress::Phase::loading);
  // From the first report on there is an ETA: before any trial has run, the plan's floor (the idle
  // window and nine trials' windows at their shortest), marked as a floor.
  const Design design = testing::test_design();
  const Progress& first = reports.front();
  ASSERT_TRUE(first.eta.has_value());
  EXPECT_TRUE(first.eta_is_lower_bound);
  double floor = design.idle_window.value;
  for (int i = 0; i < 9; ++i) floor += design.min_window.value + (design.prefill_windows_at(1) ? design.min_prefill_window.value : 0.0);
  EXPECT_NEAR(first.eta->value, floor, 1e-9);
  for (const Progress& p : reports) {
    if (p.trial > 0 && p.phase != Progress::Phase::done) {
      EXPECT_FALSE(p.eta_is_lower_bound) << p.message;
    }
  }
}

TEST(Runner, PromptLengthsAreLevelsPairedWithTheirOwnBaseline) {
  FakeRun fake;
  Design design = testing::test_design();
  design.candidates = {"Q8_0"};
  design.prompt.lengths_tokens = {16, 64};
  design.trials = 2;
  Result<RunResult> result = fake.run(design);
  ASSERT_TRUE(result.has_value());
  ASSERT_EQ(result->conditions.size(), 4u);  // F16/p16, F16/p64, Q8_0/p16, Q8_0/p64
  EXPECT_EQ(result->setups[0].prompt_token_count, 16);
  EXPECT_EQ(result->setups[1].prompt_token_count, 64);
  EXPECT_EQ(fake.provider_calls, 2);
  const PairedComparison* p64 = result->find_comparison(3, "decode_energy_per_token_gross_mj");
  ASSERT_NE(p64, nullptr);
  EXPECT_EQ(p64->baseline_condition, 1u);
  EXPECT_EQ(p64->pairs.size(), 2u);
}

// F16 and Q8_0 at `batches`, two trials; a batch-4 step is scripted in `fake`: F16 12 ms at 500 W,
// Q8_0 10 ms at 450 W.
Design batch_design(FakeRun& fake, std::vector<int> batches) {
  fake.scripts["F16"].batched_decode[4] = {Seconds{0.012}, Watts{500.0}};
  fake.scripts["Q8_0"].batched_decode[4] = {Seconds{0.010}, Watts{450.0}};
  Design design = testing::test_design();
  design.candidates = {"Q8_0"};
  design.batches = std::move(batches);
  design.trials = 2;
  return design;
}

Result<RunResult> run_batches(FakeRun& fake, std::vector<int> batches) {
  return fake.run(batch_design(fake, std::move(batches)));
}

TEST(Runner, BatchesAreLevelsWhoseWindowsCountEverySequencesTokens) {
  FakeRun fake;
  Result<RunResult> result = run_batches(fake, {1, 4});
  ASSERT_TRUE(result.has_value()) << result.error().describe();
  const RunResult& run = *result;
  ASSERT_EQ(run.conditions.size(), 4u);  // F16/b1, F16/b4, Q8_0/b1, Q8_0/b4
  EXPECT_EQ(run.conditions[1].label(), "F16/b4");
  EXPECT_EQ(run.conditions[3].label(), "Q8_0/b4");
  EXPECT_EQ(fake.provider_calls, 2);  // one engine per precision serves every batch
  EXPECT_EQ(fake.meter.labels()[1], "F16/b1 #1 prefill");

  for (const TrialResult& trial : run.trials) {
    ASSERT_EQ(trial.status, TrialStatus::ok) << trial.reason;
    const int batch = run.conditions[trial.condition].batch;
    const int iterations = run.decision_for(batch).iterations;
    ASSERT_TRUE(trial.decode.has_value());
    // Every iteration generates batch × 256 tokens; the prompt is computed once per iteration.
    EXPECT_EQ(trial.decode->tokens, static_cast<std::int64_t>(iterations) * batch * 256);
    EXPECT_EQ(trial.decode->prefill_tokens_inside, static_cast<std::int64_t>(iterations) * 10);
  }
  // F16/b4: per iteration 10 × 1 ms at 300 W = 3 J + 256 steps × 12 ms at 500 W = 1536 J over 1024
  // tokens → 1539 / 1024 J = 1502.9296875 mJ per token.
  const ConditionSummary& f16_b4 = run.summaries[1];
  ASSERT_NE(f16_b4.find("decode_energy_per_token_gross_mj"), nullptr);
  EXPECT_NEAR(f16_b4.find("decode_energy_per_token_gross_mj")->summary.mean, 1502.9296875, 1e-6);
}

TEST(Runner, EachBatchLevelSizesItsOwnWindowsFromItsFastestCondition) {
  FakeRun fake;
  Result<RunResult> result = run_batches(fake, {1, 4});
  ASSERT_TRUE(result.has_value()) << result.error().describe();
  ASSERT_EQ(result->iteration_decisions.size(), 2u);
  // Batch 1: Q8_0 is fastest, 10 ms of prefill + 256 × 8 ms = 2.058 s per iteration, so a 20-s window
  // with the 10 % margin needs ⌈22 / 2.058⌉ = 11. Batch 4: Q8_0 again, 10 ms + 256 × 10 ms = 2.57 s,
  // ⌈22 / 2.57⌉ = 9, under the 10 requested. One count shared by both levels would have given 11.
  const IterationDecision& b1 = result->decision_for(1);
  const IterationDecision& b4 = result->decision_for(4);
  EXPECT_EQ(b1.batch, 1);
  EXPECT_EQ(b1.iterations, 11);
  EXPECT_EQ(b1.fastest_condition, std::optional<std::size_t>(2));
  EXPECT_EQ(b4.batch, 4);
  EXPECT_EQ(b4.iterations, 10);
  EXPECT_EQ(b4.fastest_condition, std::optional<std::size_t>(3));
  for (const TrialResult& trial : result->trials) {
    ASSERT_TRUE(trial.decode.has_value());
    EXPECT_EQ(trial.decode->repeats, result->conditions[trial.condition].batch == 1 ? 11 : 10);
    EXPECT_EQ(trial.decode->repeat_times.size(), static_cast<std::size_t>(trial.decode->repeats));
  }
}

TEST(Runner, WarmUpOnChangeWarmsWholeIterationsOnlyWhereThePrecisionChanges) {
  FakeRun fake;
  Design design = batch_design(fake, {1, 4});
  design.trial_warmup_iterations = 1;
  design.trial_warmup = TrialWarmup::on_change;
  design.level_warmup_tokens = 16;
  Result<RunResult> result = fake.run(design);
  ASSERT_TRUE(result.has_value()) << result.error().describe();
  // Block 1: F16/b1 F16/b4 Q8_0/b1 Q8_0/b4; block 2 reversed: Q8_0/b4 Q8_0/b1 F16/b4 F16/b1.
  std::vector<std::string> warmups;
  for (const TrialResult& trial : result->trials) warmups.push_back(trial.warmup);
  ASSERT_EQ(warmups.size(), 8u);
  EXPECT_EQ(warmups[0], "1 iteration");
  EXPECT_EQ(warmups[1], "a prefill and 16 decode steps at batch 4 (batch changed from 1)");
  EXPECT_EQ(warmups[2], "1 iteration");
  EXPECT_EQ(warmups[3], "a prefill and 16 decode steps at batch 4 (batch changed from 1)");
  EXPECT_EQ(warmups[4], "none (the trial before ran the same condition)");
  EXPECT_EQ(warmups[5], "a prefill and 16 decode steps at batch 1 (batch changed from 4)");
  EXPECT_EQ(warmups[6], "1 iteration");
  EXPECT_EQ(warmups[7], "a prefill and 16 decode steps at batch 1 (batch changed from 4)");

  // Every trial warms up with a whole iteration by default.
  design.trial_warmup = TrialWarmup::every_trial;
  FakeRun every;
  every.scripts = fake.scripts;
  Result<RunResult> plain = every.run(design);
  ASSERT_TRUE(plain.has_value()) << plain.error().describe();
  for (const TrialResult& trial : plain->trials) EXPECT_EQ(trial.warmup, "1 iteration");
}

TEST(Runner, PrefillWindowsAtTheFirstBatchOnlyLeaveTheOtherLevelsWithoutOne) {
  FakeRun fake;
  Design design = batch_design(fake, {1, 4});
  design.prefill_at_every_batch = false;
  Result<RunResult> result = fake.run(design);
  ASSERT_TRUE(result.has_value()) << result.error().describe();
  for (const TrialResult& trial : result->trials) {
    ASSERT_EQ(trial.status, TrialStatus::ok) << trial.reason;
    EXPECT_EQ(trial.prefill.has_value(), result->conditions[trial.condition].batch == 1) << trial.index;
    EXPECT_TRUE(trial.decode.has_value());
  }
  for (const std::string& label : fake.meter.labels()) {
    EXPECT_EQ(label.find("/b4 #") != std::string::npos && label.find("prefill") != std::string::npos, false) << label;
  }
}

TEST(Runner, ABatchedCandidateIsPairedWithTheBaselineAtItsOwnBatch) {
  FakeRun fake;
  Result<RunResult> result = run_batches(fake, {1, 4});
  ASSERT_TRUE(result.has_value()) << result.error().describe();
  const PairedComparison* b4 = result->find_comparison(3, "decode_energy_per_token_gross_mj");
  ASSERT_NE(b4, nullptr);
  EXPECT_EQ(b4->baseline_condition, 1u);
  EXPECT_EQ(b4->pairs.size(), 2u);
  // Q8_0/b4: 3 J + 256 × 10 ms × 450 W = 1155 J per 1024 tokens; vs F16/b4 1539 J: 1155 / 1539 − 1.
  EXPECT_NEAR(b4->delta_pct.mean, (1155.0 / 1539.0 - 1.0) * 100.0, 1e-9);
  const PairedComparison* b1 = result->find_comparison(2, "decode_energy_per_token_gross_mj");
  ASSERT_NE(b1, nullptr);
  EXPECT_EQ(b1->baseline_condition, 0u);
}

TEST(Runner, ASingleBatchLevelAboveOneKeepsPlainLabels) {
  FakeRun fake;
  Result<RunResult> result = run_batches(fake, {4});
  ASSERT_TRUE(result.has_value()) << result.error().describe();
  ASSERT_EQ(result->conditions.size(), 2u);
  EXPECT_EQ(result->conditions[0].label(), "F16");
  EXPECT_EQ(fake.meter.labels()[1], "F16 #1 prefill");
  ASSERT_TRUE(result->trials[0].decode.has_value());
  EXPECT_EQ(result->trials[0].decode->tokens, static_cast<std::int64_t>(result->iteration_decisions.front().iterations) * 4 * 256);
}

TEST(Runner, DrawnSeedIsRecorded) {
  FakeRun fake;
  Design design = testing::test_design();
  design.seed.reset();
  design.order = ScheduleOrder::shuffled;
  Result<RunResult> result = fake.run(design);
  ASSERT_TRUE(result.has_value());
  ASSERT_TRUE(result->design.seed.has_value());
  EXPECT_EQ(result->schedule.seed, *result->design.seed);
  EXPECT_EQ(result->schedule.order, ScheduleOrder::shuffled);
}

TEST(DecideIterations, ExtendsToTheRequiredWindowAndNeverShortens) {
  Design design;
  // 0.1 s / 0.5 % = 20 s = min_window; × 1.1 = 22 s; ⌈22 / 1.29⌉ = 18.
  EXPECT_EQ(decide_iterations(design, Seconds{1.29}, std::nullopt).iterations, 18);
  // 10 requested × 5 s = 50 s already ≥ 22 s: keep 10.
  EXPECT_EQ(decide_iterations(design, Seconds{5.0}, std::nullopt).iterations, 10);
  // A measured 0.2 s period: 0.2 / 0.005 = 40 s; × 1.1 = 44 s; ⌈44 / 1.29⌉ = ⌈34.1⌉ = 35.
  const IterationDecision slow = decide_iterations(design, Seconds{1.29}, Seconds{0.2});
  EXPECT_EQ(slow.iterations, 35);
  EXPECT_TRUE(slow.update_period_measured);
  EXPECT_DOUBLE_EQ(slow.required_decode_window.value, 40.0);
  EXPECT_DOUBLE_EQ(slow.required_prefill_window.value, 20.0);  // min_prefill_window alone
  // 22 / 2.2 = 10: exactly enough.
  EXPECT_EQ(decide_iterations(design, Seconds{2.2}, std::nullopt).iterations, 10);
  design.iterations = 1;
  EXPECT_EQ(decide_iterations(design, Seconds{2.2}, std::nullopt).iterations, 10);
  // No timing: the requested count.
  EXPECT_EQ(decide_iterations(design, Seconds{0.0}, std::nullopt).iterations, 1);
}

TEST(DecideIterations, CorrectedEdgesDropTheUpdatePeriodRule) {
  Design design;
  design.min_window = Seconds{3.0};
  design.iterations = 1;
  // Counter edges: 0.1 s / 0.5 % = 20 s rules; × 1.1 / 1.29 → 18 iterations.
  EXPECT_EQ(decide_iterations(design, Seconds{1.29}, Seconds{0.1}, true).iterations, 18);
  // Corrected edges: min_window alone, 3 s × 1.1 = 3.3 s; ⌈3.3 / 1.29⌉ = ⌈2.56⌉ = 3.
  design.correct_edges = true;
  const IterationDecision d = decide_iterations(design, Seconds{1.29}, Seconds{0.1}, true);
  EXPECT_DOUBLE_EQ(d.required_decode_window.value, 3.0);
  EXPECT_EQ(d.iterations, 3);
  EXPECT_NE(d.explanation.find("edges corrected"), std::string::npos) << d.explanation;
}

TEST(DecideIterations, WithoutAnEnergyCounterTheWindowFlagAloneDecides) {
  Design design;
  design.min_window = Seconds{1.0};
  design.iterations = 1;
  // With a counter, its 0.1-s edges still ask for 20 s: 20 × 1.1 / 1.29 → 18 iterations.
  EXPECT_EQ(decide_iterations(design, Seconds{1.29}, std::nullopt, true).iterations, 18);
  // Without one there is no edge to bound: 1 s × 1.1 = 1.1 s; ⌈1.1 / 0.29⌉ = ⌈3.79⌉ = 4.
  const IterationDecision d = decide_iterations(design, Seconds{0.29}, std::nullopt, false);
  EXPECT_DOUBLE_EQ(d.required_decode_window.value, 1.0);
  EXPECT_EQ(d.iterations, 4);
  EXPECT_NE(d.explanation.find("no energy counter"), std::string::npos) << d.explanation;
}

TEST(DecidePrefillRepeats, FillsTheWindow) {
  EXPECT_EQ(decide_prefill_repeats(Seconds{20.0}, Seconds{0.01}, 1.1), 2200);  // 22 / 0.01
  EXPECT_EQ(decide_prefill_repeats(Seconds{20.0}, Seconds{0.0}, 1.1), 1);
  EXPECT_EQ(decide_prefill_repeats(Seconds{1.0}, Seconds{5.0}, 1.1), 1);
  EXPECT_EQ(decide_prefill_repeats(Seconds{20.0}, Seconds{0.03}, 1.0), 667);  // ⌈666.67⌉
  // 22 / 0.022 = 1000.0000000000001 in doubles: still 1000, not 1001.
  EXPECT_EQ(decide_prefill_repeats(Seconds{20.0}, Seconds{0.022}, 1.1), 1000);
}

TEST(MakePrompt, RepeatsTheTextAfterBosAndCuts) {
  const std::vector<engine::Token> text{1, 5, 6, 7};
  EXPECT_EQ(make_prompt(text, true, 9), (std::vector<engine::Token>{1, 5, 6, 7, 5, 6, 7, 5, 6}));
  EXPECT_EQ(make_prompt(text, true, 2), (std::vector<engine::Token>{1, 5}));
  EXPECT_EQ(make_prompt(text, true, 0), text);
  EXPECT_EQ(make_prompt(std::vector<engine::Token>{5, 6}, false, 5), (std::vector<engine::Token>{5, 6, 5, 6, 5}));
}

TEST(WindowLabel, NamesConditionRepetitionAndKind) {
  const Condition c{2, "Q8_0", false, 0};
  EXPECT_EQ(window_label(c, 1, WindowKind::decode), "Q8_0 #2 decode");
  const Condition p{3, "F16", true, 512};
  EXPECT_EQ(window_label(p, 0, WindowKind::prefill), "F16/p512 #1 prefill");
}

}  // namespace
}  // namespace ecocompute::protocol

namespace ecocompute::protocol {
namespace {

Design sequential_design(int min_trials, int max_trials) {
  Design design = testing::test_design();
  design.trials = max_trials;
  design.min_trials = min_trials;
  design.target_ci_pt = 1.0;
  return design;
}

TEST(SequentialRule, StopsAtTheFirstLookWhereEveryIntervalIsNarrowEnough) {
  FakeRun fake;
  // The fake's blocks are identical: SD 0, so the first look (after block 2) is within ± 1 pt.
  Result<RunResult> result = fake.run(sequential_design(2, 5));
  ASSERT_TRUE(result.has_value()) << result.error().describe();
  const RunResult& run = *result;
  ASSERT_EQ(run.trials.size(), 6u);  // 3 conditions × 2 blocks; blocks 3–5 never planned into the run
  EXPECT_EQ(run.schedule.blocks, 2);
  EXPECT_EQ(run.schedule.trials.size(), 6u);
  ASSERT_TRUE(run.stop.has_value());
  EXPECT_TRUE(run.stop->reached);
  EXPECT_EQ(run.stop->blocks_run, 2);
  // Four looks (after blocks 2, 3, 4, 5): each at 1 − 0.05 / 4.
  EXPECT_DOUBLE_EQ(run.stop->confidence, 0.9875);
  const PairedComparison* q4 = run.find_comparison(2, "decode_energy_per_token_gross_mj");
  ASSERT_NE(q4, nullptr);
  EXPECT_DOUBLE_EQ(q4->delta_pct.confidence, 0.9875);
  EXPECT_NE(run.stop->explanation.find("target reached after 2 blocks"), std::string::npos) << run.stop->explanation;
  EXPECT_EQ(run.count_not_ok(), 0u);
}

TEST(SequentialRule, ACandidateWithTooFewPairsKeepsTheRunGoing) {
  FakeRun fake;
  // Q8_0's first decode window is invalid: after block 2 it has one pair, no interval.
  fake.meter.invalidate("Q8_0 #1 decode", meter::WindowStatus::counter_stuck, "stuck");
  Result<RunResult> result = fake.run(sequential_design(2, 5));
  ASSERT_TRUE(result.has_value());
  ASSERT_TRUE(result->stop.has_value());
  EXPECT_TRUE(result->stop->reached);
  EXPECT_EQ(result->stop->blocks_run, 3);
  EXPECT_EQ(result->trials.size(), 9u);
  EXPECT_EQ(result->count_failed(), 1u);  // the failed trial stays in the run with its reason
}

TEST(SequentialRule, RunsToTheMostBlocksAndSaysSoWhenTheTargetIsNeverReached) {
  FakeRun fake;
  fake.meter.script(fakes::WindowScript{"Q8_0", meter::WindowStatus::counter_stuck, "stuck", std::nullopt, {}, -1});
  Result<RunResult> result = fake.run(sequential_design(2, 4));
  ASSERT_TRUE(result.has_value());
  ASSERT_EQ(result->trials.size(), 12u);
  ASSERT_TRUE(result->stop.has_value());
  EXPECT_FALSE(result->stop->reached);
  EXPECT_EQ(result->stop->blocks_run, 4);
  EXPECT_NE(result->stop->explanation.find("Q8_0: fewer than 2 valid pairs"), std::string::npos)
      << result->stop->explanation;
}

TEST(SequentialRule, WithoutATargetIntervalsAreThePlain95Percent) {
  Design design = testing::test_design();
  EXPECT_DOUBLE_EQ(sequential_confidence(design), 0.95);
  design.target_ci_pt = 0.5;
  design.trials = 10;
  design.min_trials = 3;
  EXPECT_DOUBLE_EQ(sequential_confidence(design), 1.0 - 0.05 / 8.0);
}

TEST(SequentialRule, ValidationNamesTheFieldOfABadTargetOrMinimum) {
  Design design = sequential_design(2, 5);
  design.target_ci_pt = 0.0;
  auto bad = validate(design);
  ASSERT_FALSE(bad.has_value());
  EXPECT_NE(bad.error().message().find("target_ci_pt: 0"), std::string::npos) << bad.error().message();
  design = sequential_design(6, 5);
  bad = validate(design);
  ASSERT_FALSE(bad.has_value());
  EXPECT_NE(bad.error().message().find("min_trials: 6"), std::string::npos) << bad.error().message();
  design = sequential_design(1, 5);
  EXPECT_FALSE(validate(design).has_value());
}

}  // namespace
}  // namespace ecocompute::protocol
