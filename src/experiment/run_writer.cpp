// run.json from a RunResult, and the writing of every report of a run.
#include "experiment/run_writer.hpp"

#include <fmt/format.h>

#include "experiment/report_builder.hpp"
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
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path display = out_dir.empty() ? fs::path(".") : out_dir;
  if (fs::exists(out_dir, ec) && !fs::is_directory(out_dir, ec)) {
    return unexpected(ErrorCode::invalid_argument,
                      fmt::format("output folder {}: a file of that name exists (choose another --out)", display.string()));
  }
  if (!out_dir.empty() && !fs::create_directories(out_dir, ec) && ec) {
    return unexpected(ErrorCode::invalid_argument,
                      fmt::format("output folder {}: cannot be created: {}", display.string(), ec.message()));
  }
  const fs::path probe = display / ".ecocompute-write-test";
  if (auto written = write_file_atomic(probe, "ok\n"); !written) {
    return Error{ErrorCode::invalid_argument, fmt::format("output folder {}: not writable", display.string()),
                 written.error()};
  }
  fs::remove(probe, ec);
  return {};
}

Result<std::vector<WrittenReport>> write_run_reports(const protocol::RunResult& run, const ReportContext& context,
                                                     const std::filesystem::path& out_dir) {
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
    const std::filesystem::path path = out_dir / report_file_name(condition);
    if (auto result = report::write_energy_report(path, *built); !result) {
      if (result.error().code() == ErrorCode::io) return result.error();
      log::error("{}", result.error().describe());
      entry.failure = result.error().describe();
      written.push_back(std::move(entry));
      continue;
    }
    entry.path = path;
    entry.report = std::move(*built);
    written.push_back(std::move(entry));
  }
  const report::RunReport summary = build_run_report(run, context, written);
  if (auto result = report::write_run_report(out_dir / "run.json", summary); !result) return result.error();
  return written;
}

}  // namespace ecocompute::experiment
