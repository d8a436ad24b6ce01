// The one mapping from a JSON object to ExperimentOptions: each key names one field of the options or
// of their protocol::Design, checked with the limits of the `measure` flag that sets the same field. A
// sweep plan's measurement settings are such an object, so a plan job is an experiment design and an
// option added here reaches every sweep without a second spelling.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "experiment/experiment.hpp"
#include "util/json.hpp"
#include "util/result.hpp"

namespace ecocompute::experiment {

/// Keys a caller sets itself, each with what the document should say instead (e.g. for a sweep,
/// "gpu" → "each job runs on one GPU of the plan's \"gpus\"").
using RefusedKeys = std::map<std::string, std::string, std::less<>>;

/// Sets the fields of `options` that the keys of `object` name; a key left out leaves its field as it
/// is. The keys (docs/sweep.md, "Design keys"): baseline, precisions, trials, warmups, tokens,
/// iterations, threads, quality, prompt, prompt_lengths, target_ci_pt, min_trials, trial_warmup,
/// level_warmup_tokens, token_choice, order, seed, accept_throttled, n_gpu_layers, ctx, allow_shared,
/// require_energy, quality_text, quality_ctx, quality_stride, quality_max_tokens, and window {min_s,
/// min_prefill_s, idle_s, cool_down_s, edges, max_temperature_c}. An unknown key, a key in `refused`, a
/// value of the wrong type or out of range is an invalid_input error whose message starts with the key
/// ("window.min_s: must be …", "precisions[1]: …").
[[nodiscard]] Result<void> apply_options_json(const Json& object, ExperimentOptions& options,
                                              const RefusedKeys& refused = {});

/// Returns every key apply_options_json knows, a nested one as "window.min_s".
[[nodiscard]] std::vector<std::string> options_json_keys();

/// Checks the rules between fields that no single key can (min_trials ≤ trials, a target CI needs a
/// candidate): protocol::validate, which run_experiment applies first. The error names the key.
[[nodiscard]] Result<void> check_options(const ExperimentOptions& options);

}  // namespace ecocompute::experiment
