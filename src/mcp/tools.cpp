// The MCP tools: thin wrappers over the decision layer (estimate, optimize, architectures) and the plan
// of a measurement run.
#include "mcp/tool.hpp"

#include <cmath>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <filesystem>

#include "data/quality_text.hpp"
#include "decide/architectures.hpp"
#include "decide/estimate.hpp"
#include "data/gpu_spec.hpp"
#include "decide/optimizer.hpp"
#include "data/model_size.hpp"
#include "util/defaults.hpp"
#include "util/precision.hpp"

namespace ecocompute::mcp {
namespace {

Json string_prop(const std::string& description) { return Json{{"type", "string"}, {"description", description}}; }
Json number_prop(const char* description) { return Json{{"type", "number"}, {"description", description}}; }
Json integer_prop(const std::string& description, int minimum) {
  return Json{{"type", "integer"}, {"minimum", minimum}, {"description", description}};
}

Json estimate_schema() {
  return Json{{"type", "object"},
              {"properties",
               {{"params_b", number_prop("Model size in billions of parameters, e.g. 14")},
                {"model", string_prop("Model name the size is read from, e.g. Qwen2.5-14B (when params_b is not given)")},
                {"gpu", string_prop("GPU name, e.g. A100, RTX 4090, H200")},
                {"arch", string_prop("GPU architecture: turing, ampere, ada, hopper, blackwell (when gpu is not given)")},
                {"precision", string_prop(fmt::format("Quantized precision: NF4, INT8 or a GGUF type such as Q4_K_M "
                                                      "(default {})", defaults::estimate_precision))},
                {"engine", string_prop("Inference engine, e.g. llama.cpp or transformers+bitsandbytes (default: the precision's usual one)")},
                {"batch", integer_prop(fmt::format("Batch size (default {}; > 1 is modelled unless a session measured it)",
                                                   defaults::batch), 1)},
                {"ctx", integer_prop(fmt::format("Context length in tokens (default {}; beyond 2048 the fitted context effect, measured only where the answer says so)", defaults::context), 1)},
                {"context", integer_prop("Context length in tokens (the same as ctx)", 1)},
                {"query", string_prop("Plain-English question, e.g. '13B on A100 int8 batch 32 ctx 8k'; what it says "
                                      "overrides the structured fields")},
                {"allow_borrow", Json{{"type", "boolean"},
                                      {"description", "Answer from the nearest architecture's curve (labelled borrowed, wider "
                                                      "band) when this one has none; otherwise that is an error"}}}}},
              {"additionalProperties", false}};
}

Json optimize_schema() {
  Json schema = estimate_schema();
  Json& p = schema["properties"];
  p.erase("query");
  p["precision"] = string_prop("A single candidate precision (the published field; precisions takes a list)");
  p["batch"] = integer_prop("Pin the batch size (else the grid's batches are searched)", 1);
  p["context"] = integer_prop("Pin the context length (else the grid's contexts are searched)", 1);
  p["ctx"] = integer_prop("Pin the context length (the same as context)", 1);
  p["objective"] = Json{{"type", "string"},
                        {"enum", {"min_energy", "min_latency", "max_throughput", "min_vram"}},
                        {"description", "What to optimize (default min_energy)"}};
  p["max_latency_ms"] = number_prop("Longest acceptable time per generated token, ms");
  p["max_vram_gb"] = number_prop("Most GPU memory the configuration may use, GB");
  p["min_throughput"] = number_prop("Fewest tokens per second over the batch");
  p["max_delta_ppl_pct"] = number_prop("Largest acceptable perplexity increase vs FP16, % (e.g. 1 for 'nothing worse than +1 %')");
  p["max_kld"] = number_prop("Largest acceptable KL divergence vs FP16");
  p["precisions"] = Json{{"type", "array"},
                         {"items", {{"type", "string"}}},
                         {"description", fmt::format("Candidate precisions (default {})", fmt::join(defaults::optimize_precisions, ", "))}};
  p["batches"] = Json{{"type", "array"}, {"items", {{"type", "integer"}, {"minimum", 1}}}, {"description", "Candidate batch sizes"}};
  p["contexts"] = Json{{"type", "array"}, {"items", {{"type", "integer"}, {"minimum", 1}}}, {"description", "Candidate context lengths"}};
  return schema;
}

Json plan_schema() {
  return Json{{"type", "object"},
              {"properties",
               {{"model", string_prop("Path of the GGUF model to measure (its F16 file)")},
                {"precisions", Json{{"type", "array"}, {"items", {{"type", "string"}}},
                                    {"description", fmt::format("GGUF precisions to compare with the baseline (default {})",
                                                                fmt::join(defaults::candidates, ", "))}}},
                {"baseline", string_prop(fmt::format("Baseline precision (default {})", defaults::baseline))},
                {"trials", integer_prop(fmt::format("Trials per precision, interleaved with the baseline (default {})",
                                                    defaults::trials), 2)},
                {"out", string_prop("Folder for the energy.json reports (default results/<model name>)")}}},
              {"required", {"model"}},
              {"additionalProperties", false}};
}

std::string pct(const Json& v) { return v.is_number() ? fmt::format("{:+.1f} %", v.get<double>()) : "n/a"; }

// The schemas say additionalProperties: false; a misspelt argument would otherwise be dropped silently
// and the answer given for a question the caller did not ask.
Result<void> reject_unknown(const Json& arguments, const Json& schema) {
  if (!arguments.is_object()) return unexpected(ErrorCode::invalid_argument, "arguments must be an object");
  const Json& known = schema["properties"];
  for (const auto& [key, value] : arguments.items()) {
    if (!known.contains(key)) {
      std::vector<std::string> names;
      for (const auto& [name, prop] : known.items()) names.push_back(name);
      return unexpected(ErrorCode::invalid_argument,
                        fmt::format("unknown argument '{}' (this tool takes {})", key, fmt::join(names, ", ")));
    }
  }
  return {};
}

Result<ToolOutput> should_i_quantize(const Json& arguments, const decide::Evidence& evidence) {
  if (auto ok = reject_unknown(arguments, estimate_schema()); !ok) return ok.error();
  auto request = decide::estimate_request_from_json(arguments);
  if (!request) return request.error();
  auto answer = decide::estimate(*request, evidence);
  if (!answer) return answer.error();
  Json structured = Json(*answer);
  const decide::Prediction& p = answer->prediction;
  std::string text = fmt::format("{} (ΔE {} vs FP16, 95 % interval for your card {} … {}, basis {}: {}; recommendation {}).",
                                 answer->verdict, pct(structured.value("delta_pct", Json())), pct(Json(p.delta->low)),
                                 pct(Json(p.delta->high)), data::to_string(answer->basis), p.delta->basis.label, answer->recommendation);
  if (p.energy) {
    text += fmt::format(" Energy per token {:.0f} mJ [{:.0f}, {:.0f}] ({}).", p.energy->value, p.energy->low, p.energy->high,
                        p.energy->basis.label);
  }
  if (answer->basis != data::Basis::measured) {
    text += " This is an estimate, not a measurement: plan_measurement gives the command that measures it on your GPU.";
  }
  return ToolOutput{std::move(text), std::move(structured)};
}

Result<ToolOutput> recommend_config(const Json& arguments, const decide::Evidence& evidence) {
  if (auto ok = reject_unknown(arguments, optimize_schema()); !ok) return ok.error();
  auto request = decide::optimize_request_from_json(arguments);
  if (!request) return request.error();
  auto answer = decide::optimize(*request, evidence);
  if (!answer) return answer.error();
  Json structured = Json(*answer);
  std::string text;
  if (answer->recommended) {
    const decide::Candidate& c = *answer->recommended;
    text = fmt::format("Recommended: {} at batch {}, context {} ({} feasible candidates). Energy {}: {}; latency {}; "
                       "memory {}.", c.precision, c.batch, c.context, answer->feasible_count,
                       data::to_string(c.energy_basis.basis), c.energy_basis.label, data::to_string(c.latency_basis.basis),
                       data::to_string(c.vram_basis.basis));
    if (c.energy_basis.basis == data::Basis::modelled) text += " The recommendation rests on a model, not a measurement.";
    if (c.quality) text += " Quality: " + data::to_text(*c.quality) + " [" + std::string(data::to_string(c.quality->basis)) + "].";
  } else {
    text = "No candidate meets the constraints.";
    if (answer->closest_infeasible) {
      text += fmt::format(" Closest: {} at batch {} ({}).", answer->closest_infeasible->precision,
                          answer->closest_infeasible->batch,
                          fmt::join(answer->closest_infeasible->violations, "; "));
    }
  }
  return ToolOutput{std::move(text), std::move(structured)};
}

Result<ToolOutput> list_architectures(const decide::Evidence& evidence) {
  Json structured = decide::published_architectures_json(evidence);  // the published shape, ours beside it
  structured["architectures"] = decide::architectures_json(evidence);
  structured["known"] = data::known_architectures();
  structured["curve_source"] = decide::kCurveSource;
  std::string text = "Measured (architecture / engine / precision: sizes):";
  for (const Json& arch : structured["architectures"]) {
    for (const Json& f : arch["formats"]) {
      const auto& sizes = f["sizes_b"];
      text += fmt::format(" {}/{}/{} ({:.1f}–{:.1f} B);", arch["arch"].get<std::string>(), f["engine"].get<std::string>(),
                          f["precision"].get<std::string>(), sizes.front().get<double>(), sizes.back().get<double>());
    }
  }
  if (text.back() == ';') text.back() = '.';
  return ToolOutput{std::move(text), std::move(structured)};
}

}  // namespace

std::string shell_quote(const std::string& text) {
  const bool plain = !text.empty() && text.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                                                             "0123456789_./:=,+-") == std::string::npos;
  if (plain) return text;
  std::string out = "'";
  for (const char c : text) {
    if (c == '\'') {
      out += "'\\''";
    } else {
      out += c;
    }
  }
  return out + "'";
}

// The GGUF types to measure: the argument `precisions` (an array, or "Q8_0,Q4_K_M"), each checked and
// spelt as llama.cpp does; the default candidates when absent.
Result<std::vector<std::string>> plan_precisions(const Json& arguments) {
  std::vector<std::string> precisions{defaults::candidates.begin(), defaults::candidates.end()};
  if (arguments.contains("precisions") && !arguments["precisions"].is_null()) {
    const Json& list = arguments["precisions"];
    precisions.clear();
    if (list.is_string()) {  // "Q8_0,Q4_K_M" is accepted too
      std::string item;
      for (const char c : list.get<std::string>() + ",") {
        if (c == ',') {
          if (!item.empty()) precisions.push_back(item);
          item.clear();
        } else if (c != ' ') {
          item += c;
        }
      }
    } else if (list.is_array()) {
      for (const Json& p : list) {
        if (!p.is_string()) return unexpected(ErrorCode::invalid_argument, "argument 'precisions' must hold strings");
        precisions.push_back(p.get<std::string>());
      }
    } else {
      return unexpected(ErrorCode::invalid_argument, "argument 'precisions' must be an array of strings");
    }
    if (precisions.empty()) return unexpected(ErrorCode::invalid_argument, "argument 'precisions' is empty");
  }
  for (std::string& p : precisions) {
    auto info = parse_precision(p);
    if (!info) return Error{ErrorCode::invalid_argument, fmt::format("argument 'precisions': {}", p), info.error()};
    if (!info->is_gguf()) {
      return unexpected(ErrorCode::invalid_argument,
                        fmt::format("argument 'precisions': {} is not a GGUF type; `ecocompute measure` quantizes "
                                    "GGUF models (Q8_0, Q4_K_M, …)", p));
    }
    p = std::string(info->name);
  }
  return precisions;
}

Result<Json> plan_measurement(const Json& arguments) {
  if (!arguments.is_object()) return unexpected(ErrorCode::invalid_argument, "arguments must be an object");
  auto text = [&](const char* key, std::string fallback) -> Result<std::string> {
    if (!arguments.contains(key) || arguments[key].is_null()) return fallback;
    if (!arguments[key].is_string() || arguments[key].get<std::string>().empty()) {
      return unexpected(ErrorCode::invalid_argument, fmt::format("argument '{}' must be a non-empty string", key));
    }
    return arguments[key].get<std::string>();
  };
  auto model = text("model", "");
  if (!model) return model.error();
  if (model->empty()) return unexpected(ErrorCode::invalid_argument, "argument 'model' (a GGUF file path) is required");
  auto baseline = text("baseline", std::string(defaults::baseline));
  if (!baseline) return baseline.error();

  auto precisions = plan_precisions(arguments);
  if (!precisions) return precisions.error();
  int trials = defaults::trials;
  if (arguments.contains("trials") && !arguments["trials"].is_null()) {
    const Json& t = arguments["trials"];
    if (!t.is_number_integer() || t.get<long long>() < 2 || t.get<long long>() > 100) {
      return unexpected(ErrorCode::invalid_argument, "argument 'trials' must be a whole number in 2..100 (a CI needs ≥ 2)");
    }
    trials = static_cast<int>(t.get<long long>());
  }
  // Only a .gguf extension is dropped: "Qwen2.5-7B" names a model, and its ".5-7B" is no extension.
  const std::filesystem::path model_path(*model);
  std::string stem = (model_path.extension() == ".gguf" ? model_path.stem() : model_path.filename()).string();
  if (stem.empty()) stem = "model";
  auto out = text("out", "results/" + stem);
  if (!out) return out.error();

  std::string joined;
  for (const std::string& p : *precisions) joined += (joined.empty() ? "" : ",") + p;
  const std::vector<std::string> argv{"ecocompute", "measure",      "--model", *model,  "--baseline",
                                      *baseline,    "--precisions", joined,    "--trials", std::to_string(trials),
                                      "--out",      *out};
  std::string command;
  for (const std::string& a : argv) command += (command.empty() ? "" : " ") + shell_quote(a);
  return Json{{"command", command},
              {"argv", argv},
              {"reports", *out},
              {"notes",
               {"--model must be the F16 (or BF16/F32) GGUF file of the model: measure quantizes it to each "
                "precision itself and compares them with it; convert a Hugging Face checkpoint with llama.cpp's "
                "convert_hf_to_gguf.py --outtype f16 first.",
                "Run it on the GPU and engine you want the answer for: energy per token depends on both.",
                fmt::format("Each precision runs {} trials interleaved with the {} baseline; the report gives the "
                            "paired ΔE with its 95 % CI.", trials, *baseline),
                fmt::format("Then grade a report against the curve with `ecocompute check {}/<report>.json`, or "
                            "drop it on the web UI's \"Run it yourself\" tab.", shell_quote(*out))}}};
}

std::vector<Tool> make_tools(const decide::Evidence& evidence) {
  std::vector<Tool> tools;
  tools.push_back(Tool{
      "should_i_quantize", "Should I quantize?",
      "Answers whether quantizing a model of a given size to a precision saves energy per token versus FP16 on a GPU "
      "(or architecture) and engine: ΔE % with its 95 % interval for the user's card, the energy per token, whether it "
      "fits in the GPU's memory, the basis of each figure (measured, interpolated, "
      "extrapolated, borrowed, modelled, unavailable, with the sessions and GPU behind it), a recommendation (quantize / do_not_quantize / depends), the crossover size and the "
      "quality cost of the format (perplexity change with its interval, KLD where known, with its own basis: measured, "
      "published, transferred, measured_on_fixture or none, and its source). An estimate is never presented as a measurement.",
      estimate_schema(), [&evidence](const Json& a) { return should_i_quantize(a, evidence); }});
  tools.push_back(Tool{
      "recommend_config", "Recommend a configuration",
      "Recommends the precision, batch and context for a model on a GPU under an objective (min_energy, min_latency, "
      "max_throughput, min_vram) and constraints (latency, memory, throughput, and quality such as 'nothing worse "
      "than +1 % perplexity': a format passes only when its whole quality interval is under the ceiling), with each "
      "candidate's quality cost and its basis, the energy/latency Pareto front and the closest infeasible candidate.",
      optimize_schema(), [&evidence](const Json& a) { return recommend_config(a, evidence); }});
  tools.push_back(Tool{"list_architectures", "List architectures",
                       "Lists the GPU architectures, engines and precisions measured, with each one's measured sizes, "
                       "batches and GPUs and the decision model's crossover size.",
                       Json{{"type", "object"}, {"properties", Json::object()}, {"additionalProperties", false}},
                       [&evidence](const Json& a) -> Result<ToolOutput> {
                         if (auto ok = reject_unknown(a, Json{{"properties", Json::object()}}); !ok) return ok.error();
                         return list_architectures(evidence);
                       }});
  tools.push_back(Tool{"plan_measurement", "Plan a measurement",
                       "Returns the exact `ecocompute measure` command that answers the question on the user's own "
                       "GPU: the baseline and the quantized precisions of a GGUF model, k interleaved trials each, "
                       "reports written to a folder.",
                       plan_schema(), [](const Json& a) -> Result<ToolOutput> {
                         if (auto ok = reject_unknown(a, plan_schema()); !ok) return ok.error();
                         auto plan = plan_measurement(a);
                         if (!plan) return plan.error();
                         std::string text = "Run: " + (*plan)["command"].get<std::string>();
                         return ToolOutput{std::move(text), std::move(plan).value()};
                       }});
  return tools;
}

}  // namespace ecocompute::mcp
