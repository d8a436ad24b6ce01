// run.json from a RunResult, and the writing of every report of a run.
#include "experiment/run_writer.hpp"

#include <fmt/format.h>

#include <unistd.h>

#include "experiment/report_builder.hpp"
#include "experiment/run_folder.hpp"
#include "util/file_io.hpp"
#include "util/log.hpp"

namespace ecocompute::experiment {

report::RunReport build_run_report(const protocol::RunResult& run, const ReportContext& context,
                                   const std::vector<WrittenReport>& reports) {
  report::RunReport out;
  out.run_id = context.run_id;
  out.started_utc = run.started_utc;
  out.finished_utc = run.finished_utc;
  out.cancelled = run.cancelled;
  out.measurement_source = std::string(measurement_source(run.meter_source));
  out.meter_device = run.meter_device;
  std::string engine_commit;
  for (const auto& s : run.setups) {
    if (s.engine) engine_commit = s.engine->commit;
  }
  out.environment_fingerprint = build_environment(context, engine_commit).fingerprint;
  out.weights = std::string(report::to_string(context.weights));

  const protocol::Design& d = run.design;
  // One decision per batch level: the first names the counts, the explanation gives every level's.
  const protocol::IterationDecision& decision = run.decision_for(d.batches.empty() ? 1 : d.batches.front());
  std::string explanation;
  for (const protocol::IterationDecision& level : run.iteration_decisions) {
    explanation += fmt::format("{}{}", explanation.empty() ? "" : " ",
                               run.iteration_decisions.size() > 1 ? fmt::format("Batch {}: {}", level.batch, level.explanation)
                                                                  : level.explanation);
  }
  out.design = report::RunDesign{d.model.filename().string(),
                                 d.baseline,
                                 d.candidates,
                                 d.trials,
                                 d.warmups,
                                 d.tokens_per_iteration,
                                 decision.requested_iterations,
                                 decision.iterations,
                                 d.prompt.lengths_tokens,
                                 std::vector<std::int64_t>(d.batches.begin(), d.batches.end()),
                                 std::string(protocol::to_string(run.schedule.order)),
                                 std::to_string(run.schedule.seed),
                                 explanation,
                                 d.accept_throttled};

  for (const protocol::TrialResult& t : run.trials) {
    const std::string label = t.condition < run.conditions.size() ? run.conditions[t.condition].label() : t.precision;
    out.order.push_back(fmt::format("{} #{}", label, t.repetition + 1));
    out.trials.push_back(report::RunTrial{static_cast<std::int64_t>(t.index), label, t.repetition, t.block,
                                          std::string(protocol::to_string(t.status)), t.reason});
  }
  out.idle = report::RunIdle{run.idle.power ? std::optional<double>(run.idle.power->value) : std::nullopt,
                             run.idle.failure};

  for (const protocol::Condition& c : run.conditions) {
    report::RunCondition entry{c.label(), c.precision, c.is_baseline, c.prompt_tokens, c.batch, std::nullopt, "",
                               std::nullopt};
    for (const WrittenReport& r : reports) {
      if (r.condition != c.index) continue;
      if (!r.path.empty()) entry.report = r.path.filename().string();
      entry.failure = r.failure;
      if (r.report) entry.headline = report::headline_of(*r.report);
    }
    out.conditions.push_back(std::move(entry));
  }
  out.warnings = run.warnings;
  return out;
}

Result<void> prepare_out_dir(const std::filesystem::path& out_dir) {
  // The same checks the end of the run makes, now: its staging folder is made and removed again.
  auto staging = begin_run_folder(out_dir, "check-" + std::to_string(::getpid()));
  if (!staging) return staging.error();
  std::error_code ec;
  std::filesystem::remove_all(*staging, ec);
  return {};
}

namespace {

// Writes every condition's report and run.json into `folder`; the reports' paths are those they will
// have in `out_dir` once the folder is in place.
Result<std::vector<WrittenReport>> write_reports_into(const protocol::RunResult& run, const ReportContext& context,
                                                      const std::filesystem::path& folder,
                                                      const std::filesystem::path& out_dir, const RunFolderStep& step) {
  std::vector<WrittenReport> written;
  for (const protocol::Condition& condition : run.conditions) {
    WrittenReport entry;
    entry.condition = condition.index;
    entry.label = condition.label();
    auto built = build_energy_report(run, condition.index, context);
    if (!built) {
      entry.failure = built.error().describe();
      written.push_back(std::move(entry));
      continue;
    }
    const std::string name = report_file_name(condition);
    if (auto result = report::write_energy_report(folder / name, *built); !result) {
      if (result.error().code() == ErrorCode::io) return result.error();
      log::error("{}", result.error().describe());
      entry.failure = result.error().describe();
      written.push_back(std::move(entry));
      continue;
    }
    if (step) step("write " + name);
    entry.path = out_dir / name;
    entry.report = std::move(*built);
    written.push_back(std::move(entry));
  }
  const report::RunReport summary = build_run_report(run, context, written);
  if (auto result = report::write_run_report(folder / "run.json", summary); !result) return result.error();
  if (step) step("write run.json");
  return written;
}

}  // namespace

Result<std::vector<WrittenReport>> write_run_reports(const protocol::RunResult& run, const ReportContext& context,
                                                     const std::filesystem::path& out_dir, const RunFolderStep& step) {
  auto staging = begin_run_folder(out_dir, context.run_id.empty() ? "run" : context.run_id);
  if (!staging) {
    // Checked before the first window, so this is rare (the parent's permissions changed during the
    // run): the files are written in place, one by one, rather than lost.
    log::warn("{}; writing the reports into the folder directly", staging.error().describe());
    return write_reports_into(run, context, out_dir, out_dir, step);
  }
  auto written = write_reports_into(run, context, *staging, out_dir, step);
  if (!written) return written.error();
  auto committed = commit_run_folder(*staging, out_dir, step);
  if (!committed) return committed.error();
  if (*committed) log::info("the previous run in {} was moved to {}", out_dir.string(), (*committed)->string());
  return written;
}

}  // namespace ecocompute::experiment
