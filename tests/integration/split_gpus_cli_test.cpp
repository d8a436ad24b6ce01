// Runs over several GPUs end to end (`measure --gpus`, `meter --gpus`, `measure-endpoint --gpus`) against the fake NVML with two
// GPUs at different constant powers: every window's energy is the sum of both counters, each GPU's
// share is its own power × the window's duration, the reports name both GPUs, and the program is
// given exactly those GPUs. Bad combinations of flags are refused with the flag named.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "support/cli_run.hpp"
#include "support/fake_openai_server.hpp"
#include "support/scratch_dir.hpp"

namespace {
namespace fs = std::filesystem;
using ecocompute::testing::slurp;
using Outcome = ecocompute::testing::CliOutcome;

constexpr const char* kFirst = "GPU-11111111-1111-1111-1111-111111111111";
constexpr const char* kSecond = "GPU-22222222-2222-2222-2222-222222222222";
constexpr double kFirstWatts = 100.0;
constexpr double kSecondWatts = 300.0;

class SplitGpusCliTest : public ecocompute::testing::ScratchDirTest {
 protected:
  Outcome ecocompute(const std::string& args) const {
    const fs::path script = dir_ / "fake_nvml.json";
    std::ofstream(script) << R"({"clock": "real", "devices": [
      {"name": "NVIDIA H200", "uuid": ")" << kFirst << R"(", "pci_bus_id": "00000000:19:00.0", "architecture": 9,
       "power_limit_mw": 700000, "power": {"kind": "constant", "watts": 100}, "counter_update_period_s": 0.001,
       "sample_period_s": 0.01},
      {"name": "NVIDIA H200", "uuid": ")" << kSecond << R"(", "pci_bus_id": "00000000:3b:00.0", "architecture": 9,
       "power_limit_mw": 700000, "power": {"kind": "constant", "watts": 300}, "counter_update_period_s": 0.001,
       "sample_period_s": 0.01}]})";
    const std::string env = std::string("ECOCOMPUTE_NVML_LIBRARY='") + FAKE_NVML_PATH + "' FAKE_NVML_SCRIPT='" +
                            script.string() + "' PYTHONDONTWRITEBYTECODE=1 PYTHONPATH='" + ECOCOMPUTE_SOURCE_DIR + "/contrib'";
    return ecocompute::testing::run_ecocompute(env, args, dir_);
  }

  static std::string worker(const std::string& arguments) {
    return "python3 " + std::string(ECOCOMPUTE_SOURCE_DIR) + "/tests/programs/command_worker.py " + arguments;
  }

  static std::string both() { return std::string(kFirst) + "," + kSecond; }

  // A window's energy against constant powers: the edges' bound, 2 % for the rate at which the meter's
  // clock and the fake's can differ, and 20 ms of power for a thread descheduled between reading a
  // counter and stamping the time (on a loaded 2-core machine under AddressSanitizer a 0.05-s window
  // once read 3.7 J of 5.2). Still far from the other GPU's power: 100 W against 300 W.
  static void expect_power(double energy, double duration, double watts, double edge_bound, const std::string& where) {
    EXPECT_NEAR(energy, watts * duration, edge_bound + 0.02 * watts * duration + 0.02 * watts + 0.05) << where;
  }
};

TEST_F(SplitGpusCliTest, MeasureOverTwoGpusSumsBothCountersAndKeepsEachShare) {
  const std::string out = (dir_ / "out").string();
  const Outcome run = ecocompute("measure --engine command --baseline-command 'FP32=" + worker("driven --cost 200") +
                                 "' --candidate-command 'HALF=" + worker("driven --cost 100") + "' --gpus " + both() +
                                 " --edges counter -k 2 --warmups 1 --tokens 20 --iterations 1 --min-window 0.3"
                                 " --min-prefill-window 0.1 --idle-window 0.2 --no-progress --out '" + out + "'");
  ASSERT_EQ(run.status, 0) << run.err;
  for (const char* name : {"energy-FP32.json", "energy-HALF.json"}) {
    const auto r = nlohmann::json::parse(slurp(dir_ / "out" / name));
    EXPECT_EQ(r["results"]["basis"], "measured") << name;
    EXPECT_EQ(r["system_under_test"]["accelerator_count"], 2) << name;
    const auto& gpus = r["environment"]["gpus"];
    ASSERT_EQ(gpus.size(), 2u) << r["environment"].dump();
    EXPECT_EQ(gpus[0]["uuid"], kFirst);
    EXPECT_EQ(gpus[1]["uuid"], kSecond);
    EXPECT_EQ(r["environment"]["gpu_uuid"], kFirst);
    for (const auto& t : r["trials"]) {
      ASSERT_EQ(t["status"], "ok") << t.dump();
      for (const char* kind : {"prefill", "decode"}) {
        const auto& w = t[kind];
        const double duration = w["duration_s"].get<double>();
        const auto& shares = w["per_gpu"];
        ASSERT_EQ(shares.size(), 2u) << w.dump();
        EXPECT_NE(shares[0]["device"].get<std::string>().find(kFirst), std::string::npos);
        EXPECT_NE(shares[1]["device"].get<std::string>().find(kSecond), std::string::npos);
        const double first = shares[0]["energy_j"].get<double>();
        const double second = shares[1]["energy_j"].get<double>();
        expect_power(first, duration, kFirstWatts, shares[0]["edge_uncertainty_j"].get<double>(), std::string(name) + " first");
        expect_power(second, duration, kSecondWatts, shares[1]["edge_uncertainty_j"].get<double>(), std::string(name) + " second");
        EXPECT_NEAR(w["energy_j"].get<double>(), first + second, 1e-9 * (first + second)) << name << " " << kind;
      }
    }
  }
  const Outcome valid = ecocompute("validate '" + out + "/energy-FP32.json' '" + out + "/energy-HALF.json'");
  EXPECT_EQ(valid.status, 0) << valid.out << valid.err;
}

TEST_F(SplitGpusCliTest, MeterOverTwoGpusShowsEachGpuAndGivesTheProgramBoth) {
  const fs::path seen = dir_ / "visible.txt";
  const Outcome run = ecocompute("meter --json --gpus " + both() + " -- sh -c 'echo \"$CUDA_VISIBLE_DEVICES\" > \"" +
                                 seen.string() + "\"; sleep 0.4'");
  ASSERT_EQ(run.status, 0) << run.err << run.out;
  EXPECT_EQ(slurp(seen), both() + "\n");
  const auto json = nlohmann::json::parse(run.out);
  ASSERT_EQ(json["windows"].size(), 1u);
  const auto& w = json["windows"][0];
  ASSERT_EQ(w["status"], "measured") << w.dump();
  const double duration = w["duration_s"].get<double>();
  ASSERT_EQ(w["per_gpu"].size(), 2u);
  const double first = w["per_gpu"][0]["energy_j"].get<double>();
  const double second = w["per_gpu"][1]["energy_j"].get<double>();
  // The whole window's bound covers both GPUs' edges.
  const double bound = w["edge_uncertainty_j"].get<double>();
  expect_power(first, duration, kFirstWatts, bound, "first");
  expect_power(second, duration, kSecondWatts, bound, "second");
  EXPECT_NEAR(w["energy_j"].get<double>(), first + second, 1e-9 * (first + second));
}

TEST_F(SplitGpusCliTest, MeasureEndpointOverTwoGpusSumsBothCountersPerWindow) {
  // A server spread over two GPUs: each steady-state window reads both counters.
  ecocompute::testing::FakeOpenAiServer server([](const nlohmann::json&) {
    ecocompute::testing::FakeReply reply = ecocompute::testing::good_stream(16);
    reply.delay_between = std::chrono::milliseconds(15);
    return reply;
  });
  const std::string url = server.base_url();
  const std::string out = (dir_ / "serving").string();
  const Outcome run = ecocompute("measure-endpoint --endpoint F16=" + url + "#fake-model --endpoint Q4=" + url +
                                 "#fake-model --concurrency 2 -k 2 --n-requests 4 --output-tokens 16 --gpus " + both() +
                                 " --out '" + out + "'");
  ASSERT_EQ(run.status, 0) << run.err << run.out;
  for (const char* name : {"energy-F16-c2.json", "energy-Q4-c2.json"}) {
    const auto r = nlohmann::json::parse(slurp(dir_ / "serving" / name));
    EXPECT_EQ(r["system_under_test"]["accelerator_count"], 2) << name;
    ASSERT_EQ(r["environment"]["gpus"].size(), 2u) << r["environment"].dump();
    EXPECT_EQ(r["environment"]["gpus"][1]["uuid"], kSecond);
    ASSERT_EQ(r["trials"].size(), 2u) << name;
    for (const auto& t : r["trials"]) {
      ASSERT_EQ(t["status"], "ok") << t.dump();
      const auto& w = t["decode"];
      const double duration = w["duration_s"].get<double>();
      ASSERT_GT(duration, 0.0) << w.dump();
      const auto& shares = w["per_gpu"];
      ASSERT_EQ(shares.size(), 2u) << w.dump();
      const double first = shares[0]["energy_j"].get<double>();
      const double second = shares[1]["energy_j"].get<double>();
      expect_power(first, duration, kFirstWatts, shares[0]["edge_uncertainty_j"].get<double>(), std::string(name) + " first");
      expect_power(second, duration, kSecondWatts, shares[1]["edge_uncertainty_j"].get<double>(), std::string(name) + " second");
      EXPECT_NEAR(w["energy_j"].get<double>(), first + second, 1e-9 * (first + second)) << name;
    }
  }
  const auto sweep = nlohmann::json::parse(slurp(dir_ / "serving" / "sweep.json"));
  EXPECT_EQ(sweep["gpu_uuids"], nlohmann::json::array({kFirst, kSecond})) << sweep["gpu_uuids"].dump();

  const Outcome both_flags = ecocompute("measure-endpoint --endpoint F16=" + url + "#fake-model --gpu " +
                                        std::string(kFirst) + " --gpus " + both() + " --out '" + out + "-2'");
  EXPECT_EQ(both_flags.status, 2) << both_flags.err;
  EXPECT_NE(both_flags.err.find("--gpu"), std::string::npos) << both_flags.err;
}

TEST_F(SplitGpusCliTest, MeasureEndpointSplitsEachWindowsEnergyByTheServersOccupancy) {
  // The fake server exports the requests it is answering on /metrics; the two GPUs draw 400 W together.
  ecocompute::testing::FakeOpenAiServer server(
      [](const nlohmann::json&) {
        ecocompute::testing::FakeReply reply = ecocompute::testing::good_stream(24);
        reply.delay_between = std::chrono::milliseconds(15);
        return reply;
      },
      64, 0, /*with_metrics=*/true);
  const std::string out = (dir_ / "serving").string();
  const Outcome run = ecocompute("measure-endpoint --endpoint F16=" + server.base_url() +
                                 "#fake-model --concurrency 3 -k 2 --n-requests 9 --output-tokens 24 --server-occupancy"
                                 " --gpus " + both() + " --out '" + out + "'");
  ASSERT_EQ(run.status, 0) << run.err << run.out;
  const auto sweep = nlohmann::json::parse(slurp(dir_ / "serving" / "sweep.json"));
  ASSERT_EQ(sweep["levels"].size(), 1u);
  const auto& level = sweep["levels"][0];
  ASSERT_EQ(level["trials_ok"], 2) << level.dump();
  const auto& energy = level["server_occupancy"]["energy_at"];
  ASSERT_TRUE(energy.is_object()) << level["server_occupancy"].dump();
  EXPECT_EQ(energy["trials_split"], 2) << energy.dump();
  EXPECT_TRUE(energy["not_split"].is_null()) << energy.dump();
  // The occupancy sampler has its first reading before the steady window opens, so the window's whole energy
  // is split (before the sampler waited for it, a loaded machine once left 0.004 % of a window unsplit).
  EXPECT_NEAR(energy["share_of_window_energy"].get<double>(), 1.0, 1e-6) << energy.dump();
  ASSERT_FALSE(energy["running_requests"].empty()) << energy.dump();
  double tokens = 0.0, first_watts = 0.0;
  for (const auto& [running, at] : energy["running_requests"].items()) {
    const double seconds = at["seconds"].get<double>();
    ASSERT_GT(seconds, 0.0) << running << ": " << at.dump();
    // 100 W + 300 W whatever the occupancy: the flat traces spread each window's counter energy by time
    // alone, so every occupancy has the same watts (the counters', which differ between the two trials
    // only by the edges' timing), near the two GPUs' sum.
    const double watts = at["energy_j"].get<double>() / seconds;
    if (first_watts == 0.0) first_watts = watts;
    EXPECT_NEAR(watts, first_watts, 0.03 * first_watts) << running << ": " << at.dump();
    EXPECT_NEAR(watts, kFirstWatts + kSecondWatts, 0.1 * (kFirstWatts + kSecondWatts)) << running << ": " << at.dump();
    tokens += at["output_tokens"].get<double>();
  }
  EXPECT_NEAR(tokens, level["window_tokens"].get<double>(), 1e-6 * tokens) << energy.dump();
}

TEST_F(SplitGpusCliTest, BadGpuListsAreRefusedNamingTheFlag) {
  const std::string program = " -- sleep 0";
  Outcome twice = ecocompute(std::string("meter --gpus ") + kFirst + "," + kFirst + program);
  EXPECT_EQ(twice.status, 2) << twice.err;
  EXPECT_NE(twice.err.find("listed twice"), std::string::npos) << twice.err;

  Outcome unknown = ecocompute(std::string("meter --gpus ") + kFirst + ",GPU-99999999-9999-9999-9999-999999999999" + program);
  EXPECT_NE(unknown.status, 0);
  EXPECT_NE(unknown.err.find("GPU-99999999"), std::string::npos) << unknown.err;

  Outcome not_uuid = ecocompute(std::string("meter --gpus ") + kFirst + ",cuda:1" + program);
  EXPECT_EQ(not_uuid.status, 2) << not_uuid.err;
  EXPECT_NE(not_uuid.err.find("not a GPU UUID"), std::string::npos) << not_uuid.err;

  Outcome both_flags = ecocompute(std::string("meter --gpu ") + kFirst + " --gpus " + both() + program);
  EXPECT_EQ(both_flags.status, 2) << both_flags.err;
  EXPECT_NE(both_flags.err.find("--gpu"), std::string::npos) << both_flags.err;
}

TEST_F(SplitGpusCliTest, MeasureRefusesSplitFlagsThatDoNotFit) {
  const std::string model = " -m '" + std::string(ECOCOMPUTE_SOURCE_DIR) + "/data/fixture/fixture-kjv-f16.gguf' -p Q8_0 --no-progress --out '" +
                            (dir_ / "out").string() + "'";
  Outcome lone_mode = ecocompute("measure --split-mode row" + model);
  EXPECT_EQ(lone_mode.status, 2) << lone_mode.err;
  EXPECT_NE(lone_mode.err.find("--split-mode needs --gpus"), std::string::npos) << lone_mode.err;

  Outcome bad_mode = ecocompute("measure --gpus " + both() + " --split-mode diagonal" + model);
  EXPECT_EQ(bad_mode.status, 2) << bad_mode.err;
  EXPECT_NE(bad_mode.err.find("--split-mode"), std::string::npos) << bad_mode.err;

  Outcome both_flags = ecocompute(std::string("measure --gpu ") + kFirst + " --gpus " + both() + model);
  EXPECT_EQ(both_flags.status, 2) << both_flags.err;

  // This build's llama.cpp runs on the CPU: two GPUs' counters would measure devices doing none of the work.
  Outcome cpu_engine = ecocompute("measure --gpus " + both() + model);
  EXPECT_EQ(cpu_engine.status, 3) << cpu_engine.err;
  EXPECT_NE(cpu_engine.err.find("--gpus"), std::string::npos) << cpu_engine.err;
  EXPECT_FALSE(fs::exists(dir_ / "out" / "energy-F16.json"));
}

}  // namespace
