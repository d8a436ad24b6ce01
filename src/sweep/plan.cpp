// Reading a sweep plan: every field checked for type and range, unknown fields refused (a misspelt
// "trails" must not silently fall back to a default), each error naming the file and the field.
#include "sweep/plan.hpp"

#include <algorithm>
#include <cmath>
#include <set>

#include <fmt/format.h>

#include "util/defaults.hpp"
#include "util/file_io.hpp"

namespace ecocompute::sweep {
namespace {

namespace fs = std::filesystem;

// The flags a sweep sets itself for every job; giving them in measure_args would fight it.
const std::set<std::string, std::less<>> kOwnFlags{"-m", "--model", "-o", "--out", "--gpu", "--batch", "-p",
                                                   "--precisions", "--no-progress", "--baseline", "-k", "--trials",
                                                   "--warmups", "--tokens", "--min-window", "--min-prefill-window",
                                                   "--idle-window", "--cool-down", "--edges", "--no-quality",
                                                   "-t", "--threads", "--output"};

class FieldError {
 public:
  FieldError(std::string_view source) : source_(source) {}
  Error operator()(std::string_view field, std::string_view why) const {
    return Error{ErrorCode::invalid_input, fmt::format("{}: {}: {}", source_, field, why)};
  }

 private:
  std::string source_;
};

Result<void> refuse_unknown(const Json& object, std::initializer_list<std::string_view> known, std::string_view where,
                            const FieldError& fail) {
  for (const auto& [key, value] : object.items()) {
    if (std::find(known.begin(), known.end(), key) == known.end()) {
      return fail(where.empty() ? key : fmt::format("{}.{}", where, key), "unknown field (see docs/sweep.md)");
    }
  }
  return {};
}

Result<int> whole_number(const Json& value, std::string_view field, int low, int high, const FieldError& fail) {
  if (!value.is_number_integer() || value.get<std::int64_t>() < low || value.get<std::int64_t>() > high) {
    return fail(field, fmt::format("must be a whole number from {} to {}", low, high));
  }
  return value.get<int>();
}

Result<double> seconds(const Json& value, std::string_view field, const FieldError& fail) {
  if (!value.is_number() || !std::isfinite(value.get<double>()) || value.get<double>() < 0.0 ||
      value.get<double>() > 3600.0) {
    return fail(field, "must be a number of seconds from 0 to 3600");
  }
  return value.get<double>();
}

Result<std::string> text(const Json& value, std::string_view field, const FieldError& fail) {
  if (!value.is_string() || value.get<std::string>().empty()) return fail(field, "must be a non-empty string");
  return value.get<std::string>();
}

Result<PlanModel> parse_model(const Json& entry, std::size_t index, const fs::path& base_dir, const FieldError& fail) {
  const std::string where = fmt::format("models[{}]", index);
  PlanModel model;
  if (entry.is_string()) {
    auto path = text(entry, where, fail);
    if (!path) return path.error();
    model.path = fs::path(*path).is_absolute() ? fs::path(*path) : base_dir / *path;
    return model;
  }
  if (!entry.is_object()) return fail(where, "must be a GGUF path or an object {\"path\": …} or {\"synth\": …}");
  if (auto unknown = refuse_unknown(entry, {"path", "synth", "type", "seed"}, where, fail); !unknown) {
    return unknown.error();
  }
  if (entry.contains("path") == entry.contains("synth")) return fail(where, "needs exactly one of \"path\" and \"synth\"");
  if (entry.contains("path")) {
    if (entry.contains("type") || entry.contains("seed")) return fail(where, "\"type\" and \"seed\" belong to \"synth\"");
    auto path = text(entry["path"], where + ".path", fail);
    if (!path) return path.error();
    model.path = fs::path(*path).is_absolute() ? fs::path(*path) : base_dir / *path;
    return model;
  }
  auto arch = text(entry["synth"], where + ".synth", fail);
  if (!arch) return arch.error();
  model.synth_arch = *arch;
  if (entry.contains("type")) {
    auto type = text(entry["type"], where + ".type", fail);
    if (!type) return type.error();
    if (*type != "f16" && *type != "bf16" && *type != "f32") return fail(where + ".type", "must be f16, bf16 or f32");
    model.synth_type = *type;
  }
  if (entry.contains("seed")) {
    if (!entry["seed"].is_number_unsigned()) return fail(where + ".seed", "must be a whole number ≥ 0");
    model.synth_seed = entry["seed"].get<std::uint64_t>();
  }
  return model;
}

Result<std::vector<int>> parse_batch_list(const Json& list, std::string_view field, const FieldError& fail) {
  if (!list.is_array() || list.empty()) return fail(field, "must be a non-empty list of batch sizes");
  std::vector<int> out;
  for (std::size_t i = 0; i < list.size(); ++i) {
    auto batch = whole_number(list[i], fmt::format("{}[{}]", field, i), 1, defaults::max_measure_batch, fail);
    if (!batch) return batch.error();
    if (std::find(out.begin(), out.end(), *batch) != out.end()) {
      return fail(fmt::format("{}[{}]", field, i), fmt::format("batch {} is listed twice", *batch));
    }
    out.push_back(*batch);
  }
  return out;
}

// "batches": [1, 8] is one list (one job per model); [[1], [8, 16]] is one job per list and model.
Result<std::vector<std::vector<int>>> parse_batches(const Json& value, const FieldError& fail) {
  if (!value.is_array() || value.empty()) return fail("batches", "must be a list of batch sizes or a list of such lists");
  if (!value.front().is_array()) {
    auto one = parse_batch_list(value, "batches", fail);
    if (!one) return one.error();
    return std::vector<std::vector<int>>{*one};
  }
  std::vector<std::vector<int>> lists;
  for (std::size_t i = 0; i < value.size(); ++i) {
    auto list = parse_batch_list(value[i], fmt::format("batches[{}]", i), fail);
    if (!list) return list.error();
    lists.push_back(*list);
  }
  return lists;
}

Result<void> parse_window(const Json& window, PlanSettings& s, const FieldError& fail) {
  if (!window.is_object()) return fail("window", "must be an object");
  if (auto unknown = refuse_unknown(window, {"min_s", "min_prefill_s", "idle_s", "cool_down_s", "edges"}, "window", fail);
      !unknown) {
    return unknown.error();
  }
  const std::pair<const char*, std::optional<double>*> fields[] = {{"min_s", &s.min_window_s},
                                                                   {"min_prefill_s", &s.min_prefill_window_s},
                                                                   {"idle_s", &s.idle_window_s},
                                                                   {"cool_down_s", &s.cool_down_s}};
  for (const auto& [name, target] : fields) {
    if (!window.contains(name)) continue;
    auto value = seconds(window[name], fmt::format("window.{}", name), fail);
    if (!value) return value.error();
    *target = *value;
  }
  if (window.contains("edges")) {
    if (window["edges"] != "counter" && window["edges"] != "corrected") {
      return fail("window.edges", "must be \"counter\" or \"corrected\"");
    }
    s.edges = window["edges"].get<std::string>();
  }
  return {};
}

Result<void> parse_settings(const Json& d, PlanSettings& s, const FieldError& fail) {
  if (d.contains("baseline")) {
    auto baseline = text(d["baseline"], "baseline", fail);
    if (!baseline) return baseline.error();
    if (*baseline != "F16" && *baseline != "BF16" && *baseline != "F32") {
      return fail("baseline", "must be F16, BF16 or F32");
    }
    s.baseline = *baseline;
  }
  if (d.contains("precisions")) {
    const Json& list = d["precisions"];
    if (!list.is_array() || list.empty()) return fail("precisions", "must be a non-empty list of GGUF types");
    for (std::size_t i = 0; i < list.size(); ++i) {
      auto name = text(list[i], fmt::format("precisions[{}]", i), fail);
      if (!name) return name.error();
      if (name->find_first_of(", ") != std::string::npos) {
        return fail(fmt::format("precisions[{}]", i), "one GGUF type per item (no commas or spaces)");
      }
      s.precisions.push_back(*name);
    }
  }
  const std::tuple<const char*, std::optional<int>*, int, int> numbers[] = {
      {"trials", &s.trials, 1, 1000}, {"warmups", &s.warmups, 1, 1000}, {"tokens", &s.tokens, 1, 1 << 20},
      {"threads", &s.threads, 0, 1024}};
  for (const auto& [name, target, low, high] : numbers) {
    if (!d.contains(name)) continue;
    auto value = whole_number(d[name], name, low, high, fail);
    if (!value) return value.error();
    *target = *value;
  }
  if (d.contains("window")) {
    if (auto window = parse_window(d["window"], s, fail); !window) return window.error();
  }
  if (d.contains("quality")) {
    if (!d["quality"].is_boolean()) return fail("quality", "must be true or false");
    s.quality = d["quality"].get<bool>();
  }
  if (d.contains("measure_args")) {
    const Json& list = d["measure_args"];
    if (!list.is_array()) return fail("measure_args", "must be a list of strings");
    for (std::size_t i = 0; i < list.size(); ++i) {
      const std::string field = fmt::format("measure_args[{}]", i);
      if (!list[i].is_string()) return fail(field, "must be a string");
      const std::string arg = list[i].get<std::string>();
      const std::string flag = arg.substr(0, arg.find('='));
      if (kOwnFlags.contains(flag)) return fail(field, fmt::format("'{}' is set by the sweep itself (use the plan's own field)", flag));
      s.measure_args.push_back(arg);
    }
  }
  return {};
}

Result<void> parse_gpus(const Json& value, SweepPlan& plan, const FieldError& fail) {
  if (value.is_string()) {
    if (value != "all") return fail("gpus", "must be \"all\" or a list of GPU UUIDs (\"GPU-…\")");
    plan.all_gpus = true;
    return {};
  }
  if (!value.is_array() || value.empty()) return fail("gpus", "must be \"all\" or a non-empty list of GPU UUIDs");
  plan.all_gpus = false;
  for (std::size_t i = 0; i < value.size(); ++i) {
    const std::string field = fmt::format("gpus[{}]", i);
    if (!value[i].is_string() || !value[i].get<std::string>().starts_with("GPU-")) {
      return fail(field, "must be a GPU UUID (\"GPU-…\", as `nvidia-smi -L` prints it)");
    }
    const std::string uuid = value[i].get<std::string>();
    if (std::find(plan.gpus.begin(), plan.gpus.end(), uuid) != plan.gpus.end()) return fail(field, "listed twice");
    plan.gpus.push_back(uuid);
  }
  return {};
}

}  // namespace

Result<SweepPlan> parse_plan(const Json& d, std::string_view source, const fs::path& base_dir) {
  const FieldError fail(source);
  if (!d.is_object()) return fail("(top level)", "a plan is a JSON object");
  if (auto unknown = refuse_unknown(d, {"name", "models", "batches", "baseline", "precisions", "trials", "warmups", "tokens",
                                        "threads", "window", "quality", "measure_args", "gpus"},
                                    "", fail);
      !unknown) {
    return unknown.error();
  }
  SweepPlan plan;
  if (d.contains("name")) {
    auto name = text(d["name"], "name", fail);
    if (!name) return name.error();
    plan.name = *name;
  }
  if (!d.contains("models")) return fail("models", "missing (a list of GGUF paths or synthetic shapes)");
  if (!d["models"].is_array() || d["models"].empty()) return fail("models", "must be a non-empty list");
  for (std::size_t i = 0; i < d["models"].size(); ++i) {
    auto model = parse_model(d["models"][i], i, base_dir, fail);
    if (!model) return model.error();
    plan.models.push_back(*model);
  }
  plan.batch_lists = {{1}};
  if (d.contains("batches")) {
    auto lists = parse_batches(d["batches"], fail);
    if (!lists) return lists.error();
    plan.batch_lists = *lists;
  }
  if (auto settings = parse_settings(d, plan.settings, fail); !settings) return settings.error();
  if (d.contains("gpus")) {
    if (auto gpus = parse_gpus(d["gpus"], plan, fail); !gpus) return gpus.error();
  }
  return plan;
}

Result<SweepPlan> read_plan(const fs::path& path) {
  auto text = read_file(path);
  if (!text) return text.error();
  Json document = Json::parse(*text, nullptr, false);
  if (document.is_discarded()) return unexpected(ErrorCode::invalid_input, path.string() + ": not valid JSON");
  const fs::path base = fs::absolute(path).parent_path();
  return parse_plan(document, path.string(), base);
}

Json plan_to_json(const SweepPlan& plan) {
  Json models = Json::array();
  for (const PlanModel& m : plan.models) {
    if (m.synth_arch.empty()) {
      models.push_back(Json{{"path", fs::absolute(m.path).lexically_normal().string()}});
    } else {
      models.push_back(Json{{"synth", m.synth_arch}, {"type", m.synth_type}, {"seed", m.synth_seed}});
    }
  }
  const PlanSettings& s = plan.settings;
  Json out{{"models", models}, {"batches", plan.batch_lists}};
  if (!plan.name.empty()) out["name"] = plan.name;
  if (s.baseline) out["baseline"] = *s.baseline;
  if (!s.precisions.empty()) out["precisions"] = s.precisions;
  if (s.trials) out["trials"] = *s.trials;
  if (s.warmups) out["warmups"] = *s.warmups;
  if (s.tokens) out["tokens"] = *s.tokens;
  if (s.threads) out["threads"] = *s.threads;
  Json window = Json::object();
  if (s.min_window_s) window["min_s"] = *s.min_window_s;
  if (s.min_prefill_window_s) window["min_prefill_s"] = *s.min_prefill_window_s;
  if (s.idle_window_s) window["idle_s"] = *s.idle_window_s;
  if (s.cool_down_s) window["cool_down_s"] = *s.cool_down_s;
  if (s.edges) window["edges"] = *s.edges;
  if (!window.empty()) out["window"] = window;
  if (s.quality) out["quality"] = *s.quality;
  if (!s.measure_args.empty()) out["measure_args"] = s.measure_args;
  out["gpus"] = plan.all_gpus ? Json("all") : Json(plan.gpus);
  return out;
}

}  // namespace ecocompute::sweep
