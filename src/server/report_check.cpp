// Grading for /v1/check: through the typed report and the grader, as `ecocompute check` (our rules).
#include "server/report_check.hpp"

#include "report/report_consistency.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>

#include <fmt/format.h>

#include "decide/grader.hpp"
#include "report/energy_report.hpp"
#include "report/energy_schema.hpp"
#include "server/request_input.hpp"
#include "util/precision.hpp"

namespace ecocompute::server {
namespace {

std::string lower(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return std::tolower(c); });
  return text;
}


Json overlay_of(const report::EnergyReport& r) {
  const std::optional<double> delta = r.delta_from_energies() ? r.delta_from_energies() : r.results.vs_fp16_energy_pct;
  return Json{{"m", r.workload.model_name},
              {"N", json_or_null(r.workload.params_b)},
              {"a", lower(r.system_under_test.gpu_arch)},
              {"p", r.workload.precision},
              {"e", json_or_null(delta)},
              {"b", report::to_string(r.results.basis)},
              {"g", r.system_under_test.gpu}};
}

// The first of `names` present in `input`.
const Json* field(const Json& input, std::initializer_list<const char*> names) {
  for (const char* name : names) {
    if (input.contains(name) && !input[name].is_null()) return &input[name];
  }
  return nullptr;
}

Result<double> number_field(const Json& input, std::initializer_list<const char*> names) {
  const Json* v = field(input, names);
  const char* name = *names.begin();
  if (v == nullptr) return unexpected(ErrorCode::invalid_argument, fmt::format("'{}' is required", name));
  if (!v->is_number() || !std::isfinite(v->get<double>())) {
    return unexpected(ErrorCode::invalid_argument, fmt::format("'{}' must be a finite number", name));
  }
  return v->get<double>();
}

Result<std::string> text_field(const Json& input, std::initializer_list<const char*> names, std::string fallback) {
  const Json* v = field(input, names);
  if (v == nullptr) return fallback;
  if (!v->is_string()) return unexpected(ErrorCode::invalid_argument, fmt::format("'{}' must be text", *names.begin()));
  return v->get<std::string>();
}

}  // namespace

namespace {

Result<report::EnergyReport> uploaded_report(std::string_view body) {
  if (json_nesting_depth(body) > static_cast<int>(report::max_report_depth)) {
    return unexpected(ErrorCode::invalid_input,
                      fmt::format("energy.json is nested deeper than {} levels", report::max_report_depth));
  }
  auto parsed = parse_json(body, "energy.json");
  if (!parsed) return parsed.error();
  auto report = report::energy_report_from_json(*parsed, "energy.json");
  if (!report) return report.error();
  // A report whose figures contradict one another is not graded: which of them would be?
  if (auto contradiction = report::contradiction_error(*report, "energy.json")) return *contradiction;
  return report;
}

Json graded_with_overlay(const decide::GradeResult& grade, const report::EnergyReport& report) {
  Json out = Json(grade);
  out["overlay"] = overlay_of(report);
  return out;
}

}  // namespace

Result<Json> check_report(std::string_view body, const decide::Evidence& evidence) {
  auto report = uploaded_report(body);
  if (!report) return report.error();
  return graded_with_overlay(decide::grade_report(*report, evidence), *report);
}

Result<Json> check_report_published(std::string_view body, const data::PublishedReference& reference) {
  auto report = uploaded_report(body);
  if (!report) return report.error();
  return graded_with_overlay(decide::grade_report_published(*report, reference), *report);
}

Result<Json> check_point(const Json& input, const decide::Evidence& evidence) {
  auto params_b = number_field(input, {"params_b", "N"});
  if (!params_b) return params_b.error();
  auto delta = number_field(input, {"delta_pct", "e"});
  if (!delta) return delta.error();
  auto arch = text_field(input, {"arch", "a"}, "");
  if (!arch) return arch.error();
  if (arch->empty()) return unexpected(ErrorCode::invalid_argument, "'arch' is required");
  auto precision = text_field(input, {"precision", "p"}, "");
  if (!precision) return precision.error();
  auto info = parse_precision(*precision);
  if (!info) return Error{ErrorCode::invalid_argument, "'precision'", info.error()};
  auto basis_text = text_field(input, {"basis", "b"}, "measured");
  if (!basis_text) return basis_text.error();
  auto basis = data::parse_basis(*basis_text);
  if (!basis) return Error{ErrorCode::invalid_argument, "'basis'", basis.error()};
  auto engine = text_field(input, {"engine"}, std::string(info->default_engine));
  if (!engine) return engine.error();
  auto model = text_field(input, {"model", "m"}, "");
  if (!model) return model.error();
  auto gpu = text_field(input, {"gpu", "g"}, "");
  if (!gpu) return gpu.error();

  const decide::GradePoint point{lower(*arch), *engine, std::string(info->name), *params_b, *delta, *basis};
  Json out = Json(decide::grade_point(point, evidence));
  out["overlay"] = Json{{"m", *model}, {"N", *params_b}, {"a", point.gpu_arch}, {"p", point.precision},
                        {"e", *delta},  {"b", *basis_text}, {"g", *gpu}};
  return out;
}

}  // namespace ecocompute::server
