// energy.json ↔ EnergyReport. The field names, their order and how each is written live in one table
// (energy_fields.hpp); this file adds what is not a field: the enum spellings, the derived figures and
// the file-level checks (a report is validated against its schema before it is written).
#include "report/energy_report.hpp"

#include <fmt/format.h>

#include "report/energy_fields.hpp"
#include "report/energy_schema.hpp"
#include "report/report_json.hpp"
#include "util/file_io.hpp"
#include "util/quoted_input.hpp"

namespace ecocompute::report {

std::string_view to_string(WeightsKind kind) noexcept {
  switch (kind) {
    case WeightsKind::synthetic: return "synthetic";
    case WeightsKind::trained_fixture: return "trained-fixture";
    case WeightsKind::real: return "real";
  }
  return "real";
}

Result<WeightsKind> parse_weights_kind(std::string_view text) {
  for (WeightsKind kind : {WeightsKind::synthetic, WeightsKind::trained_fixture, WeightsKind::real}) {
    if (text == to_string(kind)) return kind;
  }
  return unexpected(ErrorCode::invalid_argument,
                    fmt::format("{} is not a weights kind (synthetic, trained-fixture, real)", quoted_input(text)));
}

std::string_view to_string(ResultBasis basis) noexcept {
  switch (basis) {
    case ResultBasis::measured: return "measured";
    case ResultBasis::interpolated: return "interpolated";
    case ResultBasis::extrapolated: return "extrapolated";
    case ResultBasis::unavailable: return "unavailable";
  }
  return "unavailable";
}

Result<ResultBasis> parse_result_basis(std::string_view text) {
  for (ResultBasis basis : {ResultBasis::measured, ResultBasis::interpolated, ResultBasis::extrapolated,
                            ResultBasis::unavailable}) {
    if (text == to_string(basis)) return basis;
  }
  return unexpected(ErrorCode::invalid_argument,
                    fmt::format("{} is not a basis (measured, interpolated, extrapolated, unavailable)", quoted_input(text)));
}

std::optional<double> EnergyReport::delta_from_energies() const {
  const auto& e = results.energy_per_token_mj;
  const auto& base = results.fp16_energy_per_token_mj;
  if (!e || !base || !(*e > 0.0) || !(*base > 0.0)) return std::nullopt;
  return (*e - *base) / *base * 100.0;
}

std::string EnergyReport::baseline_precision() const {
  return measurement.baseline_precision.value_or("FP16");
}

Result<EnergyReport> energy_report_from_json(const OrderedJson& document, std::string_view source) {
  return detail::read_document<EnergyReport>(document, source, detail::read_section<EnergyReport>);
}

OrderedJson to_json(const EnergyReport& report) { return detail::section_json(report, report.is_v1_2()); }

Result<EnergyReport> read_energy_report(const std::filesystem::path& path) {
  auto document = read_json_file(path);
  if (!document) return document.error();
  return energy_report_from_json(*document, path.string());
}

Result<void> write_energy_report(const std::filesystem::path& path, const EnergyReport& report) {
  const OrderedJson document = to_json(report);
  const std::vector<SchemaProblem> problems = validate_energy_json(document);
  if (!problems.empty()) {
    return unexpected(ErrorCode::internal, fmt::format("{} not written: the report does not match its schema:\n{}",
                                                       path.string(), describe(problems)));
  }
  return write_file_atomic(path, document.dump(2) + "\n");
}

}  // namespace ecocompute::report
