// What the evidence covers, from the decision model: the published /v1/architectures shape (per
// architecture, per precision, the measured size range and the model's crossover size), our list of
// measured formats, and the model's ΔE along model size for the site's curves (its mean and 95 %
// predictive interval, the measured range marked).
#pragma once

#include <cstddef>
#include <optional>
#include <string>

#include "decide/evidence.hpp"
#include "util/json.hpp"

namespace ecocompute::decide {

/// The published label of an architecture ("Ampere (A100/A800)"), the input when unknown.
std::string architecture_label(std::string_view arch);

/// {"ada": {"label", "precisions": {"NF4": {"measured_range_b", "crossover_b", "engine", "engines"}}},
///  "hopper": {"label", "borrows_from": "ampere", "precisions": {}}, …}: ranges of batch-1
/// measurements, crossover from the model on the architecture's measured GPU at batch 1.
Json published_architectures_json(const Evidence& evidence);

/// How many curves /v1/curves lists: one per measured (architecture, engine, format).
std::size_t curve_count(const Evidence& evidence);

/// [{"arch", "formats": [{"engine", "precision", "gpus", "sizes_b", "batches", "sessions"}]}].
Json architectures_json(const Evidence& evidence);

/// One entry per measured (architecture, engine, precision): the model's ΔE at `batch` on log-spaced
/// sizes from half the smallest to twice the largest size measured at that batch ({params_b, delta_pct,
/// ci_low_pct, ci_high_pct, basis, in_range}), the range and the crossover. At batch 1 every measured
/// format has a curve; at another batch only the formats measured at it. Filters are optional.
Json curves_json(const Evidence& evidence, const std::optional<std::string>& arch, const std::optional<std::string>& precision,
                 int batch = 1);

}  // namespace ecocompute::decide
