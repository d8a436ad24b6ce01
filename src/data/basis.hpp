// Basis: where a number comes from — measured at that point, read off a curve, borrowed from another
// GPU or architecture, computed by a model, or not available — and, per figure of an answer, from which
// sessions and GPU.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "util/json.hpp"
#include "util/json_sink.hpp"
#include "util/result.hpp"

namespace ecocompute::data {

/// How a number was obtained. Only `measured` rows feed fits; an estimate is never stored as measured.
/// The order is the order of trust: a figure built from several is as good as its worst part.
enum class Basis {
  measured,      ///< a measurement of the thing asked about (for an estimate: a measured anchor there)
  interpolated,  ///< read off a fitted curve inside its measured size range
  extrapolated,  ///< read off a fitted curve outside its measured size range (always said so)
  borrowed,      ///< measured on another GPU or read off another architecture's curve (says which)
  modelled,      ///< computed by a model that no measurement checks (roofline, batch amortization …)
  unavailable,   ///< no curve or data supports a number
};

/// Returns the spelling used in JSON and on the command line ("measured", …).
std::string_view to_string(Basis basis) noexcept;

/// Parses a basis spelling; the error names the value.
Result<Basis> parse_basis(std::string_view text);

/// Returns the less trustworthy of two bases (measured < interpolated < extrapolated < borrowed <
/// modelled < unavailable).
Basis worse(Basis a, Basis b) noexcept;

/// The basis of one figure of an answer: what it rests on, measured where, and by which sessions.
/// "measured on A800, same architecture" is a borrowed figure for an A100 question, never a measured one.
/// How many session labels a figure lists: enough to name the cards behind a measured place, never the
/// thousands a large store holds for one place (an answer's size must not grow with the store).
inline constexpr std::size_t kListedSessions = 12;

struct FigureBasis {
  Basis basis = Basis::unavailable;
  std::string label;                  ///< one phrase for people: "measured on RTX 4090 (rtx4090_2026-08-19)"
  /// Labels of the sessions of the measured places nearest the question (at most kListedSessions of them,
  /// in order): the figure rests on them most directly. session_count says how many there are.
  std::vector<std::string> sessions;
  std::size_t session_count = 0;
  std::string gpu;                    ///< GPU the evidence was measured on, "" when none
  std::string arch;                   ///< that GPU's architecture
  std::string borrowed_from;          ///< for borrowed: "A800 (same architecture)", "the ampere curve"
  std::string model;                  ///< for modelled (or a modelled part): the model, stated

  /// Returns a copy made no better than `floor`, with `why` appended to the label when it changes.
  [[nodiscard]] FigureBasis at_most(Basis floor, const std::string& why) const;
};

/// Returns a basis for a figure computed by a model (latency roofline, memory formula …).
FigureBasis modelled_basis(std::string model);

/// Writes the basis (keys in the document's order; see util/json_sink.hpp); to_json writes the same.
void write_json(JsonSink& sink, const FigureBasis& basis);
void to_json(Json& j, const FigureBasis& basis);

}  // namespace ecocompute::data
