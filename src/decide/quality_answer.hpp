// The quality half of an answer: what the asked format costs in perplexity (and KLD, Δp where known) for
// the asked model, by the rule of data/quality_cost.hpp over the evidence's published and measured
// figures. Its basis (measured / published / transferred / measured_on_fixture / none) is the quality's
// own, never mixed with the energy basis: ΔE may be measured on the H200 while ΔPPL is transferred.
#pragma once

#include <optional>
#include <string>

#include "data/quality_cost.hpp"
#include "decide/evidence.hpp"
#include "decide/prediction.hpp"
#include "report/energy_report.hpp"

namespace ecocompute::decide {

/// The quality cost of the query's format for its model (named or only sized) with its engine.
data::FormatQualityCost quality_answer(const Evidence& evidence, const Query& q);
/// The same for a model of a known GGUF architecture ("llama", "qwen2"); "" reads it from the model's name.
data::FormatQualityCost quality_answer(const Evidence& evidence, const Query& q, const std::string& model_arch);

/// The quality cost of a graded report's format: its own probe's figure where it ran on real weights
/// (measured on this run's weights) or on the fixture, else the evidence's answer for a model of the
/// report's architecture and size (`q`: the question the grade asks, its model named from the report).
data::FormatQualityCost report_quality(const report::EnergyReport& r, const Evidence& evidence, const Query& q);

/// The quality cost beside a measured row that has no perplexity of its own (synthetic weights: the H200
/// sessions): the evidence's answer for the row's model, engine, format and size. Nothing for the
/// baseline's rows and rows that measured their own.
std::optional<data::FormatQualityCost> row_quality(const Evidence& evidence, const data::DataRow& row);

/// The verdict's sentence: "Quality: ΔPPL +7.52 % (95 % 3.76 … 15.0 %), transferred from LLaMA 3 8B." or
/// "Quality: unknown for this model: …".
std::string quality_sentence(const data::FormatQualityCost& cost);

}  // namespace ecocompute::decide
