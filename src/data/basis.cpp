// Basis spellings and figure bases.
#include "data/basis.hpp"

#include <algorithm>

#include <array>
#include <string>

namespace ecocompute::data {
namespace {
constexpr std::array kAll{Basis::measured, Basis::interpolated, Basis::extrapolated,
                          Basis::borrowed, Basis::modelled,     Basis::unavailable};
}  // namespace

std::string_view to_string(Basis basis) noexcept {
  switch (basis) {
    case Basis::measured: return "measured";
    case Basis::interpolated: return "interpolated";
    case Basis::extrapolated: return "extrapolated";
    case Basis::borrowed: return "borrowed";
    case Basis::modelled: return "modelled";
    case Basis::unavailable: return "unavailable";
  }
  return "unavailable";
}

Result<Basis> parse_basis(std::string_view text) {
  for (Basis b : kAll) {
    if (to_string(b) == text) return b;
  }
  return unexpected(ErrorCode::invalid_input,
                    "unknown basis '" + std::string(text) +
                        "' (expected measured, interpolated, extrapolated, borrowed, modelled or unavailable)");
}

Basis worse(Basis a, Basis b) noexcept { return static_cast<int>(a) >= static_cast<int>(b) ? a : b; }

FigureBasis FigureBasis::at_most(Basis floor, const std::string& why) const {
  FigureBasis out = *this;
  if (worse(basis, floor) == basis) return out;
  out.basis = floor;
  out.label = label.empty() ? why : label + "; " + why;
  return out;
}

FigureBasis modelled_basis(std::string model) {
  FigureBasis b;
  b.basis = Basis::modelled;
  b.label = "modelled: " + model;
  b.model = std::move(model);
  return b;
}

void write_json(JsonSink& sink, const FigureBasis& b) {
  sink.begin_object();
  sink.key("arch");
  sink.text_or_null(b.arch);
  sink.field("basis", to_string(b.basis));
  sink.key("borrowed_from");
  sink.text_or_null(b.borrowed_from);
  sink.key("gpu");
  sink.text_or_null(b.gpu);
  sink.field("label", b.label);
  sink.key("model");
  sink.text_or_null(b.model);
  sink.field("session_count", std::max(b.session_count, b.sessions.size()));
  sink.field("sessions", b.sessions);
  sink.end_object();
}

void to_json(Json& j, const FigureBasis& b) { to_document(j, b); }

}  // namespace ecocompute::data
