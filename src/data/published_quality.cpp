// Reading llama.cpp's perplexity README: its scoreboards (one row per quantization type) and its
// transposed comparison tables (one column per model and type) become PublishedQualityRows. The numbers
// are read from the fetched source as printed; only ΔPPL % is derived (ΔPPL over the baseline's PPL, or
// the printed PPL ratio), because every consumer compares models by relative change.
#include "data/published_quality.hpp"

#include <cctype>
#include <cstdlib>
#include <set>

#include "data/markdown_table.hpp"
#include "util/file_io.hpp"
#include "util/precision.hpp"
#include "util/trim.hpp"

namespace ecocompute::data {
namespace {

// What a table's own revision table (| Revision | f364eb6f | … | Backend | CUDA |) says about the next
// table under the same heading.
struct TableContext {
  std::string heading;
  std::string revision;
  std::string backend = "not stated";
};

struct ReadmeSource {
  std::string_view file, commit, display, corpus;
};

Error row_error(const ReadmeSource& src, int line, const std::string& what) {
  return Error{ErrorCode::invalid_input, std::string(src.display) + ":" + std::to_string(line) + ": " + what};
}

std::string lowered_ascii(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::vector<std::string> words_of(std::string_view text) {
  std::vector<std::string> words;
  std::string word;
  for (char c : text) {
    if (c == ' ') {
      if (!word.empty()) words.push_back(std::move(word));
      word.clear();
    } else {
      word += c;
    }
  }
  if (!word.empty()) words.push_back(std::move(word));
  return words;
}

// The model a heading or column names, spelled one way: "LLaMA 3 8b" and "L3 8b" → "LLaMA 3 8B".
struct NamedModel {
  std::string name;
  double params_b = 0;
  std::string arch_family;
};

std::optional<NamedModel> named_model(const std::vector<std::string>& words) {
  if (words.empty()) return std::nullopt;
  std::vector<std::string> out;
  const std::string first = lowered_ascii(words.front());
  // The comparison tables abbreviate "LLaMA 2 7b" as "L2 7b".
  if (first.size() == 2 && first[0] == 'l' && std::isdigit(static_cast<unsigned char>(first[1]))) {
    out = {"LLaMA", std::string(1, first[1])};
  } else if (first == "llama") {
    out = {"LLaMA"};
  } else {
    return std::nullopt;  // only LLaMA-family tables are known; another family's table is skipped with a note
  }
  out.insert(out.end(), words.begin() + 1, words.end());
  std::string size = lowered_ascii(out.back());
  if (size.size() < 2 || size.back() != 'b') return std::nullopt;
  size.pop_back();
  char* end = nullptr;
  const double params_b = std::strtod(size.c_str(), &end);
  if (end != size.c_str() + size.size() || !(params_b > 0)) return std::nullopt;
  out.back() = size + "B";
  std::string name;
  for (const std::string& w : out) name += (name.empty() ? "" : " ") + w;
  return NamedModel{name, params_b, "llama"};
}

std::string imatrix_text(std::string_view cell) {
  if (lowered_ascii(cell) == "none") return "none";
  return cell.empty() ? std::string("not stated") : std::string(cell);
}

// A cell of a figure column: "-" or empty is absent; anything else must be a printed number.
Result<std::optional<QualityFigure>> figure_cell(const ReadmeSource& src, int line, std::string_view column,
                                                std::string_view cell) {
  if (cell.empty() || cell == "-") return std::optional<QualityFigure>{};
  auto n = parse_printed_number(cell);
  if (!n) return row_error(src, line, "column '" + std::string(column) + "': '" + std::string(cell) + "' is not a number");
  return std::optional<QualityFigure>{QualityFigure{n->value, n->uncertainty}};
}

// ΔPPL % from the printed PPL and ΔPPL: the baseline's PPL is PPL − ΔPPL. The uncertainty printed for
// ΔPPL is already that of the paired difference, so it scales the same way.
void derive_delta_pct(PublishedQualityRow& row) {
  if (row.delta_ppl_pct || !row.delta_ppl || !row.ppl) return;
  const double base = row.ppl->value - row.delta_ppl->value;
  if (!(base > 0)) return;
  QualityFigure pct{row.delta_ppl->value / base * 100.0, std::nullopt};
  if (row.delta_ppl->uncertainty) pct.uncertainty = *row.delta_ppl->uncertainty / base * 100.0;
  row.delta_ppl_pct = pct;
}

// Gives a row its precision in the project's spelling, or llama.cpp's upper-cased name and a note.
void set_precision(PublishedQualityRow& row, std::string_view printed, std::set<std::string>& unknown) {
  row.source_precision = std::string(printed);
  if (auto name = project_precision_name(printed)) {
    row.precision = *name;
    return;
  }
  row.precision = std::string(printed);
  for (char& c : row.precision) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  row.precision_known = false;
  unknown.insert(row.precision);
}

PublishedQualityRow row_base(const ReadmeSource& src, const TableContext& ctx, const NamedModel& model, int line) {
  PublishedQualityRow row;
  row.source_file = std::string(src.file);
  row.source_commit = std::string(src.commit);
  row.table = ctx.heading;
  row.table_revision = ctx.revision;
  row.line = line;
  row.model = model.name;
  row.params_b = model.params_b;
  row.arch_family = model.arch_family;
  row.corpus = std::string(src.corpus);
  row.backend = ctx.backend;
  row.imatrix = "not stated";
  return row;
}

using FigureMember = std::optional<QualityFigure> PublishedQualityRow::*;

// Which member a scoreboard column fills; the columns llama.cpp's scoreboards have printed.
FigureMember scoreboard_figure(std::string_view column) {
  if (column == "PPL" || column == "Perplexity") return &PublishedQualityRow::ppl;
  if (column == "ΔPPL") return &PublishedQualityRow::delta_ppl;
  if (column == "Delta to fp16") return &PublishedQualityRow::delta_ppl_pct;
  if (column == "KLD") return &PublishedQualityRow::kld;
  if (column == "Mean Δp") return &PublishedQualityRow::mean_dp_pct;
  if (column == "RMS Δp") return &PublishedQualityRow::rms_dp_pct;
  return nullptr;
}

Result<void> read_scoreboard_cell(const ReadmeSource& src, int line, std::string_view column, const std::string& cell,
                                  PublishedQualityRow& row) {
  if (column == "imatrix") {
    row.imatrix = imatrix_text(cell);
  } else if (column == "Model size [GiB]" || column == "Model size (GiB)") {
    auto size = figure_cell(src, line, column, cell);
    if (!size) return size.error();
    if (*size && !((*size)->value > 0)) return row_error(src, line, "the model size must be > 0");
    if (*size) row.file_size_gib = (*size)->value;
  } else if (auto member = scoreboard_figure(column)) {
    auto figure = figure_cell(src, line, column, cell);
    if (!figure) return figure.error();
    row.*member = *figure;
  }
  return {};
}

}  // namespace

namespace {

// A scoreboard: one row per type (and importance matrix); the model is in the heading ("LLaMA 3 8b
// Scoreboard").
Result<void> read_scoreboard(const ReadmeSource& src, const TableContext& ctx, const MarkdownTable& table,
                             QualityBatch& batch, std::set<std::string>& unknown) {
  std::string heading = ctx.heading;
  if (heading.ends_with(" Scoreboard")) heading.resize(heading.size() - std::string_view(" Scoreboard").size());
  auto model = named_model(words_of(heading));
  if (!model) {
    batch.notes.push_back("table at line " + std::to_string(table.header.line) + " ('" + ctx.heading +
                          "') skipped: its heading names no LLaMA model with a size");
    return {};
  }
  const auto& columns = table.header.cells;
  bool has_delta = false;
  for (const std::string& c : columns) has_delta = has_delta || c == "ΔPPL" || c == "Delta to fp16";
  if (!has_delta) return row_error(src, table.header.line, "a Quantization table without a ΔPPL or 'Delta to fp16' column");
  for (const MarkdownRow& r : table.rows) {
    PublishedQualityRow row = row_base(src, ctx, *model, r.line);
    for (std::size_t i = 0; i < columns.size(); ++i) {
      if (columns[i] == "Quantization") {
        if (r.cells[i].empty()) return row_error(src, r.line, "an empty Quantization cell");
        set_precision(row, r.cells[i], unknown);
      } else if (auto ok = read_scoreboard_cell(src, r.line, columns[i], r.cells[i], row); !ok) {
        return ok.error();
      }
    }
    derive_delta_pct(row);
    batch.rows.push_back(std::move(row));
  }
  return {};
}

FigureMember comparison_figure(std::string_view metric) {
  if (metric == "Mean PPL") return &PublishedQualityRow::ppl;
  if (metric == "Mean ΔPPL") return &PublishedQualityRow::delta_ppl;
  if (metric == "Mean KLD") return &PublishedQualityRow::kld;
  if (metric == "Mean Δp") return &PublishedQualityRow::mean_dp_pct;
  if (metric == "RMS Δp") return &PublishedQualityRow::rms_dp_pct;
  if (metric == "Same top p") return &PublishedQualityRow::same_top_p_pct;
  return nullptr;
}

// Fills one column's row from a metric row; the PPL ratio gives ΔPPL % directly ((ratio − 1) × 100).
Result<void> read_comparison_cell(const ReadmeSource& src, const MarkdownRow& r, std::size_t column,
                                  PublishedQualityRow& row) {
  const std::string& metric = r.cells[0];
  auto figure = figure_cell(src, r.line, metric, r.cells[column]);
  if (!figure) return figure.error();
  if (metric == "Mean PPL ratio" && *figure) {
    QualityFigure pct{((*figure)->value - 1.0) * 100.0, std::nullopt};
    if ((*figure)->uncertainty) pct.uncertainty = *(*figure)->uncertainty * 100.0;
    row.delta_ppl_pct = pct;
  } else if (auto member = comparison_figure(metric)) {
    row.*member = *figure;
  }
  return {};
}

// A transposed comparison: "| Metric | L2 7b q2_K | L3 8b q2_K | …", one metric per row. Each column is a
// model and type; the rows have no line of their own, so each takes the header's line.
Result<void> read_comparison(const ReadmeSource& src, const TableContext& ctx, const MarkdownTable& table,
                             QualityBatch& batch, std::set<std::string>& unknown) {
  const auto& columns = table.header.cells;
  for (std::size_t c = 1; c < columns.size(); ++c) {
    std::vector<std::string> words = words_of(columns[c]);
    const std::string type = words.empty() ? "" : words.back();
    if (!words.empty()) words.pop_back();
    auto model = named_model(words);
    if (!model || type.empty()) {
      return row_error(src, table.header.line, "comparison column '" + columns[c] + "' names no model, size and type");
    }
    PublishedQualityRow row = row_base(src, ctx, *model, table.header.line);
    set_precision(row, type, unknown);
    for (const MarkdownRow& r : table.rows) {
      if (auto ok = read_comparison_cell(src, r, c, row); !ok) return ok.error();
    }
    derive_delta_pct(row);
    if (!row.delta_ppl_pct) return row_error(src, table.header.line, "column '" + columns[c] + "' has no PPL ratio or ΔPPL");
    batch.rows.push_back(std::move(row));
  }
  return {};
}

void read_revision_table(const MarkdownTable& table, TableContext& ctx) {
  ctx.revision = table.header.cells.size() > 1 ? table.header.cells[1] : "";
  for (const MarkdownRow& r : table.rows) {
    if (r.cells.size() > 1 && r.cells[0] == "Backend") ctx.backend = r.cells[1];
  }
}

bool header_has_cell(const std::vector<std::string>& cells, std::string_view name) {
  for (const std::string& c : cells) {
    if (c == name) return true;
  }
  return false;
}

// Rows are unique by (table, model, type, importance matrix): a second one would be ambiguous evidence.
Result<void> check_unique(const ReadmeSource& src, const QualityBatch& batch) {
  std::set<std::string> keys;
  for (const PublishedQualityRow& r : batch.rows) {
    if (!keys.insert(r.table + "\n" + r.model + "\n" + r.precision + "\n" + r.imatrix).second) {
      return row_error(src, r.line, "a second row for " + r.model + " " + r.source_precision + " (imatrix " + r.imatrix +
                                        ") in table '" + r.table + "'");
    }
  }
  return {};
}

}  // namespace

Result<QualityBatch> parse_perplexity_readme(std::string_view text, std::string_view file, std::string_view commit,
                                             std::string_view display_path) {
  auto tables = read_markdown_tables(text, display_path);
  if (!tables) return tables.error();
  // The README states its convention once: Wikitext-2's test set unless a table notes otherwise.
  const bool wikitext = text.find("Wikitext-2 test set") != std::string_view::npos;
  const ReadmeSource src{file, commit, display_path, wikitext ? "Wikitext-2 test" : "not stated"};
  QualityBatch batch;
  batch.source = std::string(display_path);
  std::set<std::string> unknown;
  TableContext ctx;
  for (const MarkdownTable& table : *tables) {
    if (table.heading != ctx.heading) {  // a revision table speaks only for the tables under its own heading
      ctx = TableContext{};
      ctx.heading = table.heading;
    }
    const auto& header = table.header.cells;
    Result<void> read;
    if (header.front() == "Revision") {
      read_revision_table(table, ctx);
    } else if (header_has_cell(header, "Quantization")) {
      read = read_scoreboard(src, ctx, table, batch, unknown);
    } else if (header.front() == "Metric" && header.size() > 2) {
      read = read_comparison(src, ctx, table, batch, unknown);
    } else {
      batch.notes.push_back("table at line " + std::to_string(table.header.line) + " ('" + table.heading +
                            "') skipped: not one quantized type per row or column (e.g. a comparison of two baselines)");
    }
    if (!read) return read.error();
  }
  if (batch.rows.empty()) return row_error(src, 1, "no quality table found");
  if (auto ok = check_unique(src, batch); !ok) return ok.error();
  for (const std::string& name : unknown) {
    batch.notes.push_back(name + " is not in the project's precision table: its rows keep llama.cpp's name");
  }
  return batch;
}

}  // namespace ecocompute::data
