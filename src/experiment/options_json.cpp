// JSON keys → ExperimentOptions. Each key is one row of a table: its name and the setter that checks
// the value and writes the field. The ranges are those of `measure`'s flags (src/cli/commands/measure.cpp)
// so a value a plan accepts is one `measure` accepts, and the other way round.
#include "experiment/options_json.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <span>

#include <fmt/format.h>

#include "engine/engine.hpp"
#include "protocol/design.hpp"
#include "util/precision.hpp"

namespace ecocompute::experiment {
namespace {

namespace fs = std::filesystem;

using Field = std::string;  // the key as the message names it ("window.min_s")
using Options = ExperimentOptions;
using Setter = Result<void> (*)(const Json& value, const Field& field, Options& options);

struct Key {
  std::string_view name;
  Setter set;
};

Error bad(const std::string& field, std::string_view why) {
  return Error{ErrorCode::invalid_input, fmt::format("{}: {}", field, why)};
}

// A whole number of low … high into `target` (an int, int64 or uint32 field).
template <typename T>
Result<void> set_whole(const Json& value, const std::string& field, std::int64_t low, std::int64_t high, T& target) {
  // JSON reads a whole number ≥ 0 as unsigned: compared as such, a value above 2^63 cannot wrap around.
  bool in_range = false;
  if (value.is_number_unsigned()) {
    const std::uint64_t n = value.get<std::uint64_t>();
    in_range = n <= static_cast<std::uint64_t>(high) && (low <= 0 || n >= static_cast<std::uint64_t>(low));
  } else if (value.is_number_integer()) {
    in_range = value.get<std::int64_t>() >= low && value.get<std::int64_t>() <= high;
  }
  if (!in_range) return bad(field, fmt::format("must be a whole number from {} to {}", low, high));
  target = static_cast<T>(value.get<std::int64_t>());
  return {};
}

Result<double> number(const Json& value, const std::string& field, double low, double high, std::string_view unit) {
  if (!value.is_number() || !std::isfinite(value.get<double>()) || value.get<double>() < low || value.get<double>() > high) {
    return bad(field, fmt::format("must be a number{} from {} to {}", unit, low, high));
  }
  return value.get<double>();
}

Result<void> set_seconds(const Json& value, const std::string& field, Seconds& target) {
  auto seconds = number(value, field, 0.0, 3600.0, " of seconds");
  if (!seconds) return seconds.error();
  target = Seconds{*seconds};
  return {};
}

Result<void> set_flag(const Json& value, const std::string& field, bool& target) {
  if (!value.is_boolean()) return bad(field, "must be true or false");
  target = value.get<bool>();
  return {};
}

Result<std::string> choice(const Json& value, const std::string& field, std::span<const std::string_view> allowed) {
  if (value.is_string() && std::find(allowed.begin(), allowed.end(), value.get<std::string>()) != allowed.end()) {
    return value.get<std::string>();
  }
  std::string names;
  for (std::string_view name : allowed) names += fmt::format("{}\"{}\"", names.empty() ? "" : " or ", name);
  return bad(field, "must be " + names);
}

Result<void> set_text(const Json& value, const std::string& field, std::string& target) {
  if (!value.is_string() || value.get<std::string>().empty()) return bad(field, "must be a non-empty string");
  target = value.get<std::string>();
  return {};
}

// "precisions": candidate GGUF types, each once and none the baseline (checked again by validate,
// whose message would name the design's field, "candidates", not the key).
Result<void> set_precisions(const Json& value, const std::string& field, ExperimentOptions& options) {
  if (!value.is_array() || value.empty()) return bad(field, "must be a non-empty list of GGUF types");
  std::vector<std::string> names;
  for (std::size_t i = 0; i < value.size(); ++i) {
    const std::string item = fmt::format("{}[{}]", field, i);
    if (!value[i].is_string()) return bad(item, "must be a GGUF type name (\"Q8_0\")");
    auto type = parse_gguf_type(value[i].get<std::string>());
    if (!type) return bad(item, type.error().message());
    const std::string name{to_string(*type)};
    if (std::find(names.begin(), names.end(), name) != names.end()) return bad(item, name + " is listed twice");
    names.push_back(name);
  }
  options.design.candidates = std::move(names);
  return {};
}

Result<void> set_prompt_lengths(const Json& value, const std::string& field, ExperimentOptions& options) {
  if (!value.is_array() || value.empty()) return bad(field, "must be a non-empty list of token counts");
  std::vector<std::int64_t> lengths;
  for (std::size_t i = 0; i < value.size(); ++i) {
    std::int64_t length = 0;
    const std::string item = fmt::format("{}[{}]", field, i);
    if (auto set = set_whole(value[i], item, 1, 1 << 20, length); !set) return set.error();
    if (std::find(lengths.begin(), lengths.end(), length) != lengths.end()) {
      return bad(item, fmt::format("{} is listed twice", length));
    }
    lengths.push_back(length);
  }
  options.design.prompt.lengths_tokens = std::move(lengths);
  return {};
}

Result<void> set_seed(const Json& value, const std::string& field, ExperimentOptions& options) {
  if (!value.is_number_unsigned()) return bad(field, "must be a whole number from 0 to 18446744073709551615");
  options.design.seed = value.get<std::uint64_t>();
  return {};
}

Result<void> set_quality_text(const Json& value, const std::string& field, ExperimentOptions& options) {
  std::string text;
  if (auto set = set_text(value, field, text); !set) return set.error();
  // A relative path would be read against whatever folder the run happens to start in.
  std::error_code ec;
  if (!fs::path(text).is_absolute() || !fs::is_regular_file(text, ec)) return bad(field, "must be the absolute path of a file");
  options.quality_text = text;
  return {};
}

// One of `allowed`, parsed into its enum.
template <typename T, typename Parse>
Result<void> set_enum(const Json& value, const std::string& field, std::span<const std::string_view> allowed, Parse parse,
                      T& target) {
  auto text = choice(value, field, allowed);
  if (!text) return text.error();
  auto parsed = parse(*text);
  if (!parsed) return bad(field, parsed.error().message());
  target = *parsed;
  return {};
}

constexpr std::string_view kBaselines[] = {"F16", "BF16", "F32"};
constexpr std::string_view kEdges[] = {"counter", "corrected"};
constexpr std::string_view kTrialWarmups[] = {"every", "change"};
constexpr std::string_view kPrefillWindows[] = {"every-batch", "first-batch"};
constexpr std::string_view kTokenChoices[] = {"device", "host"};
constexpr std::string_view kOrders[] = {"alternating", "shuffled"};

// "window": the lengths of the windows and the pause and gate before each trial.
constexpr Key kWindowKeys[] = {
    {"min_s", [](const Json& v, const Field& f, Options& o) { return set_seconds(v, f, o.design.min_window); }},
    {"min_prefill_s",
     [](const Json& v, const Field& f, Options& o) { return set_seconds(v, f, o.design.min_prefill_window); }},
    {"idle_s", [](const Json& v, const Field& f, Options& o) { return set_seconds(v, f, o.design.idle_window); }},
    {"cool_down_s",
     [](const Json& v, const Field& f, Options& o) { return set_seconds(v, f, o.design.cool_down.pause); }},
    {"edges",
     [](const Json& v, const Field& f, Options& o) -> Result<void> {
       auto edges = choice(v, f, kEdges);
       if (!edges) return edges.error();
       o.design.correct_edges = *edges == "corrected";
       return {};
     }},
    {"max_temperature_c",
     [](const Json& v, const Field& f, Options& o) -> Result<void> {
       auto celsius = number(v, f, 1.0, 120.0, " of °C");
       if (!celsius) return celsius.error();
       o.design.cool_down.max_temperature_c = *celsius;
       return {};
     }},
};

Result<void> apply_keys(const Json& object, const std::string& prefix, std::span<const Key> keys, ExperimentOptions& options,
                        const RefusedKeys& refused);

Result<void> set_window(const Json& v, const std::string& f, ExperimentOptions& o) {
  if (!v.is_object()) return bad(f, "must be an object");
  return apply_keys(v, f + ".", kWindowKeys, o, {});
}

constexpr Key kKeys[] = {
    {"baseline",
     [](const Json& v, const Field& f, Options& o) -> Result<void> {
       auto baseline = choice(v, f, kBaselines);
       if (!baseline) return baseline.error();
       o.design.baseline = *baseline;
       return {};
     }},
    {"precisions", set_precisions},
    {"trials", [](const Json& v, const Field& f, Options& o) { return set_whole(v, f, 1, 1000, o.design.trials); }},
    {"warmups", [](const Json& v, const Field& f, Options& o) { return set_whole(v, f, 1, 1000, o.design.warmups); }},
    {"tokens",
     [](const Json& v, const Field& f, Options& o) { return set_whole(v, f, 1, 1 << 20, o.design.tokens_per_iteration); }},
    {"iterations",
     [](const Json& v, const Field& f, Options& o) { return set_whole(v, f, 1, 100000, o.design.iterations); }},
    {"threads", [](const Json& v, const Field& f, Options& o) { return set_whole(v, f, 0, 1024, o.n_threads); }},
    {"quality", [](const Json& v, const Field& f, Options& o) { return set_flag(v, f, o.quality); }},
    {"window", set_window},
    {"prompt", [](const Json& v, const Field& f, Options& o) { return set_text(v, f, o.design.prompt.text); }},
    {"prompt_lengths", set_prompt_lengths},
    {"target_ci_pt",
     [](const Json& v, const Field& f, Options& o) -> Result<void> {
       auto points = number(v, f, 0.01, 100.0, " of percentage points");
       if (!points) return points.error();
       o.design.target_ci_pt = *points;
       return {};
     }},
    {"min_trials", [](const Json& v, const Field& f, Options& o) { return set_whole(v, f, 2, 1000, o.design.min_trials); }},
    {"trial_warmup",
     [](const Json& v, const Field& f, Options& o) {
       return set_enum(v, f, kTrialWarmups, protocol::parse_trial_warmup, o.design.trial_warmup);
     }},
    {"prefill_windows",
     [](const Json& v, const Field& f, Options& o) -> Result<void> {
       auto text = choice(v, f, kPrefillWindows);
       if (!text) return text.error();
       o.design.prefill_at_every_batch = *text == "every-batch";
       return {};
     }},
    {"level_warmup_tokens",
     [](const Json& v, const Field& f, Options& o) { return set_whole(v, f, 1, 1 << 20, o.design.level_warmup_tokens); }},
    {"token_choice",
     [](const Json& v, const Field& f, Options& o) {
       return set_enum(v, f, kTokenChoices, engine::parse_token_choice, o.token_choice);
     }},
    {"order",
     [](const Json& v, const Field& f, Options& o) {
       return set_enum(v, f, kOrders, protocol::parse_schedule_order, o.design.order);
     }},
    {"seed", set_seed},
    {"accept_throttled", [](const Json& v, const Field& f, Options& o) { return set_flag(v, f, o.design.accept_throttled); }},
    {"n_gpu_layers", [](const Json& v, const Field& f, Options& o) { return set_whole(v, f, -1, 100000, o.n_gpu_layers); }},
    {"ctx", [](const Json& v, const Field& f, Options& o) { return set_whole(v, f, 0, 1 << 24, o.n_ctx); }},
    {"allow_shared", [](const Json& v, const Field& f, Options& o) { return set_flag(v, f, o.allow_shared); }},
    {"require_energy", [](const Json& v, const Field& f, Options& o) { return set_flag(v, f, o.require_energy); }},
    {"quality_text", set_quality_text},
    {"quality_ctx",
     [](const Json& v, const Field& f, Options& o) { return set_whole(v, f, 16, 1 << 16, o.quality_policy.seq_len); }},
    {"quality_stride",
     [](const Json& v, const Field& f, Options& o) { return set_whole(v, f, 1, 1 << 16, o.quality_policy.stride); }},
    {"quality_max_tokens",
     [](const Json& v, const Field& f, Options& o) {
       return set_whole(v, f, 0, std::int64_t{1} << 40, o.quality_policy.max_tokens);
     }},
};

Result<void> apply_keys(const Json& object, const std::string& prefix, std::span<const Key> keys, ExperimentOptions& options,
                        const RefusedKeys& refused) {
  for (const auto& [name, value] : object.items()) {
    const std::string field = prefix + name;
    if (const auto why = refused.find(name); why != refused.end()) return bad(field, why->second);
    const auto key = std::find_if(keys.begin(), keys.end(), [&wanted = name](const Key& k) { return k.name == wanted; });
    if (key == keys.end()) return bad(field, "unknown field");
    if (auto set = key->set(value, field, options); !set) return set.error();
  }
  return {};
}

}  // namespace

Result<void> apply_options_json(const Json& object, ExperimentOptions& options, const RefusedKeys& refused) {
  if (!object.is_object()) return bad("(top level)", "the options are a JSON object");
  return apply_keys(object, "", kKeys, options, refused);
}

std::vector<std::string> options_json_keys() {
  std::vector<std::string> names;
  for (const Key& key : kKeys) {
    if (key.name != "window") names.emplace_back(key.name);
  }
  for (const Key& key : kWindowKeys) names.push_back(fmt::format("window.{}", key.name));
  return names;
}

Result<void> check_options(const ExperimentOptions& options) {
  if (std::find(options.design.candidates.begin(), options.design.candidates.end(), options.design.baseline) !=
      options.design.candidates.end()) {
    return bad("precisions", fmt::format("{} is the baseline; it is measured in every run anyway", options.design.baseline));
  }
  auto design = protocol::validate(options.design);
  if (!design) return Error{ErrorCode::invalid_input, design.error().message()};
  return {};
}

}  // namespace ecocompute::experiment
