// Tests of the fakes the protocol tests (and other modules' tests) rely on.
#include <gtest/gtest.h>

#include <algorithm>
#include <utility>
#include <vector>

#include "fakes/fake_engine/fake_engine.hpp"
#include "fakes/fake_meter/fake_device.hpp"
#include "fakes/fake_meter/fake_meter.hpp"

namespace ecocompute::fakes {
namespace {

TEST(FakeEngine, TokenizesDecodesAndScoresDeterministically) {
  FakeEngineScript script;  // n_vocab 64, BOS 1
  FakeEngine engine(script);
  // "ab": 'a' = 97 → 2 + 97 % 62 = 37; 'b' = 98 → 38; BOS first.
  EXPECT_EQ(engine.tokenize("ab", true).value(), (std::vector<engine::Token>{1, 37, 38}));
  EXPECT_EQ(engine.tokenize("ab", false).value(), (std::vector<engine::Token>{37, 38}));
  const std::vector<engine::Token> prompt{1, 37, 38};
  ASSERT_TRUE(engine.prefill(prompt).has_value());
  Result<engine::WorkStats> d = engine.decode(2);
  ASSERT_TRUE(d.has_value());
  // next(38) = (7 × 38 + 3) mod 64 = 269 mod 64 = 13; next(13) = 94 mod 64 = 30
  EXPECT_EQ(std::vector<engine::Token>(engine.last_generated().begin(), engine.last_generated().end()),
            (std::vector<engine::Token>{13, 30}));
  EXPECT_EQ(d->tokens, 2);
  EXPECT_DOUBLE_EQ(d->elapsed.value, 0.02);  // 2 × 10 ms
  std::vector<std::int32_t> argmax;
  ASSERT_TRUE(engine
                  .evaluate(prompt,
                            [&](std::int64_t, std::span<const float> logits) {
                              argmax.push_back(static_cast<std::int32_t>(
                                  std::max_element(logits.begin(), logits.end()) - logits.begin()));
                            })
                  .has_value());
  // next(1) = 10, next(37) = 262 mod 64 = 6, next(38) = 13
  EXPECT_EQ(argmax, (std::vector<std::int32_t>{10, 6, 13}));
}

TEST(FakeEngine, ScriptedFailuresAndContextLimit) {
  FakeEngineScript script;
  script.n_ctx = 8;
  FakeEngine engine(script);
  engine.fail_call("decode", 2, "scripted");
  const std::vector<engine::Token> prompt{1, 2, 3};
  ASSERT_TRUE(engine.prefill(prompt).has_value());
  EXPECT_TRUE(engine.decode(1).has_value());
  Result<engine::WorkStats> second = engine.decode(1);
  ASSERT_FALSE(second.has_value());
  EXPECT_EQ(second.error().message(), "scripted");
  EXPECT_EQ(second.error().code(), ErrorCode::engine);
  // 4 tokens in context; 5 more would make 9 > 8.
  EXPECT_FALSE(engine.decode(5).has_value());
  EXPECT_EQ(engine.calls("decode"), 3);
  engine.fail_from("reset", 1, "gone");
  EXPECT_FALSE(engine.reset().has_value());
  EXPECT_FALSE(engine.reset().has_value());
}

TEST(FakeEngine, ParallelSequencesTakeTheScriptedStepTimeAndPower) {
  FakeEngineScript script;
  script.batched_decode[4] = {Seconds{0.015}, Watts{500.0}};
  script.max_sequences = 8;
  std::vector<std::pair<double, double>> work;
  FakeEngine engine(script, [&](Seconds d, Watts p) { work.emplace_back(d.value, p.value); });
  const std::vector<engine::Token> prompt{1, 37, 38};
  ASSERT_TRUE(engine.prefill_sequences(prompt, 4).has_value());
  EXPECT_EQ(engine.sequences(), 4);
  Result<engine::WorkStats> d = engine.decode(2);
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(d->tokens, 8);                      // 4 sequences × 2 steps
  EXPECT_DOUBLE_EQ(d->elapsed.value, 0.03);     // 2 steps × 15 ms
  EXPECT_DOUBLE_EQ(work.back().second, 500.0);
  EXPECT_EQ(engine.tokens_generated(), 8);
  const std::vector<engine::Token> expected{13, 30};
  for (int s = 0; s < 4; ++s) {
    EXPECT_EQ(std::vector<engine::Token>(engine.sequence_generated(s).begin(), engine.sequence_generated(s).end()),
              expected);
  }
  EXPECT_TRUE(engine.sequence_generated(4).empty());
  EXPECT_FALSE(engine.prefill_sequences(prompt, 9).has_value());

  // A batch with no script steps as one sequence does; a reset goes back to one sequence.
  ASSERT_TRUE(engine.reset().has_value());
  ASSERT_TRUE(engine.prefill_sequences(prompt, 2).has_value());
  Result<engine::WorkStats> two = engine.decode(3);
  ASSERT_TRUE(two.has_value());
  EXPECT_EQ(two->tokens, 6);
  EXPECT_DOUBLE_EQ(two->elapsed.value, 0.03);  // 3 steps × 10 ms
  ASSERT_TRUE(engine.reset().has_value());
  EXPECT_EQ(engine.sequences(), 1);
}

TEST(FakeMeter, ReadsTheDeviceCounterAtWindowEdges) {
  FakeDevice device(Watts{50.0});
  FakeMeter meter(device);
  meter.set_update_period(Seconds{0.1});
  meter::Window w = meter.begin("work");
  device.run(Seconds{2.0}, Watts{300.0});  // 600 J
  device.idle(Seconds{1.0});               // 50 J
  Result<meter::Measurement> m = meter.end(std::move(w));
  ASSERT_TRUE(m.has_value());
  EXPECT_TRUE(m->is_valid());
  EXPECT_DOUBLE_EQ(m->energy->value, 650.0);
  EXPECT_DOUBLE_EQ(m->duration.value, 3.0);
  // edge bound: average power 650 / 3 W × 0.1 s = 21.6667 J
  EXPECT_NEAR(m->edge_uncertainty->value, 650.0 / 3.0 * 0.1, 1e-12);
  meter.invalidate("work", meter::WindowStatus::counter_stuck, "stuck");
  Result<meter::Measurement> stuck = meter.end(meter.begin("work again"));
  EXPECT_EQ(stuck->status, meter::WindowStatus::counter_stuck);
  EXPECT_FALSE(stuck->energy.has_value());
  // The script was used once: the next window is valid again.
  EXPECT_TRUE(meter.end(meter.begin("work")).value().is_valid());
}

}  // namespace
}  // namespace ecocompute::fakes
