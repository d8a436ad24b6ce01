// DatasetStore's published quality table: llama.cpp's perplexity figures, each with its printed
// uncertainty, written and read in the SQL subset SQLite and PostgreSQL share, with parameters only.
#include <cmath>
#include <iterator>

#include "data/dataset_store.hpp"

namespace ecocompute::data {
// Named apart from dataset_store.cpp's helpers: a unity build compiles both files as one.
namespace quality_table {
namespace {

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

bool finite_positive(double v) { return std::isfinite(v) && v > 0; }

std::vector<SqlValue> quality_values(const PublishedQualityRow& r) {
  std::vector<SqlValue> v{r.source_file, r.source_commit, r.table, r.table_revision,
                          static_cast<std::int64_t>(r.line), r.model, r.params_b, r.arch_family, r.precision,
                          static_cast<std::int64_t>(r.precision_known ? 1 : 0), r.source_precision, r.baseline,
                          r.imatrix, r.corpus, r.backend, optional_value(r.file_size_gib)};
  for (auto member : kQualityFigures) {
    const auto& figure = r.*member;
    if (figure) {
      v.emplace_back(figure->value);
      v.push_back(optional_value(figure->uncertainty));
    } else {
      v.emplace_back(std::monostate{});
      v.emplace_back(std::monostate{});
    }
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

}  // namespace
}  // namespace quality_table

Result<ImportSummary> DatasetStore::import_quality(const QualityBatch& batch) {
  for (const PublishedQualityRow& row : batch.rows) {
    if (auto ok = quality_table::validate_quality(row, batch.source); !ok) return ok.error();
  }
  auto written = in_transaction(*db_, [&]() -> Result<ImportSummary> {
    ImportSummary summary{batch.source, 0, 0, 0, 0, batch.notes};
    for (const PublishedQualityRow& row : batch.rows) {
      auto n = db_->execute(quality_table::kInsertQuality, quality_table::quality_values(row));
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
  auto rows = db_->query(quality_table::kSelectQuality, {optional_value(precision)});
  if (!rows) return rows.error();
  std::vector<PublishedQualityRow> out;
  for (const SqlRow& r : *rows) out.push_back(quality_table::quality_row_from(r));
  return out;
}

}  // namespace ecocompute::data
