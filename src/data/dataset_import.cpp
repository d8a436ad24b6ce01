// Readers for the published reference CSVs and for energy.json reports. Each file is recognised by
// its columns; every value is checked before a batch is returned, so a malformed file yields an error
// naming the file and line and no partial batch.
#include "data/dataset_import.hpp"

#include <algorithm>
#include <cmath>

#include "data/csv_table.hpp"
#include "data/gpu_spec.hpp"
#include "data/precision.hpp"
#include "util/file_io.hpp"

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
      batch.sessions.push_back(make_session("rtx4090_2026-07-24", gpu, arch, kDefaultPublishedEngine, "",
                                            software_of(t, i), "2026-07-24", std::string(kZenodoMain) + " (July session)"));
    }
    for (auto [precision, column, stored] : {std::tuple{"NF4", "nf4_mj_per_token", "same_run_delta_nf4_pct"},
                                             std::tuple{"INT8", "int8_mj_per_token", "same_run_delta_int8_pct"}}) {
      ECO_TRY_ASSIGN(energy, energy_of(t, i, column));
      ECO_TRY_ASSIGN(stored_delta, t.optional_number(i, stored));
      DataRow row;
      row.session_id = batch.sessions.front().id;
      row.row_key = model + "|" + precision;
      row.gpu = gpu;
      row.gpu_arch = arch;
      row.engine = kDefaultPublishedEngine;
      row.model = model;
      row.params_b = size;
      row.precision = precision;
      row.weights = "real";
      row.energy_per_token_mj = energy;
      row.fp16_energy_per_token_mj = fp16;
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
      batch.sessions.push_back(make_session(label, gpu, arch, kDefaultPublishedEngine, "", software_of(t, i), f.date,
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
    DataRow row;
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
    } else {
      row.row_key = model + "|" + precision;
    }
    row.session_id = session->id;
    row.gpu = gpu;
    row.gpu_arch = arch;
    row.engine = kDefaultPublishedEngine;
    row.model = model;
    row.params_b = size;
    row.precision = precision;
    row.weights = "real";
    row.energy_per_token_mj = energy;  // J per 1000 tokens = mJ per token
    row.fp16_energy_per_token_mj = fp16;
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

Result<std::optional<double>> optional_json_number(const Json& parent, const char* key, const std::string& where) {
  if (!parent.is_object() || !parent.contains(key) || parent.at(key).is_null()) return std::optional<double>{};
  const Json& v = parent.at(key);
  if (!v.is_number()) return unexpected(ErrorCode::invalid_input, where + "." + key + " is not a number");
  const double d = v.get<double>();
  if (!std::isfinite(d)) return unexpected(ErrorCode::invalid_input, where + "." + key + " is not finite");
  return std::optional<double>{d};
}

std::string json_text(const Json& parent, const char* key) {
  if (!parent.is_object() || !parent.contains(key) || !parent.at(key).is_string()) return "";
  return parent.at(key).get<std::string>();
}

const Json& member(const Json& parent, const char* key) {
  static const Json empty = Json::object();
  if (!parent.is_object() || !parent.contains(key) || !parent.at(key).is_object()) return empty;
  return parent.at(key);
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

Result<ImportBatch> read_published_dir(const fs::path& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return unexpected(ErrorCode::not_found, dir.string() + " is not a folder");
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    if (entry.path().extension() == ".csv") files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
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

Result<ImportBatch> parse_energy_report(const Json& report, std::string_view source_view) {
  const std::string source(source_view);
  auto bad = [&](const std::string& what) { return unexpected(ErrorCode::invalid_input, source + ": " + what); };
  if (!report.is_object()) return bad("not a JSON object");
  const std::string schema = json_text(report, "schema_version");
  if (!schema.starts_with("ecocompute-energy/1.")) {
    return bad("schema_version '" + schema + "' is not ecocompute-energy/1.x");
  }
  const Json& sut = member(report, "system_under_test");
  const Json& workload = member(report, "workload");
  const Json& results = member(report, "results");
  const Json& engine = member(report, "engine");
  const Json& environment = member(report, "environment");
  const Json& quality = member(report, "quality");
  const Json& statistics = member(report, "statistics");

  const std::string gpu = json_text(sut, "gpu");
  auto arch = parse_architecture(json_text(sut, "gpu_arch"));
  if (!arch) return bad("system_under_test.gpu_arch: " + arch.error().message());
  ECO_TRY_ASSIGN(params_b, optional_json_number(workload, "params_b", source + ": workload"));
  if (!params_b) return bad("workload.params_b is missing");
  if (*params_b <= 0) return bad("workload.params_b must be > 0, got " + std::to_string(*params_b));
  const std::string precision = json_text(workload, "precision");
  if (precision.empty()) return bad("workload.precision is missing");
  auto basis = parse_basis(json_text(results, "basis"));
  if (!basis) return bad("results.basis: " + basis.error().message());
  ECO_TRY_ASSIGN(energy, optional_json_number(results, "energy_per_token_mj", source + ": results"));
  ECO_TRY_ASSIGN(fp16, optional_json_number(results, "fp16_energy_per_token_mj", source + ": results"));
  if (!energy || *energy <= 0) return bad("results.energy_per_token_mj is missing or not > 0");
  if (!fp16 || *fp16 <= 0) return bad("results.fp16_energy_per_token_mj is missing or not > 0");

  std::string engine_name = json_text(engine, "name");
  if (engine_name.empty()) engine_name = kDefaultPublishedEngine;  // 1.1 reports: the published stack
  std::string engine_version = json_text(engine, "version");
  const std::string commit = json_text(engine, "commit");
  if (!commit.empty()) engine_version += (engine_version.empty() ? "" : " ") + ("(" + commit + ")");
  const std::string timestamp = json_text(report, "timestamp_utc");
  const std::string date = timestamp.size() >= 10 ? timestamp.substr(0, 10) : "";
  const Json& software = member(report, "software");
  const std::string fingerprint = json_text(environment, "fingerprint");
  Session session = make_session(gpu + " " + engine_name + (date.empty() ? "" : " " + date), gpu, *arch, engine_name,
                                 engine_version, software.empty() ? "" : software.dump(), fingerprint.empty() ? date : "",
                                 source, fingerprint);
  session.date = date;

  DataRow row;
  row.session_id = session.id;
  row.gpu = gpu;
  row.gpu_arch = *arch;
  row.engine = engine_name;
  row.model = json_text(workload, "model_name");
  row.params_b = *params_b;
  row.precision = precision;
  if (auto p = parse_precision(precision)) row.precision = p->name;
  row.row_key = row.model + "|" + row.precision + "|" + (timestamp.empty() ? source : timestamp);
  row.basis = *basis;
  row.weights = json_text(workload, "weights");
  row.energy_per_token_mj = *energy;
  row.fp16_energy_per_token_mj = *fp16;
  ECO_TRY_ASSIGN(stored, optional_json_number(results, "vs_fp16_energy_pct", source + ": results"));
  ECO_TRY_ASSIGN(power, optional_json_number(results, "avg_power_watts", source + ": results"));
  ECO_TRY_ASSIGN(throughput, optional_json_number(results, "throughput_tokens_per_s", source + ": results"));
  row.stored_delta_pct = stored;
  row.avg_power_w = power;
  row.throughput_tokens_per_s = throughput;
  ECO_TRY_ASSIGN(n_trials, optional_json_number(statistics, "n_trials", source + ": statistics"));
  if (n_trials) {
    if (*n_trials < 1) return bad("statistics.n_trials must be ≥ 1");
    row.n_trials = static_cast<int>(*n_trials);
  }
  const Json& delta_stats = member(statistics, "vs_fp16_energy_pct");
  ECO_TRY_ASSIGN(sd, optional_json_number(delta_stats, "sd", source + ": statistics.vs_fp16_energy_pct"));
  ECO_TRY_ASSIGN(lo, optional_json_number(delta_stats, "ci95_low", source + ": statistics.vs_fp16_energy_pct"));
  ECO_TRY_ASSIGN(hi, optional_json_number(delta_stats, "ci95_high", source + ": statistics.vs_fp16_energy_pct"));
  ECO_TRY_ASSIGN(n_pairs, optional_json_number(delta_stats, "n_pairs", source + ": statistics.vs_fp16_energy_pct"));
  row.delta_sd_pct = sd;
  row.delta_ci95_low_pct = lo;
  row.delta_ci95_high_pct = hi;
  if (n_pairs && *n_pairs >= 1) row.n_trials = static_cast<int>(*n_pairs);
  ECO_TRY_ASSIGN(ppl, optional_json_number(quality, "value", source + ": quality"));
  ECO_TRY_ASSIGN(fp16_ppl, optional_json_number(quality, "fp16_value", source + ": quality"));
  ECO_TRY_ASSIGN(kld, optional_json_number(quality, "kld", source + ": quality"));
  if (row.weights != "synthetic") {  // quality of random weights is meaningless
    row.perplexity = ppl;
    row.fp16_perplexity = fp16_ppl;
    row.kld = kld;
  }
  row.note = json_text(results, "note");

  ImportBatch batch{source, {std::move(session)}, {}, {}};
  if (auto p = parse_precision(row.precision); p && p->is_baseline) {
    batch.notes.push_back(source + ": an FP16 report has no ΔE of its own; session recorded, no row");
  } else {
    batch.rows.push_back(std::move(row));
  }
  return batch;
}

Result<ImportBatch> read_energy_report(const fs::path& path) {
  ECO_TRY_ASSIGN(json, read_json_file(path));
  return parse_energy_report(Json(json), path.string());
}

Result<ImportBatch> read_import_source(const fs::path& path) {
  std::error_code ec;
  if (fs::is_directory(path, ec)) return read_published_dir(path);
  if (!fs::exists(path, ec)) return unexpected(ErrorCode::not_found, path.string() + " does not exist");
  if (path.extension() == ".csv") return read_published_csv(path);
  return read_energy_report(path);
}

}  // namespace ecocompute::data
