// `sweep status`: every job's state from the folder's plan and journal, and the progress per slot.
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "sweep/journal.hpp"
#include "sweep/plan.hpp"

namespace ecocompute::sweep {

struct JobRow {
  std::string id;
  JobStatus status;
};

struct SlotProgress {
  std::size_t done = 0, running = 0, failed = 0, interrupted = 0;
};

struct SweepStatus {
  std::vector<JobRow> jobs;                    ///< in plan order
  std::map<std::string, SlotProgress> slots;   ///< by the slot of each job's last attempt
  std::size_t pending = 0;                     ///< never started (not yet bound to a slot)
  std::size_t unreadable_journal_lines = 0;
};

/// Reads the plan a sweep folder was started with (<dir>/plan.json).
Result<SweepPlan> read_sweep_plan(const std::filesystem::path& dir);

/// Reads <dir>/plan.json and <dir>/journal.jsonl. Error{not_found} when `dir` is no sweep folder.
Result<SweepStatus> read_status(const std::filesystem::path& dir);

/// A table: one row per slot (done / running / failed / interrupted), the pending count, then the jobs
/// that are not done with their reason.
std::string status_text(const SweepStatus& status);

Json to_json(const SweepStatus& status);

/// The count of jobs that are not done.
std::size_t unfinished(const SweepStatus& status);

}  // namespace ecocompute::sweep
