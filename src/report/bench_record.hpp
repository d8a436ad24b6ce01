// The llama-bench-compatible row of one energy.json report, defined by a single field table.
#pragma once

#include <span>
#include <vector>

#include "report/energy_report.hpp"
#include "report/printer.hpp"
#include "report/record.hpp"

namespace ecocompute::report {

/// Returns the row's columns, in output order: llama-bench's (build_commit … stddev_ts, those this
/// tool can fill) followed by the energy and quality columns and the raw per-trial samples.
[[nodiscard]] const std::vector<Column>& bench_columns();

/// Builds the row of one report (1.2; a 1.0/1.1 report fills what it has, the rest is null). Values
/// the report does not hold are null, never guessed. Never fails.
[[nodiscard]] Record bench_record(const EnergyReport& report);

/// Prints one row per report with `printer`: begin (bench_columns, schema version and engine commit of
/// the first report), a record per report, end.
void print_bench_records(Printer& printer, std::span<const EnergyReport> reports);

}  // namespace ecocompute::report
