// An answer's energy as the ledger gives it when the answer ends (kept token sums per interval) against the
// definition worked out from scratch: its share of every closed interval by split_interval over every request
// in flight there, as they stand at that moment, plus its share of the open interval at the last power.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <random>
#include <vector>

#include "proxy/energy_ledger.hpp"

namespace ecocompute::proxy {
namespace {

struct Step {
  double time = 0.0;       // when the call is made
  double stamp = 0.0;      // the time it carries (a chunk's may be older: a late chunk)
  enum Kind { begin, output, finish, close } kind = begin;
  int request = 0;
  double joules = 0.0;
};

// Streamed requests (each with at least one chunk before it ends; a request with none is charged by another
// rule, tested in energy_ledger_test.cpp) that overlap many 0.1-s intervals, with chunks that arrive after
// the interval they were stamped in closed.
std::vector<Step> streamed_run(unsigned seed, int requests) {
  std::mt19937_64 random(seed);
  std::uniform_real_distribution<double> start(0.02, 8.0), life(0.05, 2.5), power(60.0, 700.0), unit(0.0, 1.0);
  std::vector<Step> steps;
  for (int r = 0; r < requests; ++r) {
    const double begin = start(random), end = begin + life(random);
    const double first = begin + (end - begin) * (0.05 + 0.5 * unit(random));
    steps.push_back({begin, begin, Step::begin, r});
    const int chunks = 1 + static_cast<int>(random() % 30);
    for (int c = 0; c < chunks; ++c) {
      const double at = first + (end - first) * c / chunks;
      const bool late = unit(random) < 0.1;
      steps.push_back({late ? std::min(at + 0.15, end) : at, at, Step::output, r});
    }
    steps.push_back({end, end, Step::finish, r});
  }
  for (double t = 0.1; t < 11.0; t += 0.1) steps.push_back({t, t, Step::close, 0, power(random) * 0.1});
  std::stable_sort(steps.begin(), steps.end(), [](const Step& a, const Step& b) { return a.time < b.time; });
  return steps;
}

struct Interval {
  double begin_s, end_s, joules;
};

double share_by_definition(const std::vector<RequestActivity>& activities, const std::vector<bool>& begun, std::size_t who,
                           const std::vector<Interval>& closed, const Interval& open, double now_s) {
  double joules = 0.0;
  std::vector<Interval> all = closed;
  all.push_back(open);
  for (const Interval& interval : all) {
    std::vector<const RequestActivity*> in_flight;
    std::size_t mine = activities.size();
    for (std::size_t i = 0; i < activities.size(); ++i) {
      if (!begun[i] || !overlaps(activities[i], interval.begin_s, interval.end_s)) continue;
      if (i == who) mine = in_flight.size();
      in_flight.push_back(&activities[i]);
    }
    if (mine == activities.size()) continue;
    joules += split_interval(interval.joules, interval.begin_s, interval.end_s, in_flight, now_s, PrefillWeightRule{}).shares[mine];
  }
  return joules;
}

TEST(LedgerProvisional, AnAnswersEnergyIsItsShareOfEveryIntervalAsKnownWhenItEnds) {
  for (unsigned seed : {11u, 12u, 13u}) {
    const std::vector<Step> steps = streamed_run(seed, 120);
    EnergyLedger ledger;
    ledger.start(0.0);
    std::vector<RequestActivity> activities(120);
    std::vector<bool> begun(120, false);
    std::map<int, std::uint64_t> ids;
    std::vector<Interval> closed;
    double open_begin = 0.0, last_power = 0.0;
    int compared = 0;
    for (const Step& step : steps) {
      RequestActivity& mine = activities[static_cast<std::size_t>(step.request)];
      switch (step.kind) {
        case Step::begin:
          ids[step.request] = ledger.begin_request("m", step.stamp, 40.0, true);
          mine.start_s = step.stamp;
          mine.streamed = true;
          mine.prompt_tokens = 40.0;
          begun[static_cast<std::size_t>(step.request)] = true;
          break;
        case Step::output:
          ledger.record_output(ids[step.request], step.stamp);
          mine.output_times_s.push_back(mine.output_times_s.empty() ? step.stamp : std::max(step.stamp, mine.output_times_s.back()));
          break;
        case Step::finish: {
          const double prompt = 20.0 + step.request % 50, completion = 3.0 * static_cast<double>(mine.output_times_s.size());
          const ProvisionalEnergy energy = ledger.finish_request(ids[step.request], step.time, {prompt, completion});
          mine.end_s = step.time;
          mine.prompt_tokens = prompt;
          mine.output_scale = completion / static_cast<double>(mine.output_times_s.size());
          const Interval open{open_begin, step.time, last_power * (step.time - open_begin)};
          const double expected = share_by_definition(activities, begun, static_cast<std::size_t>(step.request), closed, open, step.time);
          ASSERT_GT(expected, 0.0);
          EXPECT_NEAR(energy.joules, expected, 1e-9 * expected) << "seed " << seed << ", request " << step.request;
          ++compared;
          break;
        }
        case Step::close:
          ledger.close_interval(step.time, step.joules);
          closed.push_back({open_begin, step.time, step.joules});
          last_power = step.joules / (step.time - open_begin);
          open_begin = step.time;
          break;
      }
    }
    EXPECT_EQ(compared, 120);
  }
}

}  // namespace
}  // namespace ecocompute::proxy
