// A synthetic source model (a real shape with random weights) as a measurement's input: checked when a
// plan names it, written when its job runs. The same writer as `ecocompute synth`, without its flags.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>

#include "util/result.hpp"

namespace ecocompute::experiment {

struct SyntheticSource {
  std::string arch;          ///< a shape `ecocompute synth --list` names ("llama3-8b")
  std::string type = "f16";  ///< storage type of the weight matrices: f16, bf16 or f32
  std::uint64_t seed = 1;    ///< same seed, same bytes
};

/// Checks that the shape is known and the type one of f16, bf16, f32; the error names the value.
[[nodiscard]] Result<void> check_synthetic_source(const SyntheticSource& source);

/// Writes the model to `output` (through a temporary name, renamed only when whole: a file at `output`
/// is a complete model), logging progress every 5 %.
[[nodiscard]] Result<void> write_synthetic_source(const SyntheticSource& source, const std::filesystem::path& output);

}  // namespace ecocompute::experiment
