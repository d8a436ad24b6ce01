// `ecocompute measure --engine command` and `ecocompute meter` end to end, driving a real Python program
// (tests/programs/command_worker.py): without an energy source (tokens, timing and protocol checked,
// energy null), with the fake NVML (each window's energy checked against its constant power), and with
// programs that crash, hang, miscount, send garbage or never declare themselves.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "support/cli_run.hpp"
#include "support/fake_powercap.hpp"
#include "support/scratch_dir.hpp"

namespace {
namespace fs = std::filesystem;
using ecocompute::testing::slurp;

using Outcome = ecocompute::testing::CliOutcome;

// The comma-separated fields of one `meter --csv` row (none of the tests' fields is quoted; a trailing
// empty field is not listed).
std::vector<std::string> csv_fields(const std::string& line) {
  std::vector<std::string> fields;
  std::istringstream cells(line);
  for (std::string cell; std::getline(cells, cell, ',');) fields.push_back(cell);
  return fields;
}

constexpr double kFakeWatts = 100.0;
constexpr const char* kFakeUuid = "GPU-2f6d5b7e-1c3a-4e8b-9d0f-a1b2c3d4e5f6";

class CommandCliTest : public ecocompute::testing::ScratchDirTest {
 protected:
  // Runs the binary with no NVML, or with the fake one (constant kFakeWatts, a 1-ms counter); keeps both streams.
  Outcome ecocompute(const std::string& args, bool fake_nvml = false) const {
    std::string env = "ECOCOMPUTE_NVML_LIBRARY=/nonexistent/libnvidia-ml.so.1";
    if (fake_nvml) {
      const fs::path script = dir_ / "fake_nvml.json";
      std::ofstream(script) << R"({"clock": "real", "devices": [{"name": "NVIDIA H200", "uuid": ")" << kFakeUuid << R"(",
        "pci_bus_id": "00000000:19:00.0", "architecture": 9, "power_limit_mw": 700000,
        "power": {"kind": "constant", "watts": 100}, "counter_update_period_s": 0.001, "sample_period_s": 0.01}]})";
      env = std::string("ECOCOMPUTE_NVML_LIBRARY='") + FAKE_NVML_PATH + "' FAKE_NVML_SCRIPT='" + script.string() + "'";
    }
    // No __pycache__ in the source tree.
    return ecocompute::testing::run_ecocompute(
        env + " PYTHONDONTWRITEBYTECODE=1 PYTHONPATH='" + std::string(ECOCOMPUTE_SOURCE_DIR) + "/contrib'", args, dir_);
  }

  static std::string worker(const std::string& arguments) {
    return "python3 " + std::string(ECOCOMPUTE_SOURCE_DIR) + "/tests/programs/command_worker.py " + arguments;
  }

  std::string measure(const std::string& baseline, const std::string& candidate, const std::string& extra = "") const {
    return "measure --engine command --baseline-command 'FP32=" + worker("driven " + baseline) + "'" +
           (candidate.empty() ? "" : " --candidate-command 'HALF=" + worker("driven " + candidate) + "'") +
           " -k 2 --warmups 1 --tokens 20 --iterations 1 --min-window 0.3 --min-prefill-window 0.1 --idle-window 0.2"
           " --no-progress --out '" + (dir_ / "out").string() + "' " + extra;
  }

  nlohmann::json report(const std::string& name) const { return nlohmann::json::parse(slurp(dir_ / "out" / name)); }
};

TEST_F(CommandCliTest, MeasureRunsTheProgramsWithoutAnEnergySource) {
  const Outcome run = ecocompute(measure("--precision FP32 --cost 200", "--precision HALF --cost 100"));
  ASSERT_EQ(run.status, 0) << run.err;
  EXPECT_NE(run.out.find("HALF"), std::string::npos) << run.out;
  const Outcome valid = ecocompute("validate '" + (dir_ / "out" / "energy-FP32.json").string() + "' '" +
                                   (dir_ / "out" / "energy-HALF.json").string() + "'");
  EXPECT_EQ(valid.status, 0) << valid.out << valid.err;

  for (const char* name : {"energy-FP32.json", "energy-HALF.json"}) {
    const auto r = report(name);
    EXPECT_EQ(r["engine"]["name"], "pyworker") << name;
    EXPECT_EQ(r["engine"]["version"], "1.0");
    EXPECT_EQ(r["engine"]["device"], "cpu");
    EXPECT_EQ(r["workload"]["weights"], "synthetic");  // as the program declared
    EXPECT_EQ(r["workload"]["model_name"], "cpu-loop");
    EXPECT_EQ(r["workload"]["prompt_tokens"], 10);  // the default prompt length of a command
    EXPECT_FALSE(r.contains("quality") && !r["quality"].is_null()) << "a command has no quality block";
    EXPECT_EQ(r["measurement_source"], "none");
    EXPECT_EQ(r["results"]["basis"], "unavailable");
    EXPECT_TRUE(r["results"]["energy_per_token_mj"].is_null());
    ASSERT_EQ(r["trials"].size(), 2u);
    for (const auto& t : r["trials"]) {
      EXPECT_EQ(t["status"], "ok") << t.dump();
      // Every decode window's tokens are whole iterations of 20; every prefill's whole prompts of 10.
      const auto decode_tokens = t["decode"]["tokens"].get<long long>();
      EXPECT_GT(decode_tokens, 0);
      EXPECT_EQ(decode_tokens % 20, 0);
      EXPECT_EQ(t["prefill"]["tokens"].get<long long>() % 10, 0);
      EXPECT_TRUE(t["decode"]["energy_j"].is_null());
    }
  }
  EXPECT_EQ(report("energy-HALF.json")["workload"]["precision"], "HALF");
}

TEST_F(CommandCliTest, MeasureWithTheFakeNvmlGetsEachWindowsEnergyRight) {
  const Outcome run = ecocompute(measure("--cost 200", "--cost 100", std::string("--edges counter --gpu ") + kFakeUuid), true);
  ASSERT_EQ(run.status, 0) << run.err;
  for (const char* name : {"energy-FP32.json", "energy-HALF.json"}) {
    const auto r = report(name);
    EXPECT_EQ(r["measurement_source"], "direct-nvml") << name;
    EXPECT_EQ(r["results"]["basis"], "measured");
    for (const auto& t : r["trials"]) {
      ASSERT_EQ(t["status"], "ok") << t.dump();
      for (const char* kind : {"prefill", "decode"}) {
        const auto& w = t[kind];
        const double energy = w["energy_j"].get<double>();
        const double duration = w["duration_s"].get<double>();
        const double tokens = w["tokens"].get<double>();
        // Constant 100 W: the window's energy is 100 W × its duration, within its edges' bound
        // (and the few milliseconds by which the meter's clock and the fake's can differ).
        const double bound = w["edge_uncertainty_j"].get<double>() + 0.02 * kFakeWatts * duration + 0.05;
        EXPECT_NEAR(energy, kFakeWatts * duration, bound) << name << " " << kind;
        EXPECT_NEAR(w["energy_per_token_mj"].get<double>(), energy / tokens * 1e3, 1e-6 * energy / tokens * 1e3);
      }
    }
  }
}

TEST_F(CommandCliTest, CrashMidDecodeMarksTheCandidatesTrialsFailed) {
  const Outcome run = ecocompute(measure("", "--fault crash"));
  EXPECT_EQ(run.status, 4) << run.err;
  const auto baseline = report("energy-FP32.json");
  for (const auto& t : baseline["trials"]) EXPECT_EQ(t["status"], "ok");
  // The candidate has no valid trial, so no energy figure of it is written, only failures with reasons.
  EXPECT_NE(run.err.find("exit status 9"), std::string::npos) << run.err;
}

TEST_F(CommandCliTest, HangPastTheTimeoutIsAFailureWithItsReason) {
  // The timeout also bounds each program's start-up, and a Python start on two busy cores has taken over
  // 1 s: 5 s leaves the healthy baseline room while the hanging candidate still fails.
  const Outcome run = ecocompute(measure("", "--fault hang", "--command-timeout 5"));
  EXPECT_EQ(run.status, 4) << run.err;
  EXPECT_NE(run.err.find("no reply from the program within 5 s"), std::string::npos) << run.err;
}

TEST_F(CommandCliTest, WrongTokenCountFailsTrialsNeverCountsThem) {
  const Outcome run = ecocompute(measure("", "--fault wrong-count"));
  EXPECT_EQ(run.status, 4) << run.err;
  EXPECT_NE(run.err.find("tokens=19 to a request for 20"), std::string::npos) << run.err;
  const auto summary = nlohmann::json::parse(slurp(dir_ / "out" / "run.json"));
  EXPECT_NE(summary.dump().find("tokens=19"), std::string::npos);
}

TEST_F(CommandCliTest, GarbageReplyFailsTheCandidate) {
  const Outcome run = ecocompute(measure("", "--fault garbage"));
  EXPECT_EQ(run.status, 4) << run.err;
  EXPECT_NE(run.err.find("printable ASCII"), std::string::npos) << run.err;
}

TEST_F(CommandCliTest, BaselineThatNeverSaysHelloIsAStartUpError) {
  const Outcome run = ecocompute(measure("--fault no-hello", ""));
  EXPECT_EQ(run.status, 3) << run.err;
  EXPECT_NE(run.err.find("sent no hello"), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("exit status 3"), std::string::npos) << run.err;
}

TEST_F(CommandCliTest, UsageErrors) {
  EXPECT_EQ(ecocompute("measure --engine command --no-progress").status, 2);  // no --baseline-command
  EXPECT_EQ(ecocompute("measure --engine command --baseline-command 'nolabel'").status, 2);
  EXPECT_EQ(ecocompute("measure --engine command --baseline-command 'F-16=true'").status, 2);  // label charset
  EXPECT_EQ(ecocompute("measure --engine command --baseline-command 'A=true' --candidate-command 'A=true'").status, 2);
  EXPECT_EQ(ecocompute("measure --engine command --baseline-command 'A=true' --batch 2").status, 2);
  EXPECT_EQ(ecocompute("measure --engine command --baseline-command 'A=true' -m x.gguf").status, 2);
  EXPECT_EQ(ecocompute("measure --baseline-command 'A=true' -m x.gguf").status, 2);  // needs --engine command
  EXPECT_EQ(ecocompute("measure --no-progress").status, 2);                             // llama.cpp needs -m
}

TEST_F(CommandCliTest, MeterMeasuresMarkedWindows) {
  const Outcome run = ecocompute("meter --json -- " + worker("marked --windows 3 --tokens 40"));
  ASSERT_EQ(run.status, 0) << run.err << run.out;
  const auto json = nlohmann::json::parse(run.out);
  EXPECT_EQ(json["marked"], true);
  ASSERT_EQ(json["windows"].size(), 3u);
  for (int i = 0; i < 3; ++i) {
    const auto& w = json["windows"][i];
    EXPECT_EQ(w["label"], "decode" + std::to_string(i));
    EXPECT_EQ(w["tokens"], 40);
    EXPECT_GT(w["duration_s"].get<double>(), 0.0);
    EXPECT_EQ(w["status"], "unavailable");  // no energy source here: no number is made up
    EXPECT_TRUE(w["energy_j"].is_null());
    EXPECT_TRUE(w["j_per_token"].is_null());
  }
  EXPECT_EQ(json["exit"]["code"], 0);
}

TEST_F(CommandCliTest, MeterWithoutMarkersMeasuresTheWholeRunAndPassesOnTheExitStatus) {
  const Outcome run = ecocompute("meter --json -- " + worker("plain --exit 5"));
  EXPECT_EQ(run.status, 5) << run.err;
  const auto json = nlohmann::json::parse(run.out);
  EXPECT_EQ(json["marked"], false);
  ASSERT_EQ(json["windows"].size(), 1u);
  EXPECT_EQ(json["windows"][0]["label"], "run");
  EXPECT_EQ(json["exit"]["code"], 5);

  const Outcome table = ecocompute("meter -- " + worker("plain"));
  EXPECT_EQ(table.status, 0) << table.err;
  EXPECT_NE(table.out.find("run"), std::string::npos) << table.out;
  EXPECT_NE(table.out.find("program: exit status 0"), std::string::npos) << table.out;
}

TEST_F(CommandCliTest, MeterWithTheFakeNvmlGetsTheWindowsEnergyRight) {
  const Outcome run = ecocompute(std::string("meter --json --gpu ") + kFakeUuid + " -- " + worker("marked --windows 2 --tokens 2000"), true);
  ASSERT_EQ(run.status, 0) << run.err << run.out;
  const auto json = nlohmann::json::parse(run.out);
  EXPECT_EQ(json["source"], "nvml-energy-counter");
  ASSERT_EQ(json["windows"].size(), 2u);
  for (const auto& w : json["windows"]) {
    ASSERT_EQ(w["status"], "measured") << w.dump();
    const double energy = w["energy_j"].get<double>();
    const double duration = w["duration_s"].get<double>();
    const double bound = w["edge_uncertainty_j"].get<double>() + 0.02 * kFakeWatts * duration + 0.05;
    EXPECT_NEAR(energy, kFakeWatts * duration, bound);
    EXPECT_NEAR(w["avg_power_w"].get<double>(), energy / duration, 1e-9 * energy / duration);
    EXPECT_NEAR(w["j_per_token"].get<double>(), energy / 2000.0, 1e-12 + 1e-9 * energy / 2000.0);
  }
}

TEST_F(CommandCliTest, MeterCsvHasCodeCarbonsColumnsInItsUnits) {
  const Outcome run = ecocompute(std::string("meter --csv --gpu ") + kFakeUuid + " -- " + worker("marked --windows 2 --tokens 2000"), true);
  ASSERT_EQ(run.status, 0) << run.err << run.out;
  std::istringstream lines(run.out);
  std::string header;
  std::getline(lines, header);
  EXPECT_EQ(header.rfind("window,duration,gpu_power,cpu_power,gpu_energy,cpu_energy,energy_consumed,", 0), 0u) << header;
  int rows = 0;
  for (std::string line; std::getline(lines, line); ++rows) {
    const std::vector<std::string> f = csv_fields(line);
    ASSERT_GE(f.size(), 11u) << line;
    const double seconds = std::stod(f[1]), watts = std::stod(f[2]), kwh = std::stod(f[4]);
    EXPECT_TRUE(f[3].empty() && f[5].empty()) << "a GPU window fills no cpu_ column: " << line;
    EXPECT_EQ(f[4], f[6]) << line;  // energy_consumed is the GPU's here
    EXPECT_NEAR(kwh * 3.6e6, watts * seconds, 0.02 * watts * seconds + 0.05) << line;  // kWh, not J
    EXPECT_NEAR(watts, kFakeWatts, 0.05 * kFakeWatts) << line;
    EXPECT_EQ(f[8], "2000");
    EXPECT_NEAR(std::stod(f[10]), 2000.0 / kwh, 0.01 * 2000.0 / kwh) << line;  // tokens per kWh
  }
  EXPECT_EQ(rows, 2);
  EXPECT_NE(ecocompute("meter --csv --json -- " + worker("plain")).status, 0);
}

TEST_F(CommandCliTest, MeterCsvPutsTheHostsCpuAndDramBesideTheGpu) {
  // A powercap tree whose package and DRAM counters a thread advances while the command runs.
  const ecocompute::testing::FakePowercap powercap(dir_ / "powercap");
  powercap.zone("intel-rapl:0", "package-0", 0);
  powercap.zone("intel-rapl:0:0", "dram", 0);
  std::atomic<bool> done{false};
  std::thread counters([&] {
    for (std::uint64_t uj = 0; !done; uj += 1000) {
      powercap.set("intel-rapl:0", uj);
      powercap.set("intel-rapl:0:0", uj / 4);
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
  });
  const fs::path script = dir_ / "fake_nvml.json";
  std::ofstream(script) << R"({"clock": "real", "devices": [{"name": "NVIDIA H200", "uuid": ")" << kFakeUuid << R"(",
    "pci_bus_id": "00000000:19:00.0", "architecture": 9, "power_limit_mw": 700000,
    "power": {"kind": "constant", "watts": 100}, "counter_update_period_s": 0.001, "sample_period_s": 0.01}]})";
  const Outcome run = ecocompute::testing::run_ecocompute(
      std::string("ECOCOMPUTE_NVML_LIBRARY='") + FAKE_NVML_PATH + "' FAKE_NVML_SCRIPT='" + script.string() +
          "' ECOCOMPUTE_POWERCAP_ROOT='" + powercap.root().string() + "' PYTHONDONTWRITEBYTECODE=1 PYTHONPATH='" +
          std::string(ECOCOMPUTE_SOURCE_DIR) + "/contrib'",
      std::string("meter --csv --gpu ") + kFakeUuid + " -- " + worker("marked --windows 2 --tokens 2000"), dir_);
  done = true;
  counters.join();
  ASSERT_EQ(run.status, 0) << run.err << run.out;
  std::istringstream lines(run.out);
  std::string header;
  std::getline(lines, header);
  EXPECT_NE(header.find(",ram_power,ram_energy"), std::string::npos) << header;
  int rows = 0;
  for (std::string line; std::getline(lines, line); ++rows) {
    const std::vector<std::string> f = csv_fields(line);
    ASSERT_EQ(f.size(), 16u) << line;
    const double gpu = std::stod(f[4]), cpu = std::stod(f[5]), consumed = std::stod(f[6]), ram = std::stod(f[15]);
    EXPECT_GT(cpu, 0.0) << "the package counter advanced during the window: " << line;
    EXPECT_GT(ram, 0.0) << line;
    EXPECT_NEAR(consumed, gpu + cpu + ram, 3e-9) << "energy_consumed is their sum, as CodeCarbon's: " << line;
    EXPECT_NEAR(std::stod(f[2]), kFakeWatts, 0.05 * kFakeWatts) << "gpu_power stays the GPU's own: " << line;
  }
  EXPECT_EQ(rows, 2);
}

TEST_F(CommandCliTest, MeterRefusesBadMarkersAndReportsUnclosedWindows) {
  const Outcome unknown = ecocompute("meter --json -- " + worker("marked --windows 1 --fault unknown"));
  EXPECT_EQ(unknown.status, 4) << unknown.err;
  EXPECT_NE(unknown.out.find("reply: error"), std::string::npos) << unknown.out;

  const Outcome nested = ecocompute("meter --json -- " + worker("marked --windows 0 --fault nested"));
  EXPECT_EQ(nested.status, 4) << nested.err;
  EXPECT_NE(nested.out.find("do not nest"), std::string::npos) << nested.out;

  const Outcome unclosed = ecocompute("meter --json -- " + worker("marked --windows 1 --fault unclosed"));
  EXPECT_EQ(unclosed.status, 4) << unclosed.err;
  EXPECT_NE(unclosed.out.find("no end marker"), std::string::npos) << unclosed.out;
}

TEST_F(CommandCliTest, MeterOfAMissingProgramIsAUsageError) {
  EXPECT_EQ(ecocompute("meter -- /nonexistent/program").status, 2);
}

}  // namespace
