// Serving reports from a hand-made sweep: the Server energy.json (golden, schema-valid), the summary
// and its break-even, the plot script, and a re-run into the same folder (whole sets only).
#include "experiment/serving_report.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <set>

#include <gtest/gtest.h>

#include "experiment/serving_writer.hpp"
#include "util/json.hpp"

#include "report/energy_schema.hpp"
#include "report/report_consistency.hpp"
#include "support/golden.hpp"
#include "support/scratch_dir.hpp"

namespace ecocompute::experiment {
namespace {

using protocol::LevelRun;
using protocol::SweepResult;

// One trial: C streams of 10 tokens each, `requests` requests, a steady window of `window_j` joules over
// 2 s holding `window_tokens` tokens, inside a 3 s whole run of `whole_j` joules.
LevelRun trial(std::size_t endpoint, const std::string& label, int c, int block, double window_j, double window_tokens,
               double whole_j, bool with_energy) {
  LevelRun r;
  r.endpoint = endpoint;
  r.label = label;
  r.concurrency = c;
  r.block = block;
  r.started_utc = "2026-11-30T12:00:00Z";
  for (int i = 0; i < 2 * c; ++i) {
    engine::RequestRecord record;
    record.ok = true;
    record.streamed = true;
    record.http_status = 200;
    record.prompt_tokens = 12;
    record.output_tokens = 10;
    record.max_tokens = 10;
    record.server_model = "fixture-model";
    record.sent = Seconds{0.1 * i};
    for (int t = 0; t < 10; ++t) record.chunk_times.push_back(Seconds{0.1 * i + 0.05 + 0.02 * t});
    record.finished = Seconds{0.1 * i + 0.3};
    r.records.push_back(record);
  }
  auto window = [&](double joules, double seconds, const char* label_text) {
    meter::Measurement m;
    m.label = label_text;
    m.source = with_energy ? "nvml-energy-counter" : "none";
    m.status = with_energy ? meter::WindowStatus::valid : meter::WindowStatus::unavailable;
    m.duration = Seconds{seconds};
    if (with_energy) {
      m.energy = Joules{joules};
      m.edge_uncertainty = Joules{joules * 0.002};
    }
    return m;
  };
  r.steady.measurement = window(window_j, 2.0, "serving-steady");
  r.steady.begin = Seconds{0.5};
  r.steady.end = Seconds{2.5};
  r.steady.tokens = window_tokens;
  r.steady.requests = c;
  r.whole.measurement = window(whole_j, 3.0, "serving-whole");
  r.whole.begin = Seconds{0.0};
  r.whole.end = Seconds{3.0};
  r.whole.tokens = 20.0 * c;
  r.whole.requests = 2 * c;
  return r;
}

SweepResult sample_sweep(bool with_energy) {
  SweepResult s;
  s.design.concurrency = {1, 4};
  s.design.trials = 2;
  s.design.warmup_requests = 1;
  s.design.requests_per_stream = 2;
  s.endpoints = {*engine::parse_endpoint_spec("F16=http://127.0.0.1:8080/v1#fixture"),
                 *engine::parse_endpoint_spec("Q8_0=http://127.0.0.1:8081/v1#fixture")};
  std::size_t order = 0;
  for (int block = 0; block < 2; ++block) {
    const double drift = block == 0 ? 1.0 : 1.1;
    // C=1: Q8_0 saves about 20 %; C=4: it costs about 20 %.
    s.runs.push_back(trial(0, "F16", 1, block, 1.0 * drift, 10.0, 1.6 * drift, with_energy));
    s.runs.push_back(trial(1, "Q8_0", 1, block, (block == 0 ? 0.80 : 0.86) * drift, 10.0, 1.3 * drift, with_energy));
    s.runs.push_back(trial(0, "F16", 4, block, 2.0 * drift, 40.0, 3.2 * drift, with_energy));
    s.runs.push_back(trial(1, "Q8_0", 4, block, (block == 0 ? 2.40 : 2.46) * drift, 40.0, 3.8 * drift, with_energy));
  }
  for (LevelRun& r : s.runs) r.order_index = order++;
  return s;
}

ServingContext serving_context(bool with_energy) {
  ServingContext c;
  c.report.run_id = "20261130T120000Z";
  c.report.host = "Linux-test-x86_64";
  c.report.ecocompute_version = "0.0.0-test";
  c.report.ecocompute_commit = "0000000";
  c.report.compiler = "test-compiler";
  if (with_energy) {
    meter::GpuInfo gpu;
    gpu.name = "NVIDIA H200";
    gpu.arch = "hopper";
    gpu.uuid = "GPU-00000000-0000-0000-0000-000000000000";
    c.report.sources.gpu = gpu;
    c.report.sources.driver_version = "580.00";
  }
  c.meter_source = with_energy ? "nvml-energy-counter" : "none";
  c.meter_measures_energy = with_energy;
  c.params_b = 0.01;
  c.request_set = "4 requests drawn with seed 7: prompts of 8 words, max_tokens 10";
  c.request_set_seed = "7";
  c.api = "completions";
  return c;
}

TEST(ServingReport, TheModelNameGivenWinsOverTheServersAlias) {
  const SweepResult sweep = sample_sweep(true);
  const auto analysis = protocol::analyze_serving(sweep.runs, 2);
  ServingContext context = serving_context(true);
  context.model_name = "Llama-3-8B";
  EXPECT_EQ(build_serving_report(sweep, analysis, 1, 4, context).workload.model_name, "Llama-3-8B");
  EXPECT_EQ(build_serving_report(sweep, analysis, 1, 4, serving_context(true)).workload.model_name, "fixture-model");
}

// A stop that cuts a level after the rule's last look (2026-12-05, C = 64 on the H200: looked after 6
// blocks, F16 finished a seventh trial, the candidate's was cancelled) leaves more trials than the look
// counted: the report's trials per precision covers every trial it lists, so it imports.
TEST(ServingReport, TrialsOfABlockCutAfterTheLastLookAreCountedAndTheReportIsConsistent) {
  SweepResult sweep = sample_sweep(true);
  protocol::LevelStop looked;
  looked.concurrency = 4;
  looked.blocks_run = 1;
  sweep.stops = {looked};
  const auto analysis = protocol::analyze_serving(sweep.runs, 2);
  const report::EnergyReport r = build_serving_report(sweep, analysis, 0, 4, serving_context(true));
  ASSERT_TRUE(r.measurement.trials_per_precision);
  EXPECT_EQ(*r.measurement.trials_per_precision, 2);
  EXPECT_FALSE(report::contradiction_error(r, "cut level")) << report::contradiction_error(r, "cut level")->describe();
}

TEST(ServingReport, ALockstepReportSaysSo) {
  SweepResult sweep = sample_sweep(true);
  const auto analysis = protocol::analyze_serving(sweep.runs, 2);
  const report::EnergyReport closed = build_serving_report(sweep, analysis, 1, 4, serving_context(true));
  EXPECT_NE(closed.scenario_note->find("Closed loop keeping 4 requests"), std::string::npos) << *closed.scenario_note;
  sweep.design.trial.lockstep = true;
  const report::EnergyReport lockstep = build_serving_report(sweep, analysis, 1, 4, serving_context(true));
  EXPECT_NE(lockstep.scenario_note->find("Lockstep rounds of 4 requests"), std::string::npos) << *lockstep.scenario_note;
  EXPECT_NE(lockstep.measurement.method.find("lockstep rounds"), std::string::npos) << lockstep.measurement.method;
}

TEST(ServingReport, ServerReportIsSchemaValidAndMatchesTheGoldenFile) {
  const SweepResult sweep = sample_sweep(true);
  const auto analysis = protocol::analyze_serving(sweep.runs, 2);
  const report::EnergyReport r = build_serving_report(sweep, analysis, 1, 4, serving_context(true));
  const OrderedJson json = report::to_json(r);
  const auto problems = report::validate_energy_json(json);
  EXPECT_TRUE(problems.empty()) << report::describe(problems);
  EXPECT_EQ(r.scenario, "Server");
  EXPECT_EQ(r.workload.concurrency, 4);
  EXPECT_EQ(r.engine->name, "openai-endpoint");
  EXPECT_EQ(r.workload.model_name, "fixture-model");
  EXPECT_EQ(r.results.basis, report::ResultBasis::measured);
  // Block 1: 2.40 J / 40 tokens = 60 mJ vs 50 mJ; block 2: 2.706 / 40 = 67.65 vs 55: +20 % and +23 %.
  ASSERT_TRUE(r.results.vs_fp16_energy_pct.has_value());
  EXPECT_NEAR(*r.results.vs_fp16_energy_pct, (20.0 + 23.0) / 2.0, 1e-9);
  ASSERT_TRUE(r.results.energy_per_token_mj.has_value());
  EXPECT_NEAR(*r.results.energy_per_token_mj, (60.0 + 67.65) / 2.0, 1e-9);
  // The whole run per total (prompt + output) token and per request, from each trial's own figures.
  double per_total_token = 0.0, per_request = 0.0;
  int trials = 0;
  for (const LevelRun& run : sweep.runs) {
    if (run.endpoint != 1 || run.concurrency != 4) continue;
    double prompt = 0.0;
    for (const auto& record : run.records) prompt += static_cast<double>(record.prompt_tokens);
    per_total_token += run.whole.energy()->value / (run.whole.tokens + prompt) * 1000.0;
    per_request += run.whole.energy()->value / static_cast<double>(run.records.size());
    ++trials;
  }
  ASSERT_EQ(trials, 2);
  ASSERT_TRUE(r.results.energy_per_total_token_mj.has_value());
  ASSERT_TRUE(r.results.energy_per_request_j.has_value());
  EXPECT_NEAR(*r.results.energy_per_total_token_mj, per_total_token / trials, 1e-9);
  EXPECT_NEAR(*r.results.energy_per_request_j, per_request / trials, 1e-9);
  EXPECT_LT(*r.results.energy_per_total_token_mj, *r.results.energy_per_token_mj);
  ecocompute::testing::expect_golden("energy/energy-Q8_0-c4-server.json", json.dump(2) + "\n");

  // Read back and written again: the same bytes.
  auto back = report::energy_report_from_json(json, "server report");
  ASSERT_TRUE(back.has_value()) << back.error().message();
  EXPECT_EQ(report::to_json(*back).dump(2), json.dump(2));
}

TEST(ServingReport, TheSchemaAsksServerReportsForConcurrencyAndOthersForTheirModelFile) {
  const SweepResult sweep = sample_sweep(true);
  const auto analysis = protocol::analyze_serving(sweep.runs, 2);
  OrderedJson server = report::to_json(build_serving_report(sweep, analysis, 1, 4, serving_context(true)));
  server["workload"].erase("concurrency");
  EXPECT_FALSE(report::validate_energy_json(server).empty());
  server = report::to_json(build_serving_report(sweep, analysis, 1, 4, serving_context(true)));
  server["measurement"]["window"] = "decode";
  EXPECT_FALSE(report::validate_energy_json(server).empty());

  auto single = report::read_energy_report(ecocompute::testing::golden_path("energy/energy-Q8_0.json"));
  ASSERT_TRUE(single.has_value());
  OrderedJson file_report = report::to_json(*single);
  EXPECT_TRUE(report::validate_energy_json(file_report).empty());
  file_report["workload"].erase("model_sha256");
  EXPECT_FALSE(report::validate_energy_json(file_report).empty());
  file_report = report::to_json(*single);
  file_report["results"]["prefill"] = nullptr;
  EXPECT_FALSE(report::validate_energy_json(file_report).empty());
}

TEST(ServingReport, WithoutAnEnergySourceEveryEnergyFigureIsNull) {
  const SweepResult sweep = sample_sweep(false);
  const auto analysis = protocol::analyze_serving(sweep.runs, 2);
  const ServingContext context = serving_context(false);
  const report::EnergyReport r = build_serving_report(sweep, analysis, 1, 1, context);
  EXPECT_TRUE(report::validate_energy_json(report::to_json(r)).empty())
      << report::describe(report::validate_energy_json(report::to_json(r)));
  EXPECT_EQ(r.results.basis, report::ResultBasis::unavailable);
  EXPECT_FALSE(r.results.energy_per_token_mj.has_value());
  EXPECT_FALSE(r.results.vs_fp16_energy_pct.has_value());
  EXPECT_FALSE(r.results.energy_per_total_token_mj.has_value());
  EXPECT_FALSE(r.results.energy_per_request_j.has_value());
  EXPECT_TRUE(r.results.throughput_tokens_per_s.has_value());
  EXPECT_EQ(serving_plot_script(sweep, analysis, "x.svg"), "");
  const OrderedJson summary = serving_summary_json(sweep, analysis, context);
  EXPECT_TRUE(summary["levels"][0]["window_mj_per_token"].is_null());
  EXPECT_NE(summary["break_even"][0]["note"].get<std::string>().find("no paired"), std::string::npos);
}

TEST(ServingReport, SummaryStatesTheBreakEvenAndTheWindowRule) {
  const SweepResult sweep = sample_sweep(true);
  const auto analysis = protocol::analyze_serving(sweep.runs, 2);
  const ServingContext context = serving_context(true);
  const OrderedJson summary = serving_summary_json(sweep, analysis, context);
  const OrderedJson& b = summary["break_even"][0];
  EXPECT_EQ(b["label"], "Q8_0");
  EXPECT_EQ(b["crosses"], true);
  EXPECT_EQ(b["direction"], "stops_saving");
  EXPECT_GT(b["concurrency"].get<double>(), 1.0);
  EXPECT_LT(b["concurrency"].get<double>(), 4.0);
  EXPECT_NE(summary["window_rule"].get<std::string>().find("steady-state window"), std::string::npos);
  ecocompute::testing::expect_golden("serving/sweep.md", serving_summary_markdown(sweep, analysis, context));
  const std::string script = serving_plot_script(sweep, analysis, "out.svg");
  EXPECT_NE(script.find("yerrorlines"), std::string::npos);
  EXPECT_NE(script.find("title \"Q8_0\""), std::string::npos);
}

TEST(ServingReport, ALaterCrossingIsReportedAfterTheFirst) {
  // Q8_0 saves at C = 1, costs at 4 and saves again at 16: two crossings, both in sweep.json and sweep.md.
  SweepResult sweep = sample_sweep(true);
  sweep.design.concurrency = {1, 4, 16};
  std::size_t order = sweep.runs.size();
  for (int block = 0; block < 2; ++block) {
    sweep.runs.push_back(trial(0, "F16", 16, block, 8.0, 160.0, 12.0, true));
    sweep.runs.push_back(trial(1, "Q8_0", 16, block, block == 0 ? 6.4 : 6.6, 160.0, 9.6, true));
  }
  for (std::size_t i = order; i < sweep.runs.size(); ++i) sweep.runs[i].order_index = i;
  const auto analysis = protocol::analyze_serving(sweep.runs, 2);
  const ServingContext context = serving_context(true);
  const OrderedJson summary = serving_summary_json(sweep, analysis, context);
  EXPECT_EQ(summary["break_even"][0]["direction"], "stops_saving");
  ASSERT_EQ(summary["later_crossings"].size(), 1u) << summary["later_crossings"].dump();
  const OrderedJson& again = summary["later_crossings"][0];
  EXPECT_EQ(again["label"], "Q8_0");
  EXPECT_EQ(again["direction"], "starts_saving");
  EXPECT_GT(again["concurrency"].get<double>(), 4.0);
  EXPECT_LT(again["concurrency"].get<double>(), 16.0);
  const std::string md = serving_summary_markdown(sweep, analysis, context);
  EXPECT_NE(md.find("  - then after the crossing at"), std::string::npos) << md;
  // With one crossing the list is there and empty.
  const SweepResult one = sample_sweep(true);
  const OrderedJson single = serving_summary_json(one, protocol::analyze_serving(one.runs, 2), context);
  ASSERT_TRUE(single["later_crossings"].is_array());
  EXPECT_TRUE(single["later_crossings"].empty());
}

class ServingReportFiles : public ecocompute::testing::ScratchDirTest {};

TEST_F(ServingReportFiles, WritesEveryReportAndTheSummaries) {
  const SweepResult sweep = sample_sweep(true);
  const auto analysis = protocol::analyze_serving(sweep.runs, 2);
  auto written = write_serving_reports(dir_, sweep, analysis, serving_context(true));
  ASSERT_TRUE(written.has_value()) << written.error().message();
  for (const char* name : {"energy-F16-c1.json", "energy-Q8_0-c1.json", "energy-F16-c4.json", "energy-Q8_0-c4.json",
                           "sweep.json", "sweep.md", "jtoken-vs-concurrency.gp"}) {
    EXPECT_TRUE(std::filesystem::exists(dir_ / name)) << name;
  }
  auto problems = report::validate_energy_file(dir_ / "energy-F16-c1.json");
  ASSERT_TRUE(problems.has_value());
  EXPECT_TRUE(problems->empty()) << report::describe(*problems);
  // The kept script draws the SVG beside itself, wherever the folder goes.
  const std::string script = ecocompute::testing::slurp(dir_ / "jtoken-vs-concurrency.gp");
  EXPECT_NE(script.find("set output \"jtoken-vs-concurrency.svg\"\n"), std::string::npos) << script;
}

// A re-run into the same --out: `stop_after` > 0 ends the process right after that many steps on disk,
// as kill -9 would.
void write_sweep(const std::filesystem::path& out, const std::string& run_id, int stop_after, int* steps) {
  const SweepResult sweep = sample_sweep(true);
  ServingContext context = serving_context(true);
  context.report.run_id = run_id;
  int count = 0;
  auto written = write_serving_reports(out, sweep, protocol::analyze_serving(sweep.runs, 2), context,
                                       [&](std::string_view) {
                                         if (++count == stop_after) ::_exit(0);
                                       });
  ASSERT_TRUE(written.has_value()) << written.error().describe();
  if (steps != nullptr) *steps = count;
}

// The run id every file of `out` carries, or what is wrong: a mix of two sweeps, or a file missing.
std::string whole_sweep_in(const std::filesystem::path& out) {
  std::set<std::string> ids;
  for (const char* name : {"energy-F16-c1.json", "energy-Q8_0-c1.json", "energy-F16-c4.json", "energy-Q8_0-c4.json"}) {
    auto report = read_json_file(out / name);
    if (!report) return std::string(name) + " is missing";
    ids.insert((*report)["provenance"]["run_id"].get<std::string>());
  }
  auto summary = read_json_file(out / "sweep.json");
  if (!summary) return "sweep.json is missing";
  ids.insert((*summary)["run_id"].get<std::string>());
  if (ids.size() != 1) return "files of " + std::to_string(ids.size()) + " sweeps";
  return *ids.begin();
}

TEST_F(ServingReportFiles, AReRunPutsItsWholeSetInPlaceAndKeepsThePreviousBeside) {
  const auto out = dir_ / "serving";
  write_sweep(out, "sweep-old", 0, nullptr);
  ASSERT_EQ(whole_sweep_in(out), "sweep-old");
  write_sweep(out, "sweep-new", 0, nullptr);
  EXPECT_EQ(whole_sweep_in(out), "sweep-new");
  EXPECT_EQ(whole_sweep_in(dir_ / "serving.previous-1"), "sweep-old");
}

TEST_F(ServingReportFiles, AKillAfterAnyStepLeavesTheOldSweepOrTheNew) {
  const auto out = dir_ / "serving";
  int steps = 0;
  write_sweep(dir_ / "probe", "sweep-probe", 0, &steps);
  ASSERT_GE(steps, 5);  // four reports and the exchange at least
  std::set<std::string> seen;
  for (int n = 1; n <= steps; ++n) {
    std::filesystem::remove_all(out);
    write_sweep(out, "sweep-old", 0, nullptr);
    const pid_t child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      write_sweep(out, "sweep-new", n, nullptr);
      ::_exit(0);
    }
    int status = 0;
    ASSERT_EQ(::waitpid(child, &status, 0), child);
    const std::string state = whole_sweep_in(out);
    EXPECT_TRUE(state == "sweep-old" || state == "sweep-new") << "stopped after step " << n << ": " << state;
    seen.insert(state);
  }
  EXPECT_EQ(seen, (std::set<std::string>{"sweep-old", "sweep-new"}));
}

}  // namespace
}  // namespace ecocompute::experiment
