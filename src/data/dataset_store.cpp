// DatasetStore: the repository over SqlDatabase. Every SQL statement of the store is in this file (the
// published quality table's in dataset_store_quality.cpp),
// written in the subset that SQLite and PostgreSQL share (CAST($n AS TEXT) IS NULL for optional
// filters, ON CONFLICT DO NOTHING for re-imports), with parameters only — never spliced values.
#include "data/dataset_store.hpp"
#include "data/shipped_sessions.hpp"

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <set>
#include <string>
#include <string_view>

#include "data/dataset_import.hpp"
#include "data/gpu_spec.hpp"
#include "data/model_size.hpp"
#include "data/published_snapshot.hpp"
#include "util/file_io.hpp"
#include "util/log.hpp"

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
    " batch_size BIGINT NOT NULL DEFAULT 1, context_tokens BIGINT NOT NULL DEFAULT 0,"
    " PRIMARY KEY (session_id, row_key))",
    // Documents computed from the evidence (the decision model's fit), kept with the version of the
    // evidence they describe, so a store is fitted once per change rather than once per question.
    "CREATE TABLE IF NOT EXISTS derived (key TEXT PRIMARY KEY, version TEXT NOT NULL, content TEXT NOT NULL)",
    // Questions read the rows of one engine and format (and architecture).
    "CREATE INDEX IF NOT EXISTS measurements_by_key ON measurements (engine, precision, gpu_arch)",
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

// Stores made before rows carried their batch size: every row they hold was measured at batch 1.
constexpr const char* kHasBatchSize = "SELECT batch_size FROM measurements WHERE 1 = 0";
constexpr const char* kAddBatchSize = "ALTER TABLE measurements ADD COLUMN batch_size BIGINT NOT NULL DEFAULT 1";
// Stores made before rows carried a long context: every row they hold is at the baseline context.
constexpr const char* kHasContext = "SELECT context_tokens FROM measurements WHERE 1 = 0";
constexpr const char* kAddContext = "ALTER TABLE measurements ADD COLUMN context_tokens BIGINT NOT NULL DEFAULT 0";

constexpr const char* kInsertSession =
    "INSERT INTO sessions (id, fingerprint, label, gpu, gpu_arch, engine, engine_version, software, date,"
    " provenance) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) ON CONFLICT (id) DO NOTHING";

constexpr const char* kInsertRow =
    "INSERT INTO measurements (session_id, row_key, gpu, gpu_arch, engine, model, params_b, precision,"
    " basis, weights, energy_per_token_mj, fp16_energy_per_token_mj, n_trials, delta_sd_pct,"
    " delta_ci95_low_pct, delta_ci95_high_pct, stored_delta_pct, avg_power_w, throughput_tokens_per_s,"
    " perplexity, fp16_perplexity, kld, inconsistent, note, batch_size, context_tokens) VALUES ($1, $2, $3, $4,"
    " $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, $23, $24, $25, $26)"
    " ON CONFLICT (session_id, row_key) DO NOTHING";

// The columns session_from() reads; each session query adds its own condition and order.
constexpr std::string_view kSelectSessionColumns =
    "SELECT id, fingerprint, label, gpu, gpu_arch, engine, engine_version, software, date, provenance FROM sessions";

constexpr const char* kSelectRowColumns =
    "SELECT session_id, row_key, gpu, gpu_arch, engine, model, params_b, precision, basis, weights,"
    " energy_per_token_mj, fp16_energy_per_token_mj, n_trials, delta_sd_pct, delta_ci95_low_pct,"
    " delta_ci95_high_pct, stored_delta_pct, avg_power_w, throughput_tokens_per_s, perplexity,"
    " fp16_perplexity, kld, note, batch_size, context_tokens FROM measurements";

constexpr const char* kRowCounts = "SELECT session_id, COUNT(*) FROM measurements GROUP BY session_id";
constexpr const char* kEvidenceVersion =
    "SELECT (SELECT COUNT(*) FROM measurements), (SELECT COUNT(*) FROM sessions)";
constexpr const char* kSelectDerived = "SELECT content FROM derived WHERE key = $1 AND version = $2";
constexpr const char* kDeleteDerived = "DELETE FROM derived WHERE key = $1";
constexpr const char* kInsertDerived = "INSERT INTO derived (key, version, content) VALUES ($1, $2, $3)";

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
  row.context_tokens = static_cast<int>(sql_integer(r[24]).value_or(0));
  return row;
}

bool finite_positive(double v) { return std::isfinite(v) && v > 0; }
bool finite_or_absent(const std::optional<double>& v) { return !v || std::isfinite(*v); }

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
  if (row.context_tokens < 0 || row.context_tokens > kMaxContext) {
    return bad("context_tokens must be from 0 to " + std::to_string(kMaxContext));
  }
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
  if (!db->query(kHasContext, {})) {
    if (auto r = db->execute(kAddContext, {}); !r) return r.error();
  }
  return DatasetStore(std::move(db));
}

Result<DatasetStore> DatasetStore::open(const std::string& location) {
  auto db = open_database(location);
  if (!db) return db.error();
  return create(std::move(*db));
}

Result<DatasetStore> DatasetStore::open_in_memory() { return open(":memory:"); }

Result<DatasetStore> DatasetStore::open_in_memory_copy_of(const std::filesystem::path& path) {
  auto db = open_sqlite_copy_in_memory(path);
  if (!db) return db.error();
  return create(std::move(*db));
}

Result<void> DatasetStore::write_copy(const std::filesystem::path& path) const {
  if (db_->dialect() != SqlDialect::sqlite) {
    return unexpected(ErrorCode::invalid_input, "a copy is written of an SQLite store only, not of " + db_->describe());
  }
  return replace_file(path, [&](const std::filesystem::path& temporary) -> Result<void> {
    if (auto written = db_->execute("VACUUM INTO $1", {temporary.string()}); !written) return written.error();
    return {};
  });
}

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
           static_cast<std::int64_t>(r.is_inconsistent() ? 1 : 0), r.note, static_cast<std::int64_t>(r.batch_size),
           static_cast<std::int64_t>(r.context_tokens)});
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

Result<std::vector<Session>> DatasetStore::sessions() const {
  auto rows = db_->query(std::string(kSelectSessionColumns) + " ORDER BY date, label", {});
  if (!rows) return rows.error();
  std::vector<Session> out;
  for (const SqlRow& r : *rows) out.push_back(session_from(r));
  return out;
}

Result<std::optional<Session>> DatasetStore::session_by_id(const std::string& id) const {
  auto rows = db_->query(std::string(kSelectSessionColumns) + " WHERE id = $1", {id});
  if (!rows) return rows.error();
  if (rows->empty()) return std::optional<Session>{};
  return std::optional<Session>(session_from(rows->front()));
}

Result<Session> DatasetStore::find_session(const std::string& id_or_label) const {
  auto rows = db_->query(std::string(kSelectSessionColumns) + " WHERE id = $1 OR label = $1 OR id LIKE $2 ORDER BY id",
                          {id_or_label, id_or_label + "%"});
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

// Only the filters the query sets are written into the statement: "($1 IS NULL OR engine = $1)" kept
// SQLite from the (engine, precision, gpu_arch) index, and the rows of one key a quality answer needs
// cost a scan of the whole table (88 ms of a 0.53-s `estimate` on a store of 100k rows).
Result<std::vector<DataRow>> DatasetStore::rows(const RowQuery& q) const {
  std::string sql = kSelectRowColumns;
  std::vector<SqlValue> params;
  const char* joiner = " WHERE ";
  auto add = [&](std::string_view condition) {
    sql += joiner;
    sql += condition;
    joiner = " AND ";
  };
  auto equal = [&](const char* column, const std::optional<std::string>& value) {
    if (!value) return;
    params.emplace_back(*value);
    add(std::string(column) + " = $" + std::to_string(params.size()));
  };
  equal("gpu_arch", q.gpu_arch);
  equal("engine", q.engine);
  equal("precision", q.precision);
  equal("session_id", q.session_id);
  if (q.measured_only) add("basis = 'measured'");
  if (q.quality_or_note) {
    params.emplace_back(*q.quality_or_note);
    add("((perplexity IS NOT NULL AND fp16_perplexity IS NOT NULL) OR note LIKE ('%' || CAST($" +
        std::to_string(params.size()) + " AS TEXT) || '%'))");
  }
  sql += " ORDER BY session_id, params_b, precision, row_key";
  auto rows = db_->query(sql, params);
  if (!rows) return rows.error();
  std::vector<DataRow> out;
  for (const SqlRow& r : *rows) out.push_back(row_from(r));
  return out;
}

Result<std::map<std::string, int>> DatasetStore::row_counts() const {
  auto rows = db_->query(kRowCounts, {});
  if (!rows) return rows.error();
  std::map<std::string, int> out;
  for (const SqlRow& r : *rows) out[sql_text(r[0]).value_or("")] = static_cast<int>(sql_integer(r[1]).value_or(0));
  return out;
}

Result<std::string> DatasetStore::evidence_version() const {
  auto rows = db_->query(kEvidenceVersion, {});
  if (!rows) return rows.error();
  if (rows->empty()) return std::string("rows 0 sessions 0");
  const SqlRow& r = rows->front();
  return "rows " + std::to_string(sql_integer(r[0]).value_or(0)) + " sessions " + std::to_string(sql_integer(r[1]).value_or(0));
}

Result<std::optional<std::string>> DatasetStore::derived(const std::string& key, const std::string& version) const {
  auto rows = db_->query(kSelectDerived, {key, version});
  if (!rows) return rows.error();
  if (rows->empty()) return std::optional<std::string>{};
  return sql_text(rows->front()[0]);
}

Result<void> DatasetStore::put_derived(const std::string& key, const std::string& version, const std::string& content) {
  auto written = in_transaction(*db_, [&]() -> Result<int> {
    if (auto r = db_->execute(kDeleteDerived, {key}); !r) return r.error();
    if (auto r = db_->execute(kInsertDerived, {key, version, content}); !r) return r.error();
    return 0;
  });
  if (!written) return written.error();
  return {};
}

std::filesystem::path default_store_path() {
  if (const char* env = std::getenv("ECOCOMPUTE_STORE"); env != nullptr && *env != '\0') return env;
  return data_dir() / "ecocompute.sqlite";
}

namespace {

// The published data and the shipped sessions, imported report by report.
Result<DatasetStore> build_published_store(const std::filesystem::path& dir) {
  auto store = DatasetStore::open_in_memory();
  if (!store) return store.error();
  auto batch = read_published_dir(dir / "published");
  if (!batch) return batch.error();
  if (auto summary = store->import(*batch); !summary) return summary.error();
  auto ours = read_shipped_sessions(dir / "sessions");
  if (!ours) return ours.error();
  for (const ImportBatch& session_report : *ours) {
    if (auto summary = store->import(session_report); !summary) return summary.error();
  }
  return store;
}

// The copy kept for these inputs (published_snapshot.hpp) when there is a sound one, else the store
// built from them, kept for the next command. A copy that cannot be read is built again; one that cannot
// be written only costs the next command the build.
Result<DatasetStore> published_data_and_sessions(const std::filesystem::path& dir) {
  const auto digest = published_inputs_digest(dir);
  if (!digest) return build_published_store(dir);  // which names what is wrong with the inputs
  const std::filesystem::path snapshot = published_snapshot_path(*digest);
  std::error_code ec;
  if (std::filesystem::exists(snapshot, ec)) {
    if (auto copy = DatasetStore::open_in_memory_copy_of(snapshot)) return copy;
    log::info("the kept copy of the shipped evidence {} cannot be read; it is built again", snapshot.string());
  }
  auto store = build_published_store(dir);
  if (!store) return store;
  if (auto kept = store->write_copy(snapshot); !kept) {
    log::debug("the shipped evidence could not be kept in {} ({}); it is read again next time", snapshot.string(), kept.error().message());
  }
  return store;
}

}  // namespace

Result<DatasetStore> open_published_store() {
  auto store = published_data_and_sessions(data_dir());
  if (!store) return store.error();
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
