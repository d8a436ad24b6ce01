// Upload checks: schema, basis consistency, reading and grading.
#include "server/replication_upload.hpp"

#include <fmt/format.h>

#include "data/dataset_import.hpp"
#include "data/grader.hpp"
#include "report/energy_schema.hpp"
#include "util/file_io.hpp"

namespace ecocompute::server {
namespace {

CheckedUpload reject(std::string message, std::vector<std::string> problems = {}) {
  return CheckedUpload{std::nullopt, UploadRejection{std::move(message), std::move(problems)}};
}

std::optional<std::string> text_at(const OrderedJson& doc, const char* section, const char* key) {
  if (!doc.contains(section) || !doc[section].is_object()) return std::nullopt;
  const OrderedJson& s = doc[section];
  if (!s.contains(key) || !s[key].is_string()) return std::nullopt;
  return s[key].get<std::string>();
}

std::optional<double> number_at(const OrderedJson& doc, const char* section, const char* key) {
  if (!doc.contains(section) || !doc[section].is_object()) return std::nullopt;
  const OrderedJson& s = doc[section];
  if (!s.contains(key) || !s[key].is_number()) return std::nullopt;
  return s[key].get<double>();
}

// Bounds the 1.1 schema does not state (the 1.2 schema does): a size and energies a real run can have.
std::optional<std::string> implausible_number(const OrderedJson& doc) {
  const std::optional<double> params_b = number_at(doc, "workload", "params_b");
  if (params_b && !(*params_b > 0 && *params_b <= 100000)) {
    return fmt::format("workload.params_b {} is outside (0, 100000] billion parameters", *params_b);
  }
  for (const char* key : {"energy_per_token_mj", "fp16_energy_per_token_mj"}) {
    const std::optional<double> v = number_at(doc, "results", key);
    if (v && !(*v >= 0 && *v <= 1e7)) return fmt::format("results.{} {} is outside [0, 1e7] mJ", key, *v);
  }
  if (const auto pct = number_at(doc, "results", "vs_fp16_energy_pct"); pct && !(*pct >= -100 && *pct <= 1e6)) {
    return fmt::format("results.vs_fp16_energy_pct {} is outside [-100, 1e6] %", *pct);
  }
  return std::nullopt;
}

// The basis rules a 1.1 schema cannot state: a measured report carries its energy per token.
std::optional<std::string> basis_mismatch(const OrderedJson& doc) {
  const std::optional<std::string> basis = text_at(doc, "results", "basis");
  if (basis == "measured" && !number_at(doc, "results", "energy_per_token_mj")) {
    return "results.basis is \"measured\" but results.energy_per_token_mj is not a number: "
           "a measured report must carry its measured energy";
  }
  if (basis == "measured" && doc.contains("measurement_source") && doc["measurement_source"].is_string()) {
    const std::string source = doc["measurement_source"].get<std::string>();
    if (source == "none" || source.find("estimate") != std::string::npos ||
        source.find("interpolat") != std::string::npos || source.find("dataset") != std::string::npos) {
      return fmt::format("results.basis is \"measured\" but measurement_source \"{}\" is not a measurement", source);
    }
  }
  return std::nullopt;
}

}  // namespace

CheckedUpload check_upload(std::string_view body, const data::Evidence& evidence) {
  auto problems = report::validate_energy_text(body, "uploaded energy.json");
  if (!problems) return reject(problems.error().describe());
  if (!problems->empty()) {
    std::vector<std::string> lines;
    for (const report::SchemaProblem& p : *problems) {
      lines.push_back(fmt::format("{}: {}", p.pointer.empty() ? "/" : p.pointer, p.message));
    }
    const std::size_t count = lines.size();
    return reject(fmt::format("uploaded energy.json does not match the schema ({} problem{})", count,
                              count == 1 ? "" : "s"),
                  std::move(lines));
  }
  // Valid against the schema, so it is JSON of bounded depth.
  auto parsed = parse_json(body, "uploaded energy.json");
  if (!parsed) return reject(parsed.error().describe());
  const OrderedJson& doc = *parsed;
  if (auto mismatch = basis_mismatch(doc)) return reject(*mismatch);
  if (auto implausible = implausible_number(doc)) return reject(*implausible);

  auto batch = data::parse_energy_report(Json(doc), "uploaded energy.json");
  if (!batch) return reject(batch.error().describe());
  const data::GradeResult graded = data::grade(*batch, evidence);

  NewReplication r;
  r.report_json = std::string(body);
  r.report_sha256 = sha256_hex(body);
  r.model_name = text_at(doc, "workload", "model_name");
  r.params_b = number_at(doc, "workload", "params_b");
  r.gpu = text_at(doc, "system_under_test", "gpu");
  r.gpu_arch = text_at(doc, "system_under_test", "gpu_arch");
  r.precision = text_at(doc, "workload", "precision");
  r.engine = text_at(doc, "engine", "name");
  if (!r.engine && !batch->rows.empty()) r.engine = batch->rows.front().engine;
  r.basis = text_at(doc, "results", "basis");
  r.energy_per_token_mj = number_at(doc, "results", "energy_per_token_mj");
  r.vs_fp16_energy_pct = number_at(doc, "results", "vs_fp16_energy_pct");
  r.grade = std::string(data::to_string(graded.grade));
  r.grade_reason = graded.reason;
  r.grade_json = Json(graded).dump();
  return CheckedUpload{std::move(r), std::nullopt};
}

Json replication_json(const Replication& r, bool with_report) {
  auto opt_text = [](const std::optional<std::string>& v) { return v ? Json(*v) : Json(nullptr); };
  auto opt_number = [](const std::optional<double>& v) { return v ? Json(*v) : Json(nullptr); };
  Json grade = Json::parse(r.grade_json, nullptr, false);
  if (grade.is_discarded()) grade = nullptr;
  Json out{{"id", r.id},
           {"received_at_utc", r.received_at_utc},
           {"report_sha256", r.report_sha256},
           {"model_name", opt_text(r.model_name)},
           {"params_b", opt_number(r.params_b)},
           {"gpu", opt_text(r.gpu)},
           {"gpu_arch", opt_text(r.gpu_arch)},
           {"precision", opt_text(r.precision)},
           {"engine", opt_text(r.engine)},
           {"basis", opt_text(r.basis)},
           {"energy_per_token_mj", opt_number(r.energy_per_token_mj)},
           {"vs_fp16_energy_pct", opt_number(r.vs_fp16_energy_pct)},
           {"grade", r.grade},
           {"grade_reason", r.grade_reason},
           {"grade_detail", std::move(grade)}};
  if (with_report) {
    Json report = Json::parse(r.report_json, nullptr, false);
    out["report"] = report.is_discarded() ? Json(nullptr) : report;
  }
  return out;
}

}  // namespace ecocompute::server
