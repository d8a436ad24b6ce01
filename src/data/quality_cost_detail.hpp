// The parts of the quality rule that quality_cost.cpp (published figures, the fixture) and
// quality_question.cpp (the order of the evidence, measured rows) share. Internal to src/data.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "data/quality_cost.hpp"

namespace ecocompute::data::quality_detail {

/// Lower-case letters and digits only: "Meta-Llama-3-8B" → "metallama38b".
std::string squashed_name(std::string_view text);
/// The project's name of a type ("q4_K_M" → "Q4_K_M"); another name upper-cased.
std::string canonical_quality_precision(std::string_view precision);
/// 2- and 3-bit classes (and types outside the table): the wider model factor.
bool is_low_bit(std::string_view precision);
/// Three significant figures.
std::string number_text(double v);
/// ×/÷ factor around v, as (low, high).
std::pair<double, double> times_or_divided(double v, double factor);

/// Several runs of one figure: their mean as the figure, their range as its interval.
void set_mean_and_range(FormatQualityCost& cost, const std::vector<double>& runs);

FormatQualityCost unknown_cost(const std::string& precision, std::string reason);
/// Our probe's figure when the question is the fixture itself (its size and family).
std::optional<FormatQualityCost> fixture_cost(const QualityEvidence& evidence, double size_b, std::string_view family,
                                              const std::string& precision);
/// From llama.cpp's published rows: the named model's figure, else the family's nearest model's
/// transferred, else none with the reason.
FormatQualityCost published_quality_cost(const QualityEvidence& evidence, double size_b, std::string_view family,
                                         const std::string& precision, std::string_view model, const QualityTransferRule& rule);

}  // namespace ecocompute::data::quality_detail
