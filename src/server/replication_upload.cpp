// Upload checks: schema, basis consistency, reading and grading.
#include "server/replication_upload.hpp"

#include <fmt/format.h>

#include "data/dataset_import.hpp"
#include "decide/grader.hpp"
#include "report/energy_report.hpp"
#include "report/energy_schema.hpp"
#include "report/report_consistency.hpp"
#include "report/upload_rules.hpp"
#include "util/file_io.hpp"

namespace ecocompute::server {
namespace {

CheckedUpload reject(std::string message, std::vector<std::string> problems = {}) {
  return CheckedUpload{std::nullopt, UploadRejection{std::move(message), std::move(problems)}};
}

}  // namespace

std::string canonical_sha256(std::string_view report_text) {
  // Keys sorted, no insignificant whitespace, numbers re-printed: a re-serialised, reordered or
  // newline-terminated copy of a report has the same digest.
  const Json canonical = Json::parse(report_text, nullptr, false);
  return sha256_hex(canonical.is_discarded() ? std::string(report_text) : canonical.dump());
}

CheckedUpload check_upload(std::string_view body, const decide::Evidence& evidence) {
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
  auto report = report::energy_report_from_json(*parsed, "uploaded energy.json");
  if (!report) return reject(report.error().describe());
  if (const auto contradictions = report::find_contradictions(*report); !contradictions.empty()) {
    std::vector<std::string> lines;
    for (const report::Contradiction& c : contradictions) lines.push_back(c.field + ": " + c.message);
    return reject(fmt::format("uploaded energy.json contradicts itself ({} figure{} disagree{} with the others); it is "
                              "not stored",
                              lines.size(), lines.size() == 1 ? "" : "s", lines.size() == 1 ? "s" : ""),
                  std::move(lines));
  }
  if (auto violation = report::upload_rule_violation(*report)) return reject(*violation);

  auto batch = data::import_energy_report(*report, "uploaded energy.json");
  if (!batch) return reject(batch.error().describe());
  const decide::GradeResult graded = decide::grade_report(*report, evidence);

  auto text_or_absent = [](const std::string& v) { return v.empty() ? std::nullopt : std::optional<std::string>(v); };
  NewReplication r;
  // The canonical text is stored, never the bytes as sent: what a reader gets back is exactly the
  // document that was checked (no trailing bytes, no layout of the sender's), and its digest is the row's.
  r.report_json = Json(*parsed).dump();
  r.report_sha256 = sha256_hex(r.report_json);
  r.model_name = text_or_absent(report->workload.model_name);
  r.params_b = report->workload.params_b;
  r.gpu = text_or_absent(report->system_under_test.gpu);
  r.gpu_arch = text_or_absent(report->system_under_test.gpu_arch);
  r.precision = text_or_absent(report->workload.precision);
  if (report->engine) r.engine = text_or_absent(report->engine->name);
  if (!r.engine && !batch->rows.empty()) r.engine = batch->rows.front().engine;
  r.basis = std::string(report::to_string(report->results.basis));
  r.energy_per_token_mj = report->results.energy_per_token_mj;
  r.vs_fp16_energy_pct = report->results.vs_fp16_energy_pct;
  r.grade = std::string(decide::to_string(graded.grade));
  r.grade_reason = graded.reason;
  r.grade_json = Json(graded).dump();
  return CheckedUpload{std::move(r), std::nullopt};
}

Json replication_json(const Replication& r, bool with_report) {
  Json grade = Json::parse(r.grade_json, nullptr, false);
  if (grade.is_discarded()) grade = nullptr;
  Json out{{"id", r.id},
           {"received_at_utc", r.received_at_utc},
           {"report_sha256", r.report_sha256},
           {"model_name", json_or_null(r.model_name)},
           {"params_b", json_or_null(r.params_b)},
           {"gpu", json_or_null(r.gpu)},
           {"gpu_arch", json_or_null(r.gpu_arch)},
           {"precision", json_or_null(r.precision)},
           {"engine", json_or_null(r.engine)},
           {"basis", json_or_null(r.basis)},
           {"energy_per_token_mj", json_or_null(r.energy_per_token_mj)},
           {"vs_fp16_energy_pct", json_or_null(r.vs_fp16_energy_pct)},
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
