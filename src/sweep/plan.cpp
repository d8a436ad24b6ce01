// Reading a sweep plan: every field checked for type and range, unknown fields refused (a misspelt
// "trails" must not silently fall back to a default), each error naming the file and the field.
#include "sweep/plan.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "experiment/options_json.hpp"
#include "experiment/synthetic_source.hpp"
#include "util/defaults.hpp"
#include "util/file_io.hpp"

namespace ecocompute::sweep {
namespace {

namespace fs = std::filesystem;

// The keys of a plan that are the sweep's own; every other key is a design key (experiment's).
constexpr std::string_view kPlanKeys[] = {"name", "models", "batches", "gpus"};

// Design keys a plan may not give: the sweep sets them for each job, or (measure_args) they are gone.
const experiment::RefusedKeys& refused_design_keys() {
  static const experiment::RefusedKeys keys{
      {"measure_args", "is no longer read: every measure option is a design key of the plan itself, e.g. "
                       "\"prompt_lengths\": [128, 1024] for --prompt-lengths 128,1024 (docs/sweep.md lists them)"},
      {"model", "each job's model is one of \"models\""},
      {"gpu", "each job runs on one GPU of \"gpus\""},
      {"split_mode", "a job runs on one GPU (a model split over several is a `measure --gpus` run)"},
      {"out", "each job writes into <sweep folder>/jobs/<job id>"},
      {"cache_dir", "the jobs share the sweep's cache (`sweep run --cache-dir`)"},
  };
  return keys;
}

class FieldError {
 public:
  FieldError(std::string_view source) : source_(source) {}
  Error operator()(std::string_view field, std::string_view why) const {
    return Error{ErrorCode::invalid_input, fmt::format("{}: {}: {}", source_, field, why)};
  }
  /// An error of a design key, whose message already starts with the key.
  Error operator()(const Error& design) const {
    return Error{ErrorCode::invalid_input, fmt::format("{}: {}", source_, design.message())};
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
  // An unknown shape is found now, not when its job runs.
  if (auto known = experiment::check_synthetic_source({model.synth_arch, model.synth_type, model.synth_seed}); !known) {
    return fail(where + ".synth", known.error().message());
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

// Every key that is not the sweep's own is a design key: applied to the defaults by experiment's one
// mapping (an unknown key or value is refused there, naming the key), then checked as a whole.
Result<void> parse_design(const Json& d, SweepPlan& plan, const FieldError& fail) {
  for (const auto& [key, value] : d.items()) {
    if (std::find(std::begin(kPlanKeys), std::end(kPlanKeys), key) == std::end(kPlanKeys)) plan.design[key] = value;
  }
  if (auto applied = experiment::apply_options_json(plan.design, plan.settings, refused_design_keys()); !applied) {
    return fail(applied.error());
  }
  for (const std::vector<int>& batches : plan.batch_lists) {
    experiment::ExperimentOptions job = plan.settings;
    job.design.batches = batches;
    if (auto checked = experiment::check_options(job); !checked) return fail(checked.error());
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
  if (auto design = parse_design(d, plan, fail); !design) return design.error();
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
  Json out = plan.design;
  out["models"] = models;
  out["batches"] = plan.batch_lists;
  if (!plan.name.empty()) out["name"] = plan.name;
  out["gpus"] = plan.all_gpus ? Json("all") : Json(plan.gpus);
  return out;
}

}  // namespace ecocompute::sweep
