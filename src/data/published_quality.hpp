// Published quality evidence: what quantizing a real model costs in quality (perplexity change, KL
// divergence, token-probability change) as llama.cpp's tools/perplexity/README.md tabulates it, read
// from the fetched llama.cpp source at run time, never typed in. Every row keeps where it came from:
// the file, the llama.cpp commit it was read at, the table and the revision the table itself states.
//
//   auto batch = read_llama_cpp_quality(default_llama_cpp_source());  // or a README path
//   store.import_quality(*batch);                                    // all rows or none
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "util/json.hpp"
#include "util/result.hpp"

namespace ecocompute::data {

/// A published value with the uncertainty printed beside it ("6.233160 ± 0.037828"), if any.
struct QualityFigure {
  double value = 0.0;
  std::optional<double> uncertainty;  ///< as the source prints it (llama.cpp: one standard error)
};

/// One published row: a model at one weight format, compared with its FP16 (or other) baseline.
struct PublishedQualityRow {
  // Provenance.
  std::string source_file;     ///< path inside the llama.cpp tree: "tools/perplexity/README.md"
  std::string source_commit;   ///< the llama.cpp commit it was read at (+ patch), "unknown" if not stated
  std::string table;           ///< the heading of the table: "LLaMA 3 8b Scoreboard"
  std::string table_revision;  ///< the revision the table states ("f364eb6f"), "" when it states none
  int line = 0;                ///< 1-based line of the row (or of the table's header, for a transposed table)
  // What was measured.
  std::string model;           ///< "LLaMA 3 8B", "LLaMA 2 7B", "LLaMA 2 70B"
  double params_b = 0.0;       ///< the size in the model's name (8, 7, 70)
  std::string arch_family;     ///< GGUF general.architecture of the model: "llama"
  std::string precision;       ///< the project's spelling ("Q4_K_M"), else llama.cpp's upper-cased ("Q5_1")
  bool precision_known = true; ///< false when the project's precision table does not list the type
  std::string source_precision;  ///< as the table spells it: "q4_K_M"
  std::string baseline = "F16";  ///< what the quantized model is compared with
  std::string imatrix;         ///< "none", an importance matrix ("WT 10m"), or "not stated"
  std::string corpus;          ///< "Wikitext-2 test" or "not stated"
  std::string backend;         ///< "CUDA", "CPU", or "not stated"
  // The figures (absent where the table has none).
  std::optional<double> file_size_gib;
  std::optional<QualityFigure> ppl;
  std::optional<QualityFigure> delta_ppl;        ///< PPL(quantized) − PPL(baseline)
  std::optional<QualityFigure> delta_ppl_pct;    ///< ΔPPL / PPL(baseline) × 100, stated or derived
  std::optional<QualityFigure> kld;              ///< mean KL divergence to the baseline's logits
  std::optional<QualityFigure> mean_dp_pct;      ///< mean change of the correct token's probability, %
  std::optional<QualityFigure> rms_dp_pct;       ///< RMS of that change, %
  std::optional<QualityFigure> same_top_p_pct;   ///< how often both pick the same top token, %

  /// "tools/perplexity/README.md:56 @ llama.cpp 80fb11ac (table "LLaMA 3 8b Scoreboard", revision f364eb6f)".
  [[nodiscard]] std::string provenance() const;
};

/// Everything read from one source, before it is written (all or nothing) to a store.
struct QualityBatch {
  std::string source;  ///< the file read
  std::vector<PublishedQualityRow> rows;
  std::vector<std::string> notes;  ///< tables skipped and types outside the project's table, and why
};

void to_json(Json& j, const QualityFigure& figure);
void to_json(Json& j, const PublishedQualityRow& row);

/// The fetched llama.cpp source: $ECOCOMPUTE_LLAMA_SOURCE if set, else <data dir>/../third_party/llama.cpp.
std::filesystem::path default_llama_cpp_source();

/// The perplexity README inside a llama.cpp source tree.
inline constexpr std::string_view kPerplexityReadme = "tools/perplexity/README.md";

/// Reads the quality tables of a llama.cpp source: `path` is the source tree (its perplexity README is
/// read) or a README file inside one. The commit is the fetch stamp's (.ecocompute-fetched, written by
/// scripts/fetch_third_party.sh), else the checkout's HEAD, else "unknown" (with a note). A malformed
/// table is an invalid_input error naming the file and line; nothing is returned half-read.
Result<QualityBatch> read_llama_cpp_quality(const std::filesystem::path& path);

/// Parses the text of a perplexity README. `file` and `commit` become each row's provenance; errors name
/// `display_path` and the line.
Result<QualityBatch> parse_perplexity_readme(std::string_view text, std::string_view file, std::string_view commit,
                                             std::string_view display_path);

/// Returns the project's spelling of a llama.cpp type name ("q4_K_M" → "Q4_K_M", "f16" → "F16", "iq4_NL" →
/// "IQ4_NL"), case-insensitively; absent for a type the project's precision table does not list.
std::optional<std::string> project_precision_name(std::string_view llama_cpp_name);

}  // namespace ecocompute::data
