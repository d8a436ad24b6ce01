// DatasetStore: the repository over SqlDatabase. Every SQL statement of the store is in this file,
// written in the subset that SQLite and PostgreSQL share (CAST($n AS TEXT) IS NULL for optional
// filters, ON CONFLICT DO NOTHING for re-imports), with parameters only — never spliced values.
#include "data/dataset_store.hpp"
#include "data/shipped_sessions.hpp"

#include <cmath>
#include <cstdlib>
#include <set>

#include "data/dataset_import.hpp"
#include "data/gpu_spec.hpp"
#include "util/file_io.hpp"

namespace ecocompute::data {
namespace {

constexpr const char* kSchema[] = {
    "CREATE TABLE IF NOT EXISTS sessions ("
    " id TEXT PRIMARY KEY, fingerprint TEXT NOT NULL, label TEXT NOT NULL, gpu TEXT NOT NULL,"
    " gpu_arch TEXT NOT NULL, engine TEXT NOT NULL, engine_version TEXT NOT NULL, software TEXT NOT NULL,"
    " date TEXT NOT NULL, provenance TEXT NOT NULL)",
    "CREATE TABLE IF NOT EXISTS measurements ("
    " session_id TEXT NOT NULL REFERENCES sessions(id), row_key TEXT NOT NULL,"
    " gpu TEXT NOT NULL, gpu_arch TEXT NOT NULL, engine TEXT NOT NULL, model TEXT NOT NULL,"
    " params_b DOUBLE PRECISION NOT NULL, precision TEXT NOT NULL, basis TEXT NOT NULL, weights TEXT NOT NULL,"
    " energy_per_token_mj DOUBLE PRECISION NOT NULL, fp16_energy_per_token_mj DOUBLE PRECISION NOT NULL,"
    " n_trials BIGINT NOT NULL, delta_sd_pct DOUBLE PRECISION, delta_ci95_low_pct DOUBLE PRECISION,"
    " delta_ci95_high_pct DOUBLE PRECISION, stored_delta_pct DOUBLE PRECISION, avg_power_w DOUBLE PRECISION,"
    " throughput_tokens_per_s DOUBLE PRECISION, perplexity DOUBLE PRECISION, fp16_perplexity DOUBLE PRECISION,"
    " kld DOUBLE PRECISION, inconsistent BIGINT NOT NULL, note TEXT NOT NULL,"
    " batch_size BIGINT NOT NULL DEFAULT 1,"
    " PRIMARY KEY (session_id, row_key))",
    // Published quality evidence (llama.cpp's perplexity tables): each figure with its printed uncertainty.
    "CREATE TABLE IF NOT EXISTS published_quality ("
    " source_file TEXT NOT NULL, source_commit TEXT NOT NULL, table_title TEXT NOT NULL,"
    " table_revision TEXT NOT NULL, source_line BIGINT NOT NULL, model TEXT NOT NULL,"
    " params_b DOUBLE PRECISION NOT NULL, arch_family TEXT NOT NULL, precision TEXT NOT NULL,"
    " precision_known BIGINT NOT NULL, source_precision TEXT NOT NULL, baseline TEXT NOT NULL, imatrix TEXT NOT NULL,"
    " corpus TEXT NOT NULL, backend TEXT NOT NULL, file_size_gib DOUBLE PRECISION,"
    " ppl DOUBLE PRECISION, ppl_unc DOUBLE PRECISION, delta_ppl DOUBLE PRECISION, delta_ppl_unc DOUBLE PRECISION,"
    " delta_ppl_pct DOUBLE PRECISION, delta_ppl_pct_unc DOUBLE PRECISION, kld DOUBLE PRECISION,"
    " kld_unc DOUBLE PRECISION, mean_dp_pct DOUBLE PRECISION, mean_dp_pct_unc DOUBLE PRECISION,"
    " rms_dp_pct DOUBLE PRECISION, rms_dp_pct_unc DOUBLE PRECISION, same_top_p_pct DOUBLE PRECISION,"
    " same_top_p_pct_unc DOUBLE PRECISION,"
    " PRIMARY KEY (source_file, source_commit, table_title, model, precision, imatrix))",
};

// The columns of published_quality in the order both statements below use.
#define ECOCOMPUTE_QUALITY_COLUMNS                                                                          \
  "source_file, source_commit, table_title, table_revision, source_line, model, params_b, arch_family,"     \
  " precision, precision_known, source_precision, baseline, imatrix, corpus, backend, file_size_gib, ppl,"  \
  " ppl_unc, delta_ppl, delta_ppl_unc, delta_ppl_pct, delta_ppl_pct_unc, kld, kld_unc, mean_dp_pct,"       \
  " mean_dp_pct_unc, rms_dp_pct, rms_dp_pct_unc, same_top_p_pct, same_top_p_pct_unc"

constexpr const char* kInsertQuality =
    "INSERT INTO published_quality (" ECOCOMPUTE_QUALITY_COLUMNS ") VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9,"
    " $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, $23, $24, $25, $26, $27, $28, $29, $30)"
    " ON CONFLICT (source_file, source_commit, table_title, model, precision, imatrix) DO NOTHING";

constexpr const char* kSelectQuality =
    "SELECT " ECOCOMPUTE_QUALITY_COLUMNS " FROM published_quality"
    " WHERE (CAST($1 AS TEXT) IS NULL OR UPPER(precision) = UPPER($1))"
    " ORDER BY source_file, source_commit, source_line, model, precision, imatrix";
#undef ECOCOMPUTE_QUALITY_COLUMNS

// The figures of a quality row, in the column order above (value, then uncertainty).
constexpr std::optional<QualityFigure> PublishedQualityRow::* kQualityFigures[] = {
    &PublishedQualityRow::ppl,         &PublishedQualityRow::delta_ppl,  &PublishedQualityRow::delta_ppl_pct,
    &PublishedQualityRow::kld,         &PublishedQualityRow::mean_dp_pct, &PublishedQualityRow::rms_dp_pct,
    &PublishedQualityRow::same_top_p_pct};

// Stores made before rows carried their batch size: every row they hold was measured at batch 1.
constexpr const char* kHasBatchSize = "SELECT batch_size FROM measurements WHERE 1 = 0";
constexpr const char* kAddBatchSize = "ALTER TABLE measurements ADD COLUMN batch_size BIGINT NOT NULL DEFAULT 1";

constexpr const char* kInsertSession =
    "INSERT INTO sessions (id, fingerprint, label, gpu, gpu_arch, engine, engine_version, software, date,"
    " provenance) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) ON CONFLICT (id) DO NOTHING";

constexpr const char* kInsertRow =
    "INSERT INTO measurements (session_id, row_key, gpu, gpu_arch, engine, model, params_b, precision,"
    " basis, weights, energy_per_token_mj, fp16_energy_per_token_mj, n_trials, delta_sd_pct,"
    " delta_ci95_low_pct, delta_ci95_high_pct, stored_delta_pct, avg_power_w, throughput_tokens_per_s,"
    " perplexity, fp16_perplexity, kld, inconsistent, note, batch_size) VALUES ($1, $2, $3, $4, $5, $6, $7,"
    " $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, $23, $24, $25)"
    " ON CONFLICT (session_id, row_key) DO NOTHING";

constexpr const char* kSelectSessions =
    "SELECT id, fingerprint, label, gpu, gpu_arch, engine, engine_version, software, date, provenance"
    " FROM sessions ORDER BY date, label";

constexpr const char* kFindSession =
    "SELECT id, fingerprint, label, gpu, gpu_arch, engine, engine_version, software, date, provenance"
    " FROM sessions WHERE id = $1 OR label = $1 OR id LIKE $2 ORDER BY id";

constexpr const char* kSelectRows =
    "SELECT session_id, row_key, gpu, gpu_arch, engine, model, params_b, precision, basis, weights,"
    " energy_per_token_mj, fp16_energy_per_token_mj, n_trials, delta_sd_pct, delta_ci95_low_pct,"
    " delta_ci95_high_pct, stored_delta_pct, avg_power_w, throughput_tokens_per_s, perplexity,"
    " fp16_perplexity, kld, note, batch_size FROM measurements"
    " WHERE (CAST($1 AS TEXT) IS NULL OR gpu_arch = $1) AND (CAST($2 AS TEXT) IS NULL OR engine = $2)"
    " AND (CAST($3 AS TEXT) IS NULL OR precision = $3) AND (CAST($4 AS TEXT) IS NULL OR session_id = $4)"
    " AND ($5 = 0 OR basis = 'measured')"
    " ORDER BY session_id, params_b, precision, row_key";

SqlValue optional_value(const std::optional<double>& v) {
  if (v) return *v;
  return std::monostate{};
}
SqlValue optional_value(const std::optional<std::string>& v) {
  if (v) return *v;
  return std::monostate{};
}

Session session_from(const SqlRow& r) {
  return Session{sql_text(r[0]).value_or(""), sql_text(r[1]).value_or(""), sql_text(r[2]).value_or(""),
                 sql_text(r[3]).value_or(""), sql_text(r[4]).value_or(""), sql_text(r[5]).value_or(""),
                 sql_text(r[6]).value_or(""), sql_text(r[7]).value_or(""), sql_text(r[8]).value_or(""),
                 sql_text(r[9]).value_or("")};
}

DataRow row_from(const SqlRow& r) {
  DataRow row;
  row.session_id = sql_text(r[0]).value_or("");
  row.row_key = sql_text(r[1]).value_or("");
  row.gpu = sql_text(r[2]).value_or("");
  row.gpu_arch = sql_text(r[3]).value_or("");
  row.engine = sql_text(r[4]).value_or("");
  row.model = sql_text(r[5]).value_or("");
  row.params_b = sql_real(r[6]).value_or(0);
  row.precision = sql_text(r[7]).value_or("");
  row.basis = parse_basis(sql_text(r[8]).value_or("")).value_or(Basis::unavailable);
  row.weights = sql_text(r[9]).value_or("");
  row.energy_per_token_mj = sql_real(r[10]).value_or(0);
  row.fp16_energy_per_token_mj = sql_real(r[11]).value_or(0);
  row.n_trials = static_cast<int>(sql_integer(r[12]).value_or(1));
  row.delta_sd_pct = sql_real(r[13]);
  row.delta_ci95_low_pct = sql_real(r[14]);
  row.delta_ci95_high_pct = sql_real(r[15]);
  row.stored_delta_pct = sql_real(r[16]);
  row.avg_power_w = sql_real(r[17]);
  row.throughput_tokens_per_s = sql_real(r[18]);
  row.perplexity = sql_real(r[19]);
  row.fp16_perplexity = sql_real(r[20]);
  row.kld = sql_real(r[21]);
  row.note = sql_text(r[22]).value_or("");
  row.batch_size = static_cast<int>(sql_integer(r[23]).value_or(1));
  return row;
}

bool finite_positive(double v) { return std::isfinite(v) && v > 0; }
bool finite_or_absent(const std::optional<double>& v) { return !v || std::isfinite(*v); }

std::vector<SqlValue> quality_values(const PublishedQualityRow& r) {
  std::vector<SqlValue> v{r.source_file, r.source_commit, r.table, r.table_revision,
                          static_cast<std::int64_t>(r.line), r.model, r.params_b, r.arch_family, r.precision,
                          static_cast<std::int64_t>(r.precision_known ? 1 : 0), r.source_precision, r.baseline,
                          r.imatrix, r.corpus, r.backend, optional_value(r.file_size_gib)};
  for (auto member : kQualityFigures) {
    const auto& figure = r.*member;
    v.push_back(figure ? SqlValue(figure->value) : SqlValue(std::monostate{}));
    v.push_back(figure ? optional_value(figure->uncertainty) : SqlValue(std::monostate{}));
  }
  return v;
}

PublishedQualityRow quality_row_from(const SqlRow& r) {
  PublishedQualityRow row;
  std::string* texts[] = {&row.source_file, &row.source_commit, &row.table, &row.table_revision, nullptr, &row.model,
                          nullptr, &row.arch_family, &row.precision, nullptr, &row.source_precision, &row.baseline,
                          &row.imatrix, &row.corpus, &row.backend};
  for (std::size_t i = 0; i < std::size(texts); ++i) {
    if (texts[i] != nullptr) *texts[i] = sql_text(r[i]).value_or("");
  }
  row.line = static_cast<int>(sql_integer(r[4]).value_or(0));
  row.params_b = sql_real(r[6]).value_or(0);
  row.precision_known = sql_integer(r[9]).value_or(1) != 0;
  row.file_size_gib = sql_real(r[15]);
  std::size_t column = 16;
  for (auto member : kQualityFigures) {
    if (auto value = sql_real(r[column])) row.*member = QualityFigure{*value, sql_real(r[column + 1])};
    column += 2;
  }
  return row;
}

// A quality row must say where it came from and what it is before it is stored.
Result<void> validate_quality(const PublishedQualityRow& r, const std::string& source) {
  const bool named = !r.source_file.empty() && !r.source_commit.empty() && !r.table.empty() && !r.model.empty() &&
                     !r.precision.empty() && !r.imatrix.empty();
  if (named && finite_positive(r.params_b)) return {};
  return unexpected(ErrorCode::invalid_input, source + ": line " + std::to_string(r.line) +
                                                  ": a quality row without its source, model, size or type");
}

// Checks one row before anything is written; the error names the source and the row.
Result<void> validate(const DataRow& row, const std::set<std::string>& session_ids, const std::string& source) {
  const std::string where = source + ": row '" + row.row_key + "' (" + row.model + " " + row.precision + ")";
  auto bad = [&](const std::string& what) { return unexpected(ErrorCode::invalid_input, where + ": " + what); };
  if (!session_ids.contains(row.session_id)) return bad("unknown session '" + row.session_id + "'");
  if (row.row_key.empty()) return bad("empty row key");
  if (!finite_positive(row.params_b)) return bad("params_b must be a finite number > 0");
  if (!finite_positive(row.energy_per_token_mj)) return bad("energy_per_token_mj must be a finite number > 0");
  if (!finite_positive(row.fp16_energy_per_token_mj)) {
    return bad("fp16_energy_per_token_mj must be a finite number > 0");
  }
  if (row.n_trials < 1) return bad("n_trials must be ≥ 1");
  if (row.batch_size < 1) return bad("batch_size must be ≥ 1");
  for (const auto* v : {&row.delta_sd_pct, &row.delta_ci95_low_pct, &row.delta_ci95_high_pct,
                        &row.stored_delta_pct, &row.avg_power_w, &row.throughput_tokens_per_s,
                        &row.perplexity, &row.fp16_perplexity, &row.kld}) {
    if (!finite_or_absent(*v)) return bad("a numeric field is NaN or infinite");
  }
  if (auto arch = parse_architecture(row.gpu_arch); !arch) return bad(arch.error().message());
  return {};
}

}  // namespace

void to_json(Json& j, const ImportSummary& s) {
  j = Json{{"source", s.source},
           {"sessions_added", s.sessions_added},
           {"rows_added", s.rows_added},
           {"rows_already_present", s.rows_already_present},
           {"rows_flagged", s.rows_flagged},
           {"notes", s.notes}};
}

Result<DatasetStore> DatasetStore::create(std::unique_ptr<SqlDatabase> db) {
  for (const char* statement : kSchema) {
    if (auto r = db->execute(statement, {}); !r) return r.error();
  }
  if (!db->query(kHasBatchSize, {})) {
    if (auto r = db->execute(kAddBatchSize, {}); !r) return r.error();
  }
  return DatasetStore(std::move(db));
}

Result<DatasetStore> DatasetStore::open(const std::string& location) {
  auto db = open_database(location);
  if (!db) return db.error();
  return create(std::move(*db));
}

Result<DatasetStore> DatasetStore::open_in_memory() { return open(":memory:"); }

Result<ImportSummary> DatasetStore::import(const ImportBatch& batch) {
  std::set<std::string> session_ids;
  for (const Session& s : batch.sessions) {
    if (s.id.empty()) return unexpected(ErrorCode::invalid_input, batch.source + ": a session has no id");
    if (auto arch = parse_architecture(s.gpu_arch); !arch) {
      return unexpected(ErrorCode::invalid_input, batch.source + ": session '" + s.label + "': " +
                                                      arch.error().message());
    }
    session_ids.insert(s.id);
  }
  for (const DataRow& row : batch.rows) {
    if (auto ok = validate(row, session_ids, batch.source); !ok) return ok.error();
  }

  // An import is one transaction: any failure rolls the whole source back.
  auto written = in_transaction(*db_, [&]() -> Result<ImportSummary> {
    ImportSummary summary;
    summary.source = batch.source;
    summary.notes = batch.notes;
    for (const Session& s : batch.sessions) {
      auto n = db_->execute(kInsertSession, {s.id, s.fingerprint, s.label, s.gpu, s.gpu_arch, s.engine,
                                             s.engine_version, s.software, s.date, s.provenance});
      if (!n) return n.error();
      summary.sessions_added += static_cast<int>(*n);
    }
    for (const DataRow& r : batch.rows) {
      auto n = db_->execute(
          kInsertRow,
          {r.session_id, r.row_key, r.gpu, r.gpu_arch, r.engine, r.model, r.params_b, r.precision,
           std::string(to_string(r.basis)), r.weights, r.energy_per_token_mj, r.fp16_energy_per_token_mj,
           static_cast<std::int64_t>(r.n_trials), optional_value(r.delta_sd_pct),
           optional_value(r.delta_ci95_low_pct), optional_value(r.delta_ci95_high_pct),
           optional_value(r.stored_delta_pct), optional_value(r.avg_power_w),
           optional_value(r.throughput_tokens_per_s), optional_value(r.perplexity),
           optional_value(r.fp16_perplexity), optional_value(r.kld),
           static_cast<std::int64_t>(r.is_inconsistent() ? 1 : 0), r.note, static_cast<std::int64_t>(r.batch_size)});
      if (!n) return n.error();
      if (*n == 0) {
        ++summary.rows_already_present;
        continue;
      }
      ++summary.rows_added;
      if (r.is_inconsistent()) {
        ++summary.rows_flagged;
        summary.notes.push_back("flagged " + r.row_key + ": energy/token and power/throughput differ by " +
                                std::to_string(*r.consistency_gap_pct()) + " %");
      }
    }
    return summary;
  });
  if (!written) {
    return Error{written.error().code(), "import of " + batch.source + " rolled back", written.error()};
  }
  return written;
}

Result<ImportSummary> DatasetStore::import_quality(const QualityBatch& batch) {
  for (const PublishedQualityRow& row : batch.rows) {
    if (auto ok = validate_quality(row, batch.source); !ok) return ok.error();
  }
  auto written = in_transaction(*db_, [&]() -> Result<ImportSummary> {
    ImportSummary summary{batch.source, 0, 0, 0, 0, batch.notes};
    for (const PublishedQualityRow& row : batch.rows) {
      auto n = db_->execute(kInsertQuality, quality_values(row));
      if (!n) return n.error();
      ++(*n == 0 ? summary.rows_already_present : summary.rows_added);
    }
    return summary;
  });
  if (!written) {
    return Error{written.error().code(), "import of " + batch.source + " rolled back", written.error()};
  }
  return written;
}

Result<std::vector<PublishedQualityRow>> DatasetStore::quality_rows(const std::optional<std::string>& precision) const {
  auto rows = db_->query(kSelectQuality, {optional_value(precision)});
  if (!rows) return rows.error();
  std::vector<PublishedQualityRow> out;
  for (const SqlRow& r : *rows) out.push_back(quality_row_from(r));
  return out;
}

Result<std::vector<Session>> DatasetStore::sessions() const {
  auto rows = db_->query(kSelectSessions, {});
  if (!rows) return rows.error();
  std::vector<Session> out;
  for (const SqlRow& r : *rows) out.push_back(session_from(r));
  return out;
}

Result<Session> DatasetStore::find_session(const std::string& id_or_label) const {
  auto rows = db_->query(kFindSession, {id_or_label, id_or_label + "%"});
  if (!rows) return rows.error();
  if (rows->empty()) return unexpected(ErrorCode::not_found, "no session '" + id_or_label + "' in the store");
  if (rows->size() > 1) {
    for (const SqlRow& r : *rows) {  // an exact id or label beats a prefix match
      Session s = session_from(r);
      if (s.id == id_or_label || s.label == id_or_label) return s;
    }
    return unexpected(ErrorCode::invalid_argument, "session prefix '" + id_or_label + "' is ambiguous");
  }
  return session_from(rows->front());
}

Result<std::vector<DataRow>> DatasetStore::rows(const RowQuery& q) const {
  auto rows = db_->query(kSelectRows, {optional_value(q.gpu_arch), optional_value(q.engine),
                                       optional_value(q.precision), optional_value(q.session_id),
                                       static_cast<std::int64_t>(q.measured_only ? 1 : 0)});
  if (!rows) return rows.error();
  std::vector<DataRow> out;
  for (const SqlRow& r : *rows) out.push_back(row_from(r));
  return out;
}

std::filesystem::path default_store_path() {
  if (const char* env = std::getenv("ECOCOMPUTE_STORE"); env != nullptr && *env != '\0') return env;
  return data_dir() / "ecocompute.sqlite";
}

Result<DatasetStore> open_published_store() {
  auto store = DatasetStore::open_in_memory();
  if (!store) return store.error();
  auto batch = read_published_dir(data_dir() / "published");
  if (!batch) return batch.error();
  if (auto summary = store->import(*batch); !summary) return summary.error();
  auto ours = read_shipped_sessions(data_dir() / "sessions");
  if (!ours) return ours.error();
  for (const ImportBatch& session_report : *ours) {
    if (auto summary = store->import(session_report); !summary) return summary.error();
  }
  // Published quality is read from the fetched llama.cpp source where it is present, so the answer cites
  // the file and commit it was read at; without the source there is simply no published quality row.
  std::error_code ec;
  const std::filesystem::path llama_source = default_llama_cpp_source();
  if (std::filesystem::exists(llama_source / kPerplexityReadme, ec)) {
    auto quality = read_llama_cpp_quality(llama_source);
    if (!quality) return quality.error();
    if (auto summary = store->import_quality(*quality); !summary) return summary.error();
  }
  return store;
}

Result<DatasetStore> open_store_or_published(const std::filesystem::path& path, bool* used_published) {
  std::error_code ec;
  const bool exists = is_postgres_url(path.string()) || std::filesystem::exists(path, ec);
  if (used_published != nullptr) *used_published = !exists;
  if (exists) return DatasetStore::open(path.string());
  return open_published_store();
}

}  // namespace ecocompute::data
