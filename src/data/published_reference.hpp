// PublishedReference: what the published regression checker (ecocompute-mlcube
// tools/check_regression.py) grades against — the site's curves.json: per (architecture, precision)
// the fitted curve, its resid_std and the measured anchors it was fitted on, plus the architectures
// that borrow another's curve. Read from the shipped published files or from a curves.json.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "data/curve_fit.hpp"
#include "util/json.hpp"
#include "util/result.hpp"

namespace ecocompute::data {

/// One measured point a published curve was fitted on (curves.json `anchors`).
struct PublishedAnchor {
  double params_b = 0.0;
  double delta_pct = 0.0;  ///< ΔE % as curves.json states it (two decimals)
  int n = 1;
  std::string gpu;
  std::string model;
};

struct PublishedCurve {
  std::string gpu_arch;
  std::string precision;
  CurveParams params;
  double resid_std_pct = 0.0;
  std::vector<PublishedAnchor> anchors;
};

struct PublishedReference {
  std::string source;  ///< where it was read from, for the answer
  std::vector<PublishedCurve> curves;
  std::vector<std::pair<std::string, std::string>> borrow;  ///< architecture → the one whose curve it uses

  /// Returns the curve of (arch, precision), or nullptr.
  [[nodiscard]] const PublishedCurve* find(std::string_view gpu_arch, std::string_view precision) const;
  /// Returns the architecture whose curves `gpu_arch` borrows, if the borrow table names one.
  [[nodiscard]] std::optional<std::string> lender_of(std::string_view gpu_arch) const;
};

/// Reads the shipped published files of `dir`: published_curves.csv (the parameters) and
/// site_measured_fit_input.csv (the rows fitted, which curves.json lists as anchors), with the site's
/// borrow table (hopper → ampere).
Result<PublishedReference> read_published_reference(const std::filesystem::path& dir);

/// Reads a curves.json document ({"curves": {arch: {precision: {A, S, Nstar, resid_std, anchors: [{N,
/// dE, gpu, n, model}]}}}, "borrow": {arch: arch}}); `source` names it in errors.
Result<PublishedReference> published_reference_from_json(const Json& document, std::string_view source);

/// Reads a curves.json file.
Result<PublishedReference> read_published_reference_json(const std::filesystem::path& path);

}  // namespace ecocompute::data
