// Absolute energy per token from one session's rows: FP16 and a quantized format at one size, so that
// an answer's FP16 energy and its ΔE come from the same session (and, where they can, the same rows).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "data/basis.hpp"
#include "data/data_row.hpp"

namespace ecocompute::data {

/// An energy per token read from one session.
struct SessionEnergy {
  double mj_per_token = 0;
  Basis basis = Basis::unavailable;  ///< measured at that size, or interpolated / extrapolated in size
  std::string session_id;
  std::string gpu;
  std::string method;  ///< "mean of 2 measured rows" or "log-log fit of 5 sizes: E = 1065.6 mJ × N^0.735"
  int rows = 0;
};

/// Which rows of a session to read.
struct SessionRows {
  std::string session_id;
  std::string engine;
  std::string precision;  ///< the rows of this quantized precision (their same-run baselines) first
  int batch = 1;
};

/// FP16 energy per token at `params_b`: the mean same-run baseline of the rows at that size (measured),
/// else a least-squares fit of ln E = a + b·ln N over the session's sizes (interpolated inside them,
/// extrapolated outside). Rows of `precision` are used when the session has them at two or more sizes
/// (or at the size), else every row of the session. Absent with fewer than two sizes and none at `params_b`.
std::optional<SessionEnergy> session_fp16_energy(const std::vector<DataRow>& rows, const SessionRows& which, double params_b);

/// The quantized format's own measured energy per token at `params_b` in the session (mean of its rows);
/// absent when the session did not measure that size.
std::optional<SessionEnergy> session_quantized_energy(const std::vector<DataRow>& rows, const SessionRows& which,
                                                      double params_b);

/// The session whose baselines give FP16 energy for an (arch, engine) question when no quantized
/// precision's session applies: the most distinct sizes, then the most rows, then the newest.
std::optional<std::string> fp16_reference_session(const std::vector<DataRow>& rows, const std::vector<Session>& sessions,
                                                  const std::string& arch, const std::string& engine, int batch = 1);

}  // namespace ecocompute::data
