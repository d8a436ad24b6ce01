// run.json ↔ RunReport.
#include "report/run_report.hpp"

#include "report/report_json.hpp"
#include "util/file_io.hpp"

namespace ecocompute::report {
namespace {

using detail::JsonReader;
using detail::JsonWriter;

RunDesign read_design(const JsonReader& r) {
  RunDesign d;
  d.model = r.text_or("model", "");
  d.baseline = r.text_or("baseline", "");
  d.candidates = r.texts("candidates");
  d.trials_per_precision = static_cast<int>(r.integer("trials_per_precision").value_or(0));
  d.warmups = static_cast<int>(r.integer("warmups").value_or(0));
  d.tokens_per_run = r.integer("tokens_per_run").value_or(0);
  d.iterations_requested = static_cast<int>(r.integer("iterations_requested").value_or(0));
  d.iterations = static_cast<int>(r.integer("iterations").value_or(0));
  d.prompt_lengths_tokens = r.integers("prompt_lengths_tokens");
  d.batches = r.integers("batches");
  if (d.batches.empty()) d.batches = {1};
  d.schedule = r.text_or("schedule", "");
  d.seed = r.text_or("seed", "");
  d.iterations_explanation = r.text_or("iterations_explanation", "");
  d.accept_throttled = r.boolean("accept_throttled").value_or(false);
  return d;
}

RunCondition read_condition(const JsonReader& r) {
  RunCondition c;
  c.label = r.text_or("label", "");
  c.precision = r.text_or("precision", "");
  c.is_baseline = r.boolean("is_baseline").value_or(false);
  c.prompt_tokens = r.integer("prompt_tokens").value_or(0);
  c.batch = r.integer("batch").value_or(1);
  c.report = r.text("report");
  c.failure = r.text_or("failure", "");
  if (auto n = r.integer("n_trials")) {
    ConditionHeadline h;
    h.n_trials = *n;
    h.n_failed = r.integer("n_failed").value_or(0);
    h.energy_per_token_mj = r.number("energy_per_token_mj");
    if (auto d = r.object("vs_fp16_energy_pct")) h.vs_fp16_energy_pct = detail::read_paired_delta(*d);
    h.throughput_tokens_per_s = r.number("throughput_tokens_per_s");
    h.has_quality = r.json().contains("delta_ppl_pct");
    h.delta_ppl_pct = r.number("delta_ppl_pct");
    h.kld = r.number("kld");
    c.headline = h;
  }
  return c;
}

RunReport read_run(const JsonReader& r) {
  RunReport run;
  run.schema_version = r.text_or("schema_version", "");
  if (run.schema_version != run_schema_version) {
    const bool energy = run.schema_version.starts_with("ecocompute-energy/");
    r.fail("schema_version", energy ? "this is an energy.json report, not a run summary (run.json)"
                                    : "'" + run.schema_version + "' is not " + std::string(run_schema_version));
  }
  run.run_id = r.text_or("run_id", "");
  run.started_utc = r.text_or("started_utc", "");
  run.finished_utc = r.text_or("finished_utc", "");
  run.cancelled = r.boolean("cancelled").value_or(false);
  run.measurement_source = r.text_or("measurement_source", "");
  run.meter_device = r.text_or("meter_device", "");
  run.environment_fingerprint = r.text_or("environment_fingerprint", "");
  run.weights = r.text_or("weights", "");
  run.design = read_design(r.object_or_empty("design"));
  run.order = r.texts("order");
  for (const JsonReader& t : r.objects("trials").value_or(std::vector<JsonReader>{})) {
    run.trials.push_back(RunTrial{t.integer("order_index").value_or(0), t.text_or("condition", ""),
                                  t.integer("repetition").value_or(0), t.integer("block").value_or(0),
                                  t.text_or("status", ""), t.text_or("reason", "")});
  }
  const JsonReader idle = r.object_or_empty("idle");
  run.idle = RunIdle{idle.number("power_w"), idle.text_or("failure", "")};
  for (const JsonReader& c : r.objects("conditions").value_or(std::vector<JsonReader>{})) {
    run.conditions.push_back(read_condition(c));
  }
  run.warnings = r.texts("warnings");
  return run;
}

OrderedJson condition_json(const RunCondition& c) {
  JsonWriter w(true);
  w.put("label", c.label);
  w.put("precision", c.precision);
  w.put("is_baseline", c.is_baseline);
  w.put("prompt_tokens", c.prompt_tokens);
  if (c.batch != 1) w.put("batch", c.batch);  // absent at batch 1: batch-1 runs read as before
  w.nullable("report", c.report);
  w.put("failure", c.failure);
  if (c.headline) {
    const ConditionHeadline& h = *c.headline;
    w.put("n_trials", h.n_trials);
    w.put("n_failed", h.n_failed);
    w.nullable("energy_per_token_mj", h.energy_per_token_mj);
    w.put("vs_fp16_energy_pct", detail::paired_delta_json(h.vs_fp16_energy_pct));
    w.nullable("throughput_tokens_per_s", h.throughput_tokens_per_s);
    if (h.has_quality) {
      w.nullable("delta_ppl_pct", h.delta_ppl_pct);
      w.nullable("kld", h.kld);
    }
  }
  return w.take();
}

}  // namespace

ConditionHeadline headline_of(const EnergyReport& report) {
  ConditionHeadline h;
  if (report.statistics) {
    h.n_trials = report.statistics->n_trials;
    h.n_failed = report.statistics->n_failed;
    h.vs_fp16_energy_pct = report.statistics->vs_fp16_energy_pct;
  }
  h.energy_per_token_mj = report.results.energy_per_token_mj;
  h.throughput_tokens_per_s = report.results.throughput_tokens_per_s;
  if (report.quality) {
    h.has_quality = true;
    h.delta_ppl_pct = report.quality->delta_vs_fp16_pct;
    h.kld = report.quality->kld;
  }
  return h;
}

Result<RunReport> run_report_from_json(const OrderedJson& document, std::string_view source) {
  return detail::read_document<RunReport>(document, source, read_run);
}

OrderedJson to_json(const RunReport& run) {
  const RunDesign& d = run.design;
  OrderedJson design = {{"model", d.model},
                        {"baseline", d.baseline},
                        {"candidates", d.candidates},
                        {"trials_per_precision", d.trials_per_precision},
                        {"warmups", d.warmups},
                        {"tokens_per_run", d.tokens_per_run},
                        {"iterations_requested", d.iterations_requested},
                        {"iterations", d.iterations},
                        {"prompt_lengths_tokens", d.prompt_lengths_tokens},
                        {"schedule", d.schedule},
                        {"seed", d.seed},
                        {"iterations_explanation", d.iterations_explanation}};
  // Absent for a batch-1 run, so such files read (and compare) as before batch was a factor.
  if (!(d.batches.empty() || d.batches == std::vector<std::int64_t>{1})) {
    design["batches"] = d.batches;
  }
  // Only when set: a reader must know that throttled windows are in the means (each trial's reason says which).
  if (d.accept_throttled) design["accept_throttled"] = true;
  OrderedJson trials = OrderedJson::array();
  for (const RunTrial& t : run.trials) {
    trials.push_back({{"order_index", t.order_index},
                      {"condition", t.condition},
                      {"repetition", t.repetition},
                      {"block", t.block},
                      {"status", t.status},
                      {"reason", t.reason}});
  }
  JsonWriter idle(true);
  idle.nullable("power_w", run.idle.power_w);
  idle.put("failure", run.idle.failure);
  OrderedJson conditions = OrderedJson::array();
  for (const RunCondition& c : run.conditions) conditions.push_back(condition_json(c));

  OrderedJson doc = OrderedJson::object();
  doc["schema_version"] = run.schema_version;
  doc["run_id"] = run.run_id;
  doc["started_utc"] = run.started_utc;
  doc["finished_utc"] = run.finished_utc;
  doc["cancelled"] = run.cancelled;
  doc["measurement_source"] = run.measurement_source;
  doc["meter_device"] = run.meter_device;
  doc["environment_fingerprint"] = run.environment_fingerprint;
  doc["weights"] = run.weights;
  doc["design"] = std::move(design);
  doc["order"] = run.order;
  doc["trials"] = std::move(trials);
  doc["idle"] = idle.take();
  doc["conditions"] = std::move(conditions);
  doc["warnings"] = run.warnings;
  return doc;
}

Result<void> write_run_report(const std::filesystem::path& path, const RunReport& report) {
  return write_file_atomic(path, to_json(report).dump(2) + "\n");
}

}  // namespace ecocompute::report
