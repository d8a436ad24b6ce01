// Readers for the published reference CSVs and for energy.json reports. Each file is recognised by
// its columns; every value is checked before a batch is returned, so a malformed file yields an error
// naming the file and line and no partial batch.
#include "data/dataset_import.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "data/csv_table.hpp"
#include "data/gpu_spec.hpp"
#include "data/model_size.hpp"
#include "report/energy_report.hpp"
#include "report/measurement_claim.hpp"
#include "report/report_consistency.hpp"
#include "report/run_report.hpp"
#include "report/stated_delta.hpp"
#include "report/throttled_trials.hpp"
#include "util/defaults.hpp"
#include "util/file_io.hpp"
#include "util/json.hpp"
#include "util/precision.hpp"

namespace ecocompute::data {
namespace {

namespace fs = std::filesystem;

constexpr const char* kZenodoMain = "Zenodo 10.5281/zenodo.22037483";
constexpr const char* kZenodoV110 = "Zenodo 10.5281/zenodo.19647290 (v1.1.0)";

// A session's identity: sha256 over the fields that define the environment.
Session make_session(std::string label, std::string gpu, std::string arch, std::string engine,
                     std::string engine_version, std::string software, std::string date,
                     std::string provenance, std::string fingerprint = "") {
  if (fingerprint.empty()) {
    fingerprint = sha256_hex(gpu + "\n" + arch + "\n" + engine + "\n" + engine_version + "\n" + software +
                             "\n" + date + "\n" + label);
  }
  Session s{fingerprint.substr(0, 16), fingerprint, std::move(label), std::move(gpu), std::move(arch),
            std::move(engine), std::move(engine_version), std::move(software), std::move(date),
            std::move(provenance)};
  return s;
}

// Applies `f` to each row index, stopping at the first error.
template <typename F>
Result<void> each_row(const CsvTable& t, F&& f) {
  for (std::size_t i = 0; i < t.size(); ++i) {
    if (auto r = f(i); !r) return r;
  }
  return {};
}

#define ECO_TRY_ASSIGN(var, expr)        \
  auto var##_result = (expr);            \
  if (!var##_result) return var##_result.error(); \
  auto var = std::move(*var##_result)

Result<std::string> arch_of(const CsvTable& t, std::size_t i, const char* column) {
  ECO_TRY_ASSIGN(raw, t.text(i, column));
  auto arch = parse_architecture(raw);
  if (!arch) return unexpected(ErrorCode::invalid_input, t.where(i) + ": " + arch.error().message());
  return *arch;
}

Result<double> size_of(const CsvTable& t, std::size_t i) {
  ECO_TRY_ASSIGN(n, t.number(i, "params_b"));
  if (n <= 0) return unexpected(ErrorCode::invalid_input, t.where(i) + ": params_b must be > 0, got " + std::to_string(n));
  return n;
}

Result<double> energy_of(const CsvTable& t, std::size_t i, const char* column) {
  ECO_TRY_ASSIGN(e, t.number(i, column));
  if (e <= 0) return unexpected(ErrorCode::invalid_input, t.where(i) + ": " + column + " must be > 0");
  return e;
}

std::string software_of(const CsvTable& t, std::size_t i) {
  std::string out;
  for (const char* lib : {"torch", "transformers", "bitsandbytes", "nvidia_driver"}) {
    if (!t.has_column(lib)) continue;
    out += (out.empty() ? "" : "; ") + std::string(lib) + " " + t.text(i, lib).value_or("");
  }
  return out;
}

// The fields every published row shares: real weights, served by the published engine.
DataRow published_row(const std::string& session_id, const std::string& gpu, const std::string& arch, const std::string& model,
                      double params_b, const std::string& precision, double energy, double fp16) {
  DataRow row;
  row.session_id = session_id;
  row.row_key = model + "|" + precision;
  row.gpu = gpu;
  row.gpu_arch = arch;
  row.engine = std::string(published_engine);
  row.model = model;
  row.params_b = params_b;
  row.precision = precision;
  row.weights = "real";
  row.energy_per_token_mj = energy;  // J per 1000 tokens = mJ per token
  row.fp16_energy_per_token_mj = fp16;
  return row;
}

// rtx4090_2026-07-24.csv: one line per model, FP16 / NF4 / INT8 side by side.
Result<ImportBatch> read_july(const CsvTable& t, const fs::path& path) {
  ImportBatch batch{path.string(), {}, {}, {}};
  batch.notes.push_back(path.filename().string() +
                        ": ΔE recomputed from the energies; same_run_delta_* kept as stored_delta_pct only");
  auto r = each_row(t, [&](std::size_t i) -> Result<void> {
    ECO_TRY_ASSIGN(arch, arch_of(t, i, "gpu_arch"));
    ECO_TRY_ASSIGN(gpu, t.text(i, "gpu"));
    ECO_TRY_ASSIGN(model, t.text(i, "model"));
    ECO_TRY_ASSIGN(size, size_of(t, i));
    ECO_TRY_ASSIGN(fp16, energy_of(t, i, "fp16_mj_per_token"));
    if (batch.sessions.empty()) {
      batch.sessions.push_back(make_session("rtx4090_2026-07-24", gpu, arch, std::string(published_engine), "",
                                            software_of(t, i), "2026-07-24", std::string(kZenodoMain) + " (July session)"));
    }
    for (auto [precision, column, stored] : {std::tuple{"NF4", "nf4_mj_per_token", "same_run_delta_nf4_pct"},
                                             std::tuple{"INT8", "int8_mj_per_token", "same_run_delta_int8_pct"}}) {
      ECO_TRY_ASSIGN(energy, energy_of(t, i, column));
      ECO_TRY_ASSIGN(stored_delta, t.optional_number(i, stored));
      DataRow row = published_row(batch.sessions.front().id, gpu, arch, model, size, precision, energy, fp16);
      row.stored_delta_pct = stored_delta;
      row.note = "FP16 from a separately measured run (July session)";
      batch.rows.push_back(std::move(row));
    }
    return {};
  });
  if (!r) return r.error();
  return batch;
}

// The long-format published files: one line per measured configuration. They differ only in column
// names, session naming and which optional columns they carry.
struct LongFormat {
  const char* session_label;  ///< one session for the file; nullptr: one per GPU, "<prefix><gpu>"
  const char* label_prefix;
  const char* date;
  std::string provenance;
  const char* energy_column;
  const char* fp16_column;
  const char* stored_delta_column;  ///< nullptr when absent
  const char* key_column;           ///< nullptr: model|precision
  const char* note;
};

Result<ImportBatch> read_long_format(const CsvTable& t, const fs::path& path, const LongFormat& f) {
  ImportBatch batch{path.string(), {}, {}, {}};
  auto optional = [&](std::size_t i, const char* column) -> Result<std::optional<double>> {
    if (column == nullptr || !t.has_column(column)) return std::optional<double>{};
    return t.optional_number(i, column);
  };
  auto r = each_row(t, [&](std::size_t i) -> Result<void> {
    ECO_TRY_ASSIGN(arch, arch_of(t, i, "gpu_arch"));
    ECO_TRY_ASSIGN(gpu, t.text(i, "gpu"));
    std::string label = f.session_label != nullptr ? f.session_label : f.label_prefix + gpu;
    std::replace(label.begin(), label.end(), ' ', '_');
    auto session = std::find_if(batch.sessions.begin(), batch.sessions.end(),
                                [&](const Session& s) { return s.label == label; });
    if (session == batch.sessions.end()) {
      batch.sessions.push_back(make_session(label, gpu, arch, std::string(published_engine), "", software_of(t, i), f.date,
                                            f.provenance));
      session = std::prev(batch.sessions.end());
    }
    ECO_TRY_ASSIGN(model, t.text(i, "model"));
    ECO_TRY_ASSIGN(precision, t.text(i, "precision"));
    ECO_TRY_ASSIGN(size, size_of(t, i));
    ECO_TRY_ASSIGN(energy, energy_of(t, i, f.energy_column));
    ECO_TRY_ASSIGN(fp16, energy_of(t, i, f.fp16_column));
    ECO_TRY_ASSIGN(stored, optional(i, f.stored_delta_column));
    ECO_TRY_ASSIGN(throughput, optional(i, "throughput_tok_s"));
    ECO_TRY_ASSIGN(power, optional(i, "avg_power_w"));
    ECO_TRY_ASSIGN(ppl, optional(i, "perplexity"));
    ECO_TRY_ASSIGN(fp16_ppl, optional(i, "fp16_perplexity"));
    ECO_TRY_ASSIGN(n, optional(i, "n"));
    DataRow row = published_row(session->id, gpu, arch, model, size, precision, energy, fp16);
    if (t.has_column("basis")) {
      ECO_TRY_ASSIGN(basis_text, t.text(i, "basis"));
      ECO_TRY_ASSIGN(basis, parse_basis(basis_text));
      row.basis = basis;
    }
    if (n && (*n < 1 || *n != std::floor(*n))) {
      return unexpected(ErrorCode::invalid_input, t.where(i) + ": n must be a whole number ≥ 1");
    }
    if (f.key_column != nullptr) {
      ECO_TRY_ASSIGN(key, t.text(i, f.key_column));
      row.row_key = key;
    }
    row.n_trials = n ? static_cast<int>(*n) : 1;
    row.stored_delta_pct = stored;
    row.throughput_tokens_per_s = throughput;
    row.avg_power_w = power;
    row.perplexity = ppl;
    row.fp16_perplexity = fp16_ppl;
    row.note = f.note;
    batch.rows.push_back(std::move(row));
    return {};
  });
  if (!r) return r.error();
  return batch;
}

}  // namespace

Result<ImportBatch> read_published_csv(const fs::path& path) {
  ECO_TRY_ASSIGN(table, CsvTable::read(path));
  if (table.has_column("nf4_mj_per_token")) return read_july(table, path);
  if (table.has_column("fp16_mj_per_token_same_run")) {
    return read_long_format(table, path,
                            {"rtx4090_2026-08-19", "", "2026-08-19", std::string(kZenodoMain) + " (2026-08-19)", "mj_per_token",
                             "fp16_mj_per_token_same_run", "vs_fp16_energy_pct", nullptr, "same-run FP16 baseline and perplexity"});
  }
  if (table.has_column("run_id") && table.has_column("energy_j_per_1k_tok")) {
    return read_long_format(table, path,
                            {"rtx4090_2026-08-20", "", "2026-08-20", std::string(kZenodoMain) + " (2026-08-20)", "energy_j_per_1k_tok",
                             "fp16_energy_j_per_1k_tok_same_run", "vs_fp16_energy_pct", "run_id", "replicate of a 3-report series"});
  }
  if (table.has_column("mj_per_token") && table.has_column("fp16_mj_per_token") && table.has_column("n")) {
    auto batch = read_long_format(table, path,
                                  {nullptr, "main_v1.1.0_", "", kZenodoV110, "mj_per_token", "fp16_mj_per_token", nullptr, nullptr, ""});
    if (batch) {
      batch->notes.push_back(path.filename().string() +
                             ": mixes idle-subtracted and gross rows (published caveat); software stack not published");
    }
    return batch;
  }
  const std::string name = path.filename().string();
  if (table.has_column("vs_fp16_energy_pct_mean")) {
    return ImportBatch{path.string(), {}, {}, {name + ": a summary of the replicate rows; not imported twice"}};
  }
  if (table.has_column("energy_quant_j1k")) {
    return ImportBatch{path.string(), {}, {}, {name + ": the site's fit input repeats rows of the session files; "
                                                      "used only to reproduce the published curves"}};
  }
  if (table.has_column("n_star_b")) {
    return ImportBatch{path.string(), {}, {}, {name + ": curve parameters, not measurements"}};
  }
  return unexpected(ErrorCode::invalid_input, path.string() + ": unrecognised CSV columns (not a published EcoCompute file)");
}

std::vector<fs::path> published_csv_files(const fs::path& dir) {
  std::vector<fs::path> files;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    if (entry.path().extension() == ".csv") files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

Result<ImportBatch> read_published_dir(const fs::path& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return unexpected(ErrorCode::not_found, dir.string() + " is not a folder");
  const std::vector<fs::path> files = published_csv_files(dir);
  if (files.empty()) return unexpected(ErrorCode::not_found, dir.string() + " holds no CSV files");
  ImportBatch all{dir.string(), {}, {}, {}};
  for (const fs::path& file : files) {
    ECO_TRY_ASSIGN(batch, read_published_csv(file));
    all.sessions.insert(all.sessions.end(), batch.sessions.begin(), batch.sessions.end());
    all.rows.insert(all.rows.end(), batch.rows.begin(), batch.rows.end());
    all.notes.insert(all.notes.end(), batch.notes.begin(), batch.notes.end());
  }
  return all;
}

std::string engine_name_of(const report::EnergyReport& r) {
  return r.engine && !r.engine->name.empty() ? r.engine->name : std::string(published_engine);
}

std::string canonical_precision(std::string_view precision) {
  if (auto p = parse_precision(precision)) return std::string(p->name);
  return std::string(precision);
}

bool is_baseline_report(const report::EnergyReport& r) {
  if (r.measurement.baseline_precision) return r.is_baseline();
  return is_baseline_precision(r.workload.precision);
}

Session report_session(const report::EnergyReport& r, std::string_view source) {
  const std::string& gpu = r.system_under_test.gpu;
  const std::string engine_name = engine_name_of(r);
  std::string engine_version = r.engine ? r.engine->version : "";
  if (r.engine && !r.engine->commit.empty()) {
    engine_version += (engine_version.empty() ? "" : " ") + ("(" + r.engine->commit + ")");
  }
  const std::string timestamp = r.timestamp_utc.value_or("");
  const std::string date = timestamp.size() >= 10 ? timestamp.substr(0, 10) : "";
  // The software block hashed with sorted keys, so that the same stack gives the same session.
  const std::string software = r.software.empty() ? "" : Json(r.software).dump();
  const std::string fingerprint = r.environment ? r.environment->fingerprint : "";
  std::string arch = r.system_under_test.gpu_arch;
  if (auto known = parse_architecture(arch)) arch = *known;
  // Sessions on other cards of one model on one day differ only by the card: the label names it.
  std::string card;
  if (r.environment && r.environment->gpu_uuid) card = " " + r.environment->gpu_uuid->substr(0, 12);
  Session session = make_session(gpu + " " + engine_name + (date.empty() ? "" : " " + date) + card, gpu, arch, engine_name,
                                 engine_version, software, fingerprint.empty() ? date : "", std::string(source),
                                 fingerprint);
  session.date = date;
  return session;
}

Result<int> stored_context(const report::Workload& workload) {
  if (!workload.prompt_tokens || *workload.prompt_tokens <= defaults::baseline_context) return 0;
  if (*workload.prompt_tokens > kMaxContext) {
    return unexpected(ErrorCode::invalid_input, fmt::format("workload.prompt_tokens {} is beyond the largest context stored, {}",
                                                            *workload.prompt_tokens, kMaxContext));
  }
  return static_cast<int>(*workload.prompt_tokens);
}

Result<ImportBatch> import_energy_report(const report::EnergyReport& r, std::string_view source_view) {
  const std::string source(source_view);
  auto bad = [&](const std::string& what) { return unexpected(ErrorCode::invalid_input, source + ": " + what); };
  // Stored rows are measurements whose figures agree: a report that contradicts itself is refused here,
  // for `data import` and for uploads alike.
  if (auto contradiction = report::contradiction_error(r, source)) return *contradiction;
  if (auto why = report::why_not_measured(r)) {
    return bad("not a measurement: " + *why + "; only measurements are stored");
  }
  auto arch = parse_architecture(r.system_under_test.gpu_arch);
  if (!arch) {
    if (r.system_under_test.gpu_arch == "none") {
      return bad("a CPU run (system_under_test.gpu_arch \"none\"): only GPU measurements are stored (the curves are "
                 "per GPU architecture); `ecocompute compare` compares CPU reports");
    }
    return bad("system_under_test.gpu_arch: " + arch.error().message());
  }
  // The curves are per GPU: a model split over several GPUs (its energy their sum, plus the traffic
  // between them) is another quantity, which would bend a one-GPU curve if pooled with it.
  if (r.system_under_test.accelerator_count > 1) {
    return bad(fmt::format("a run split over {} GPUs (system_under_test.accelerator_count): the dataset's curves are "
                           "per GPU; `ecocompute compare` compares split reports",
                           r.system_under_test.accelerator_count));
  }
  const std::optional<double> params_b = r.workload.params_b;
  if (!params_b) return bad("workload.params_b is missing");
  if (*params_b <= 0) return bad("workload.params_b must be > 0, got " + std::to_string(*params_b));
  if (r.workload.precision.empty()) return bad("workload.precision is missing");
  const std::optional<double> energy = r.results.energy_per_token_mj;
  const std::optional<double> fp16 = r.results.fp16_energy_per_token_mj;
  if (!energy || *energy <= 0) return bad("results.energy_per_token_mj is missing or not > 0");
  if (!fp16 || *fp16 <= 0) return bad("results.fp16_energy_per_token_mj is missing or not > 0");

  Session session = report_session(r, source);
  DataRow row;
  row.session_id = session.id;
  row.gpu = session.gpu;
  row.gpu_arch = *arch;
  row.engine = session.engine;
  row.model = r.workload.model_name;
  row.params_b = *params_b;
  row.precision = canonical_precision(r.workload.precision);
  // A Server report's load is C concurrent requests the server batches itself: its concurrency is
  // the batch dimension of the store (the report keeps batch_size 1, one prompt per request).
  row.batch_size = r.workload.load_level();
  std::string level_key = r.workload.concurrency ? "|c" + std::to_string(row.batch_size)
                          : row.batch_size > 1   ? "|b" + std::to_string(row.batch_size)
                                                 : "";
  // A run decoding after a prompt longer than the baseline context is stored with its context. The fit
  // leaves such rows out (its rows are short-context decode, beyond which it models the KV cache's
  // share); an answer at that context lists them beside the model's figure.
  auto context = stored_context(r.workload);
  if (!context) return bad(context.error().message());
  row.context_tokens = *context;
  if (row.context_tokens > 0) level_key += "|ctx" + std::to_string(row.context_tokens);
  // One run writes one report per precision and batch (or concurrency), all with its timestamp.
  row.row_key = row.model + "|" + row.precision + level_key + "|" + r.timestamp_utc.value_or(source);
  row.basis = Basis::measured;
  row.weights = r.workload.weights ? std::string(report::to_string(*r.workload.weights)) : "";
  row.energy_per_token_mj = *energy;
  row.fp16_energy_per_token_mj = *fp16;
  row.stored_delta_pct = r.results.vs_fp16_energy_pct;
  row.avg_power_w = r.results.avg_power_watts;
  row.throughput_tokens_per_s = r.results.throughput_tokens_per_s;
  if (r.statistics) {
    if (r.statistics->n_trials < 1) return bad("statistics.n_trials must be ≥ 1");
    row.n_trials = static_cast<int>(r.statistics->n_trials);
    const report::PairedDelta& delta = r.statistics->vs_fp16_energy_pct;
    row.delta_sd_pct = delta.sd;
    row.delta_ci95_low_pct = delta.ci95_low;
    row.delta_ci95_high_pct = delta.ci95_high;
    if (delta.n_pairs >= 1) row.n_trials = static_cast<int>(delta.n_pairs);
  }
  if (r.quality && row.weights != "synthetic") {  // quality of random weights is meaningless
    row.perplexity = r.quality->value;
    row.fp16_perplexity = r.quality->fp16_value;
    row.kld = r.quality->kld;
  }
  row.note = r.results.note.value_or("");

  ImportBatch batch{source, {std::move(session)}, {}, {}};
  if (auto disagreement = report::stated_delta_disagreement(r)) {
    batch.notes.push_back(source + ": " + *disagreement + "; ΔE is taken from the energies");
  }
  if (is_baseline_report(r)) {
    batch.notes.push_back(source + ": a baseline report has no ΔE of its own; session recorded, no row");
  } else {
    batch.rows.push_back(std::move(row));
  }
  return batch;
}

Result<ImportBatch> parse_energy_report(const OrderedJson& document, std::string_view source) {
  auto report = report::energy_report_from_json(document, source);
  if (!report) return report.error();
  return import_energy_report(*report, source);
}

namespace {

// Whether a run.json trial label ("Q4_K_M", "F16/p512", "F16/b4") is a trial of this precision and batch.
bool trial_of(std::string_view label, std::string_view precision, int batch) {
  const std::size_t slash = label.find('/');
  if (label.substr(0, slash) != precision) return false;
  const std::size_t level = label.find("/b");
  if (level == std::string_view::npos) return batch == 1;
  return label.substr(level + 2, label.find('/', level + 2) - level - 2) == std::to_string(batch);
}

// Reports written before their note said so (ecocompute f79bca9 and older): the run summary beside the
// report lists every trial with its reason, the baseline's too, which a candidate's report lacks. An ok
// trial with a "throttled" reason was counted under --accept-throttled.
std::optional<std::string> throttled_trials_in_run(const fs::path& run_json, const report::EnergyReport& r,
                                                   RunSummaries& runs) {
  if (!r.provenance || !r.provenance->run_id) return std::nullopt;
  const report::RunReport* run = runs.at(run_json);
  if (run == nullptr || run->run_id != *r.provenance->run_id) return std::nullopt;
  const std::string baseline = r.measurement.baseline_precision.value_or(run->design.baseline);
  auto count = [&](const std::string& precision, std::string name) {
    report::ThrottledCount out{std::move(name)};
    for (const report::RunTrial& t : run->trials) {
      if (t.status != "ok" || !trial_of(t.condition, precision, r.workload.batch_size)) continue;
      ++out.counted;
      if (t.reason.starts_with("throttled")) ++out.throttled;
    }
    return out;
  };
  std::vector<report::ThrottledCount> counts{count(r.workload.precision, r.workload.precision)};
  if (baseline != r.workload.precision) counts.push_back(count(baseline, baseline + " (baseline)"));
  return report::throttled_trials_note("--accept-throttled, read from " + run_json.filename().string(), counts);
}

}  // namespace

const report::RunReport* RunSummaries::at(const fs::path& path) {
  auto found = parsed_.find(path);
  if (found == parsed_.end()) {
    std::optional<report::RunReport> run;
    std::error_code ec;
    if (fs::exists(path, ec)) {
      if (auto json = read_json_file(path)) {
        if (auto parsed = report::run_report_from_json(*json, path.string())) run = std::move(*parsed);
      }
    }
    found = parsed_.emplace(path, std::move(run)).first;
  }
  return found->second ? &*found->second : nullptr;
}

Result<ImportBatch> read_report_batch(const fs::path& path) {
  RunSummaries runs;
  return read_report_batch(path, runs);
}

Result<ImportBatch> read_report_batch(const fs::path& path, RunSummaries& runs) {
  auto report = report::read_energy_report(path);
  if (!report) return report.error();
  auto batch = import_energy_report(*report, path.string());
  if (!batch) return batch;
  for (DataRow& row : batch->rows) {
    if (row.note.find(report::kThrottledTrialsCounted) != std::string::npos) continue;  // the report says so itself
    if (auto counted = throttled_trials_in_run(path.parent_path() / "run.json", *report, runs)) {
      row.note += (row.note.empty() ? "" : " ") + *counted;
    }
  }
  return batch;
}

Result<ImportBatch> read_import_source(const fs::path& path, RunSummaries& runs) {
  std::error_code ec;
  if (fs::is_directory(path, ec)) return read_published_dir(path);
  if (!fs::exists(path, ec)) return unexpected(ErrorCode::not_found, path.string() + " does not exist");
  if (path.extension() == ".csv") return read_published_csv(path);
  return read_report_batch(path, runs);
}

Result<ImportBatch> read_import_source(const fs::path& path) {
  RunSummaries runs;
  return read_import_source(path, runs);
}

}  // namespace ecocompute::data
