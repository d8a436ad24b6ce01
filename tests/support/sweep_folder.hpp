// What the sweep integration tests share: the plan they run (three jobs of the trained fixture, batch 1,
// 2 and 3, each a short CPU run on one llama thread: small windows, two trials, no quality probe), and
// the journal and finished reports of a sweep folder as read back from disk.
#pragma once

#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "support/scratch_dir.hpp"

namespace ecocompute::testing {

inline nlohmann::json fixture_sweep_plan() {
  return {{"name", "fixture"},
          {"models", {std::string(ECOCOMPUTE_SOURCE_DIR) + "/data/fixture/fixture-kjv-f16.gguf"}},
          {"batches", {{1}, {2}, {3}}},
          {"precisions", {"Q8_0"}},
          {"trials", 2},
          {"warmups", 1},
          {"tokens", 16},
          {"threads", 1},
          {"window", {{"min_s", 1.0}, {"min_prefill_s", 0.2}, {"idle_s", 0.2}}},
          {"quality", false}};
}

/// The records of `sweep_dir`/journal.jsonl, in order.
inline std::vector<nlohmann::json> read_journal(const std::filesystem::path& sweep_dir) {
  std::vector<nlohmann::json> records;
  std::ifstream in(sweep_dir / "journal.jsonl");
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty()) records.push_back(nlohmann::json::parse(line));
  }
  return records;
}

/// The reports of every job the journal says is done, by path, with their bytes.
inline std::map<std::string, std::string> done_reports(const std::filesystem::path& sweep_dir) {
  std::map<std::string, std::string> reports;
  for (const nlohmann::json& r : read_journal(sweep_dir)) {
    if (r["event"] != "done") continue;
    for (const auto& name : r["reports"]) {
      const std::filesystem::path path = sweep_dir / "jobs" / r["job"].get<std::string>() / name.get<std::string>();
      reports[path.string()] = slurp(path);
    }
  }
  return reports;
}

}  // namespace ecocompute::testing
