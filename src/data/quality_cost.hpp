// The quality cost of a weight format for a model: measured on that model's real weights, from the
// published figure for that model, transferred from the nearest published (or measured) model (with an
// interval that widens with the distance), measured by our own probe on the trained fixture, or unknown —
// never one passed off as another. The rule and the evidence it rests on: docs/quality.md.
//
//   auto evidence = quality_evidence(store);          // published rows, fixture probes, real-weights rows
//   FormatQualityCost q = quality_cost_for(*evidence, {.size_b = 8.03, .precision = "Q4_0"});
//   if (check_delta_ppl_pct(q, 1.0) == QualityCheck::exceeds) …   // --max-delta-ppl-pct 1
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "data/dataset_store.hpp"
#include "data/published_quality.hpp"
#include "util/json.hpp"
#include "util/json_sink.hpp"
#include "util/result.hpp"

namespace ecocompute::data {

/// Where a quality figure comes from. Kept apart from the energy basis: a format's energy may be measured
/// while its quality is transferred.
enum class QualityBasis {
  measured,             ///< measured on the named model's own (real) weights, by a quality probe in a run
  published,            ///< the source's own figure for this model
  transferred,          ///< another model's published figure, carried over by the transfer rule
  measured_on_fixture,  ///< our quality probe on the trained fixture model (data/fixture/)
  none,                 ///< unknown for this model
};
std::string_view to_string(QualityBasis basis) noexcept;

/// A ΔPPL % our probe measured on the fixture: one measured dataset row of weights "trained-fixture".
struct FixtureQuality {
  std::string model;
  double params_b = 0;
  std::string arch_family = "llama";  ///< the fixture is a llama-architecture model (data/fixture/RECIPE.md)
  std::string precision;
  double delta_ppl_pct = 0;
  std::optional<double> kld;
  std::string source;  ///< "session <id>, row <key>"
};

/// A ΔPPL % measured in a run on a model's real weights (a dataset row of weights "real" with both
/// perplexities, e.g. the RTX 4090 bitsandbytes runs).
struct MeasuredQuality {
  std::string model;
  double params_b = 0;
  std::string engine;  ///< the dataset's spelling: the quantizer that made the format
  std::string precision;
  double delta_ppl_pct = 0;
  std::optional<double> kld;
  std::string gpu;
  std::string source;  ///< "session <id>, row <key>"
  /// The engine's and the precision's canonical names, worked out once where the row is added
  /// (add_measured_quality) rather than for every question; empty: worked out when read.
  std::string canonical_engine, canonical_precision;
};

/// The measured rows of one engine and format in order of size: a question reads the few near its size
/// and the range of them all, not every row (a store of 100k rows held 1,185 for each bitsandbytes format).
struct MeasuredGroup {
  std::string engine, type;              ///< canonical names
  std::vector<std::size_t> by_size;      ///< indices into QualityEvidence::measured by size, equal sizes in row order
  double low_delta = 0, high_delta = 0;  ///< the smallest and largest positive ΔPPL % (0: none)
  /// One model's rows (its name without the organisation, squashed), in the order of `by_size`.
  struct ModelRuns {
    std::string key;
    std::vector<std::size_t> by_size;
  };
  /// `by_size` split by model, in order of key: a question naming a model reads that model's runs only,
  /// not every row of about its size (a store of many models of one size held them all in one window).
  std::vector<ModelRuns> models;
};

/// What quality_cost_for reads.
struct QualityEvidence {
  std::vector<PublishedQualityRow> published;
  std::vector<FixtureQuality> fixture;
  std::vector<MeasuredQuality> measured;
  /// `measured` grouped (add_measured_quality keeps it); it holds for the first `grouped_rows` rows,
  /// and rows added otherwise are grouped when a question reads them.
  std::vector<MeasuredGroup> measured_groups;
  std::size_t grouped_rows = 0;
};

/// The rows grouped by canonical engine and format.
std::vector<MeasuredGroup> group_measured(const std::vector<MeasuredQuality>& measured);

/// The evidence a store holds: its published quality rows, the fixture rows and the real-weights rows
/// with both perplexities.
Result<QualityEvidence> quality_evidence(const DatasetStore& store);
/// The fixture and real-weights rows among `rows` (those with both perplexities), added to `evidence`.
void add_measured_quality(QualityEvidence& evidence, const std::vector<DataRow>& rows);

/// The transfer rule's constants, each the largest ratio the published tables show (docs/quality.md;
/// tests/unit/data/quality_cost_test.cpp recomputes them from the fetched README).
struct QualityTransferRule {
  /// Another model of the family at about the same size, 4 bits and more: LLaMA 3 8B vs LLaMA 2 7B
  /// differ by up to ×1.98 (Q4_K_M).
  double model_factor = 2.0;
  /// The same below 4 bits: Q2_K differs by ×5.23.
  double low_bit_model_factor = 5.3;
  /// Per decade of size: LLaMA 2 7B vs 70B differ by up to ×1.50 (Q6_K).
  double size_factor_per_decade = 1.5;
  /// Transfer only within the sizes the family's published models span, widened this much either side.
  double size_margin = 2.0;
  /// A published interval is the figure ± this many printed standard errors (95 %).
  double published_z = 1.96;
};

/// A format's quality cost for one model, with its basis, its source and an interval for ΔPPL %.
struct FormatQualityCost {
  QualityBasis basis = QualityBasis::none;
  std::string basis_text;  ///< "published for LLaMA 3 8B", "transferred from LLaMA 3 8B", "measured on the fixture", "none"
  std::string precision;
  std::string source;      ///< where the figure was read or measured; "" for none
  std::optional<double> delta_ppl_pct;  ///< central figure, % (positive = worse)
  std::optional<double> delta_ppl_pct_low;
  std::optional<double> delta_ppl_pct_high;
  std::string uncertainty;  ///< how the interval was made
  /// The evidence model's other figures, as published or measured: they describe that model.
  std::optional<double> kld, mean_dp_pct, rms_dp_pct, same_top_p_pct;
  std::optional<double> kld_low, kld_high;  ///< the KLD's interval, where there is a KLD: the same rule as ΔPPL's
  std::string imatrix;      ///< the published row's importance matrix ("none", "WT 10m", "not stated")
  std::string evidence_model;               ///< the model the figures were published or measured for
  std::optional<double> evidence_params_b;  ///< its size, billions
  std::string reason;       ///< for none: "unknown for this model: …"
  std::string note;         ///< what the figure assumes ("the model's architecture is not named: …"); "" when nothing
};
void write_json(JsonSink& sink, const FormatQualityCost& cost);
void to_json(Json& j, const FormatQualityCost& cost);

/// A question about a format's quality cost.
struct QualityQuestion {
  double size_b = 0;        ///< billions of parameters
  std::string model;        ///< as the user named it ("Meta-Llama-3-8B", "Qwen/Qwen2.5-3B"); "" when only a size was given
  std::string engine = "llama.cpp";  ///< the quantizer (any case): published llama.cpp figures answer llama.cpp only
  std::string precision;    ///< any spelling
  /// The model's GGUF architecture ("llama", "qwen2"); "" reads it from `model` (model_arch_family), and a
  /// model whose architecture is unknown or unnamed is answered with the llama family's published figures,
  /// with a note saying it assumes that.
  std::string arch;
};

/// The quality cost of a format for a model. In order: the fixture itself (our probe); the named model's
/// own measured figure (engine and size agree); the named model's published figure (llama.cpp); the
/// llama family's published figure transferred (llama.cpp, sizes the family spans); the nearest measured
/// model's figure transferred (same engine, ×/÷ the largest ratio between the measured models); none.
FormatQualityCost quality_cost_for(const QualityEvidence& evidence, const QualityQuestion& question,
                                   const QualityTransferRule& rule = {});

/// The quality cost of `precision` (any spelling) with llama.cpp for a model of `size_b` billion
/// parameters whose GGUF architecture is `arch` ("llama", "qwen2" …). `model`, when given, names the model
/// ("Meta-Llama-3-8B"): only a model the source names gets basis published; any other gets the
/// transferred figure.
FormatQualityCost quality_cost_for(const QualityEvidence& evidence, double size_b, std::string_view arch,
                             std::string_view precision, std::string_view model = {},
                             const QualityTransferRule& rule = {});

/// The GGUF architecture family a model name says: "llama" (Llama, TinyLlama, Mistral, Vicuna, CodeLlama),
/// "qwen2" (Qwen, Qwen2, Qwen2.5), "other" for another named family (Phi, Gemma, Falcon …), "" when the
/// name says none or is empty.
std::string model_arch_family(std::string_view model_name);

/// How a cost meets a ΔPPL % ceiling (`optimize --max-delta-ppl-pct`).
enum class QualityCheck {
  within,     ///< the interval's upper end is at or under the ceiling
  exceeds,    ///< the interval's lower end is over it
  uncertain,  ///< the interval straddles it
  unknown,    ///< no figure
};
QualityCheck check_delta_ppl_pct(const FormatQualityCost& cost, double max_delta_ppl_pct);
/// How a cost meets a KL divergence ceiling (`optimize --max-kld`), on the KLD's interval.
QualityCheck check_kld(const FormatQualityCost& cost, double max_kld);
std::string_view to_string(QualityCheck check) noexcept;

}  // namespace ecocompute::data
