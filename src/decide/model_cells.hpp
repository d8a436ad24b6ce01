// Model cells: the unit the decision model is fitted to. A cell is what one session (one card, one
// software stack) measured at one configuration (engine, format, GPU, model size, batch): the mean
// of its rows, with the variance of that mean within the session. Two outcomes, on log scales,
// because energies multiply: the log energy ratio ln(E / E_F16) of a quantized format against its
// same-run baseline, and the log F16 energy ln E_F16 of the baseline itself.
#pragma once

#include <string>
#include <vector>

#include "data/data_row.hpp"

namespace ecocompute::decide {

/// Where a cell was measured: everything that names a configuration except the session.
struct CellPlace {
  std::string engine;     ///< "llama.cpp", "transformers+bitsandbytes", …
  std::string precision;  ///< "Q4_K_M", "NF4", … ("F16" for a baseline cell)
  std::string arch;       ///< "hopper", …
  std::string gpu;        ///< the GPU model, as the table names it ("H200"), else as measured
  double params_b = 0;
  int batch = 1;
  int context = 0;        ///< the context decoded at, beyond the baseline (data::DataRow::context_tokens); 0 at or below it
  friend bool operator==(const CellPlace&, const CellPlace&) = default;
};

/// One session's measurement of one place.
struct Cell {
  CellPlace place;
  std::string session_id;
  std::string model;        ///< the model measured ("synthetic Llama-3-8B shape")
  double value = 0;         ///< ln(E / E_F16) for a quantized cell, ln E_F16 (mJ/token) for a baseline cell
  double within_var = 0;    ///< variance of `value` within the session; 0 when the session gives none
  int rows = 0;             ///< stored rows averaged into it (replicates)
  int trials = 0;           ///< measured trials behind it
};

/// The GPU model a row's GPU name stands for (the GPU table's name where it knows it).
std::string gpu_model(const std::string& gpu_name);

/// Quantized cells: one per (session, place) of the measured rows with a same-run baseline. The
/// within-session variance comes from the rows' replicates, else the row's own paired 95 % CI or SD
/// of ΔE (carried to the log scale by the delta method), else it is 0.
std::vector<Cell> ratio_cells(const std::vector<data::DataRow>& rows);

/// Baseline cells: one per (session, engine, arch, GPU, size, batch, context), ln of the mean same-run FP16
/// energy of the session's rows there; the within variance from replicated baselines, else 0.
std::vector<Cell> fp16_cells(const std::vector<data::DataRow>& rows);

/// ΔE % of a log ratio: 100 (e^y − 1).
double delta_pct_of(double log_ratio);

}  // namespace ecocompute::decide
