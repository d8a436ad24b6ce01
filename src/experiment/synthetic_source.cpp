// Synthetic sources through modelgen's writer.
#include "experiment/synthetic_source.hpp"

#include "modelgen/model_writer.hpp"
#include "modelgen/synthetic_model.hpp"
#include "util/log.hpp"

namespace ecocompute::experiment {

Result<void> check_synthetic_source(const SyntheticSource& source) {
  if (auto shape = modelgen::find_shape(source.arch); !shape) return shape.error();
  if (source.type != "f16" && source.type != "bf16" && source.type != "f32") {
    return unexpected(ErrorCode::invalid_argument, "type '" + source.type + "' must be f16, bf16 or f32");
  }
  return {};
}

Result<void> write_synthetic_source(const SyntheticSource& source, const std::filesystem::path& output) {
  if (auto checked = check_synthetic_source(source); !checked) return checked.error();
  auto type = modelgen::parse_weight_type(source.type);
  if (!type) return type.error();
  modelgen::SynthOptions options;
  options.arch = source.arch;
  options.type = *type;
  options.seed = source.seed;
  int last_percent = -1;
  options.on_progress = [&last_percent](const modelgen::WriteProgress& p) {
    const int percent = static_cast<int>(100.0 * static_cast<double>(p.bytes_written) / static_cast<double>(p.bytes_total));
    if (percent / 5 == last_percent / 5 && p.tensors_written != p.n_tensors) return;
    last_percent = percent;
    log::info("synth: {:3d}% {:.2f}/{:.2f} GB, tensor {}/{}", percent, static_cast<double>(p.bytes_written) / 1e9,
              static_cast<double>(p.bytes_total) / 1e9, p.tensors_written, p.n_tensors);
  };
  auto written = modelgen::write_synthetic_model(output, options);
  if (!written) return written.error();
  log::info("wrote {}: {} shape, {} parameters, {} weights (random, seed {})", written->path.string(), source.arch,
            written->n_params, source.type, source.seed);
  return {};
}

}  // namespace ecocompute::experiment
