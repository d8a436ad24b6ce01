// The API's routes.
#include "server/api.hpp"

#include <algorithm>
#include <charconv>
#include <limits>
#include <set>
#include <cmath>

#include <fmt/format.h>

#include "data/gpu_spec.hpp"
#include "decide/architectures.hpp"
#include "decide/estimate.hpp"
#include "decide/grader.hpp"
#include "decide/optimizer.hpp"
#include "decide/quality_answer.hpp"
#include "ecocompute/build_info.hpp"
#include "server/api_error.hpp"
#include "server/openapi.hpp"
#include "server/report_check.hpp"
#include "util/file_io.hpp"
#include "util/json_sink.hpp"
#include "util/log.hpp"
#include "util/number_list.hpp"
#include "util/quoted_input.hpp"
#include "server/request_input.hpp"

namespace ecocompute::server {
namespace {

// A question the decision layer cannot answer (unknown GPU, architecture or precision) is a bad
// request, as the published API answers it: 400, not 404.
Error as_bad_request(Error error) {
  if (error.code() == ErrorCode::not_found) return Error{ErrorCode::invalid_argument, error.message()};
  return error;
}

HttpResponse ok_json(const Json& body, int status = 200) { return json_response(status, json_text(body)); }

// An answer written straight to text: the bytes json_text gives of its document, without the document
// (a new estimate or optimize answer spent about a third of its time building and freeing one).
template <typename Answer>
std::string written_json(const Answer& answer) {
  std::string body;
  body.reserve(32768);
  JsonTextSink sink(body);
  decide::write_json(sink, answer);
  return body;
}

// The input as an error echoes it: each text cut to max_quoted_input_bytes and each list to its first
// 32 items, so an error never carries a client's 15,000-digit question back whole.
Json bounded_echo(const Json& input) {
  if (input.is_string()) return shortened_input(input.get_ref<const std::string&>());
  Json out = input;
  if (input.is_object()) {
    for (auto& [key, value] : out.items()) value = bounded_echo(value);
  } else if (input.is_array()) {
    constexpr std::size_t kItems = 32;
    if (out.size() > kItems) out.erase(out.begin() + kItems, out.end());
    for (Json& value : out) value = bounded_echo(value);
  }
  return out;
}

// A question that cannot be answered: 400 with `error` and, as the published API answers, the `input`
// it was asked with (so a client sees what was read from its query or free text).
HttpResponse bad_question(const Error& error, const Json& input) {
  HttpResponse response = error_response(as_bad_request(error));
  Json body = Json::parse(response.body, nullptr, false);
  if (body.is_object()) {
    body["input"] = bounded_echo(input);
    response.body = json_text(body);
  }
  return response;
}

// Reads an optional whole-number query parameter within [min, max]; the error names it.
Result<std::optional<int>> int_param(const HttpRequest& request, const std::string& name, int min, int max) {
  const auto text = request.param(name);
  if (!text) return std::optional<int>{};
  int value = 0;
  const auto [end, ec] = std::from_chars(text->data(), text->data() + text->size(), value);
  if (ec != std::errc{} || end != text->data() + text->size() || value < min || value > max) {
    return unexpected(ErrorCode::invalid_argument,
                      fmt::format("query parameter '{}' must be a whole number in {}..{}", name, min, max));
  }
  return std::optional<int>{value};
}

}  // namespace

std::string json_text(const Json& value) { return value.dump(-1, ' ', false, Json::error_handler_t::replace); }

Api::Api(const decide::Evidence& evidence, ReplicationStore& store, StaticFiles files, ApiOptions options,
         std::shared_ptr<const Clock> clock)
    : evidence_(evidence),
      published_reference_(data::read_published_reference(data_dir() / "published")),
      store_(store),
      files_(std::move(files)),
      options_(options),
      limiter_(options.rate_limit_per_minute, std::move(clock)),
      router_(limiter_, CorsPolicy(options_.write_origins)),
      answers_(std::make_shared<AnswerCache>(options_.answer_cache_entries)) {
  const RouteOptions uncounted{.max_body_bytes = default_max_body_bytes, .writes = false, .rate_limited = false};
  auto route_of = [this](Result<HttpResponse> (Api::*route)(const HttpRequest&) const) {
    return [this, route](const HttpRequest& request) { return (this->*route)(request); };
  };
  add("GET", "/healthz", route_of(&Api::healthz),
      RouteOptions{.max_body_bytes = default_max_body_bytes, .writes = false, .rate_limited = false, .cache_control = "no-store"});
  add("GET", "/openapi.json",
      [](const HttpRequest&) -> Result<HttpResponse> { return json_response(200, openapi_document()); },
      uncounted);
  // A grid search, a report to validate and grade: work that grows with the request runs on the
  // server's bounded pool (RouteOptions::expensive), so /healthz and estimates never wait behind it.
  const RouteOptions expensive{.expensive = true};
  for (const char* method : {"GET", "POST"}) {
    add(method, "/v1/estimate", route_of(&Api::estimate));
    add(method, "/v1/optimize", route_of(&Api::optimize), expensive);
  }
  add("GET", "/v1/architectures", route_of(&Api::architectures));
  add("GET", "/v1/curves", route_of(&Api::curves));
  add("GET", "/v1/atlas", route_of(&Api::atlas), expensive);  // 49 estimates by default
  // Uploads change these: a cache must ask again each time.
  const RouteOptions changing{.cache_control = "no-cache"};
  add("GET", "/v1/measurements", route_of(&Api::measurements), changing);
  add("GET", "/v1/check", route_of(&Api::check));
  // Grading stores nothing, so other origins may ask; reports are larger than the published 8 KiB.
  add("POST", "/v1/check", route_of(&Api::check),
      RouteOptions{.max_body_bytes = options_.max_upload_bytes, .writes = false, .rate_limited = true, .expensive = true});
  add("GET", "/v1/replications", route_of(&Api::list_replications), changing);
  // Storing is a write: JSON only, and no CORS answer to other origins unless the deployment lists them.
  add("POST", "/v1/replications", route_of(&Api::post_replication),
      RouteOptions{.max_body_bytes = options_.max_upload_bytes, .writes = true, .rate_limited = true, .expensive = true});
  router_.set_fallback([this](const HttpRequest& request) { return files_.serve(request); });
  std::sort(routes_.begin(), routes_.end());
}

void Api::add(const std::string& method, const std::string& path, Handler handler, RouteOptions options) {
  router_.add(method, path, std::move(handler), options);
  routes_.push_back(method + " " + path);
}

Result<HttpResponse> Api::kept_answer(const char* route, const Json& input,
                                      const std::function<Result<HttpResponse>()>& answer) const {
  // The question as read (a GET's query and a POST's body alike), keys sorted: the same question asked
  // again, by either method, finds its answer.
  const std::string key = std::string(route) + '\n' + json_text(input);
  if (auto body = answers_->find(key)) {
    HttpResponse response = json_response(200, std::move(*body));
    response.set_header("X-Answer-Cache", "hit");
    return response;
  }
  auto response = answer();
  if (response && response->status == 200) {
    answers_->put(key, response->body);
    response->set_header("X-Answer-Cache", "miss");
  }
  return response;
}

Result<HttpResponse> Api::estimate(const HttpRequest& request) const {
  auto input = request_input(request);
  if (!input) return input.error();
  return kept_answer("estimate", *input, [&]() -> Result<HttpResponse> {
    auto question = decide::estimate_request_from_json(*input);
    if (!question) return bad_question(question.error(), *input);
    auto answer = decide::estimate(*question, evidence_);
    if (!answer) return bad_question(answer.error(), *input);
    return json_response(200, written_json(*answer));
  });
}

Result<HttpResponse> Api::optimize(const HttpRequest& request) const {
  auto input = request_input(request, {"precisions", "batches", "contexts"});
  if (!input) return input.error();
  // Query strings carry every list item as text or number; the optimizer wants names as strings.
  if (input->contains("precisions")) {
    for (Json& p : (*input)["precisions"]) {
      if (p.is_number()) p = p.dump();
    }
  }
  return kept_answer("optimize", *input, [&]() -> Result<HttpResponse> {
    auto question = decide::optimize_request_from_json(*input);
    if (!question) return bad_question(question.error(), *input);
    // A request cut by its CPU budget is an error, so only whole answers are kept.
    const CpuBudget budget(options_.request_cpu_budget);
    auto answer = decide::optimize(*question, evidence_, &budget);
    if (!answer) return bad_question(answer.error(), *input);
    return json_response(200, written_json(*answer));
  });
}

Result<HttpResponse> Api::architectures(const HttpRequest&) const {
  // The published shape (one key per architecture) with ours beside it: a published client reads
  // answer[arch], ours reads answer.architectures.
  Json answer = decide::published_architectures_json(evidence_);
  answer["architectures"] = decide::architectures_json(evidence_);
  answer["known"] = data::known_architectures();
  answer["curve_source"] = decide::kCurveSource;
  return ok_json(std::move(answer));
}

Result<HttpResponse> Api::curves(const HttpRequest& request) const {
  // The decision model's ΔE along size per measured format: drawn from half the smallest measured size
  // to twice the largest, the measured range marked (in_range); outside it the UI dashes the line.
  // ?batch=N: the curves at batch N of the formats measured at it (the site draws the curve of the
  // batch whose points it shows); without it, batch 1, as the published API answers.
  const auto arch = request.param("arch");
  const auto precision = request.param("precision");
  int batch = 1;
  if (const auto text = request.param("batch")) {
    auto parsed = parse_number_list(*text, NumberListRules{.what = "batch", .noun = "batch size", .min = 1, .max = 4096, .max_items = 1});
    if (!parsed) return error_response(as_bad_request(parsed.error()));
    batch = static_cast<int>(parsed->front());
  }
  return ok_json(Json{{"curve_source", decide::kCurveSource}, {"batch", batch},
                      {"curves", decide::curves_json(evidence_, arch, precision, batch)}});
}

Result<HttpResponse> Api::atlas(const HttpRequest& request) const {
  if (options_.atlas_sizes.empty()) return error_response(404, "this server has no atlas sizes");
  const std::set<std::string> known{"gpu", "engine", "precision", "batches"};
  for (const auto& [name, value] : request.query) {
    if (!known.contains(name)) {
      return error_response(400, "unknown parameter '" + shortened_input(name) + "' (known: gpu, engine, precision, batches)");
    }
  }
  decide::AtlasQuery query;
  query.sizes = options_.atlas_sizes;
  if (const auto gpu = request.param("gpu")) query.gpu = *gpu;
  if (const auto engine = request.param("engine")) query.engine = *engine;
  if (const auto precision = request.param("precision")) query.precision = *precision;
  if (const auto batches = request.param("batches")) {
    auto parsed = decide::parse_atlas_batches(*batches, "batches");
    if (!parsed) return error_response(as_bad_request(parsed.error()));
    query.batches = std::move(*parsed);
  }
  return json_response(200, report::atlas_json(decide::atlas_grid(evidence_, query)).dump());
}

Result<HttpResponse> Api::measurements(const HttpRequest& request) const {
  const auto arch = request.param("arch") ? request.param("arch") : request.param("gpu_arch");
  const auto engine = request.param("engine");
  const auto precision = request.param("precision");
  const auto session = request.param("session");
  const auto model = request.param("model");
  Json rows = Json::array();
  for (const data::DataRow& row : evidence_.rows) {
    if ((arch && row.gpu_arch != *arch) || (engine && row.engine != *engine) ||
        (precision && row.precision != *precision) || (session && row.session_id != *session) ||
        (model && row.model != *model)) {
      continue;
    }
    Json j = row;
    // Synthetic weights have no perplexity: the format's quality cost for that model, with its own basis.
    if (auto quality = decide::row_quality(evidence_, row)) j["quality_cost"] = *quality;
    rows.push_back(std::move(j));
  }
  Json sessions = Json::array();
  for (const data::Session& s : evidence_.sessions) sessions.push_back(Json(s));
  return ok_json(Json{{"count", rows.size()}, {"rows", std::move(rows)}, {"sessions", std::move(sessions)}});
}

Result<HttpResponse> Api::check(const HttpRequest& request) const {
  Result<Json> graded = [&]() -> Result<Json> {
    const auto rules_text = request.query.find("rules");
    if (rules_text != request.query.end()) {
      auto rules = decide::parse_grading_rules(rules_text->second);
      if (!rules) return Error{ErrorCode::invalid_argument, "'rules'", rules.error()};
      if (*rules == decide::GradingRules::published) {
        if (request.method != "POST") {
          return unexpected(ErrorCode::invalid_argument,
                            "'rules': published grades an energy.json (POST /v1/check?rules=published); a share "
                            "link's point is graded by our rules");
        }
        if (!published_reference_) {
          return Error{ErrorCode::unavailable, "the published curves and anchors", published_reference_.error()};
        }
        return check_report_published(request.body, *published_reference_);
      }
    }
    if (request.method == "POST") return check_report(request.body, evidence_);
    auto input = request_input(request);
    if (!input) return input.error();
    return check_point(*input, evidence_);
  }();
  if (!graded) return as_bad_request(graded.error());
  return ok_json(*graded);
}

Result<HttpResponse> Api::post_replication(const HttpRequest& request) const {
  if (options_.write_keys) {
    const std::optional<std::string> holder = options_.write_keys->holder(request.header("authorization").value_or(""));
    if (!holder) {
      HttpResponse refused = error_response(
          401, "storing a replication needs a write key: ask the operator of this server for one (they make it with "
               "`ecocompute keys add NAME --file FILE` and serve with --write-keys FILE), then send it as "
               "`Authorization: Bearer <key>`. Reads, /v1/check included, need no key");
      refused.set_header("WWW-Authenticate", "Bearer realm=\"ecocompute uploads\"");
      return refused;
    }
    log::info("upload with the write key of {}", *holder);
  }
  CheckedUpload checked = check_upload(request.body, evidence_);
  if (checked.rejection) {
    Json body{{"error", checked.rejection->message}, {"code", "invalid_input"}};
    if (!checked.rejection->problems.empty()) body["problems"] = checked.rejection->problems;
    return ok_json(body, 400);
  }
  auto stored = store_.insert(*checked.replication);
  if (!stored) return stored.error();
  Json body = replication_json(stored->replication, false);
  body["created"] = stored->created;
  HttpResponse response = ok_json(body, stored->created ? 201 : 200);
  response.set_header("Location", fmt::format("/v1/replications?id={}", stored->replication.id));
  return response;
}

Result<HttpResponse> Api::list_replications(const HttpRequest& request) const {
  const bool with_report = request.param("include") == "report";
  if (request.param("id")) {
    auto id = int_param(request, "id", 1, std::numeric_limits<int>::max());
    if (!id) return id.error();
    auto found = store_.find(**id);
    if (!found) return found.error();
    if (!*found) return unexpected(ErrorCode::not_found, fmt::format("no replication with id {}", **id));
    return ok_json(replication_json(**found, true));
  }
  ReplicationQuery query;
  if (auto a = request.param("arch")) query.gpu_arch = *a;
  if (auto p = request.param("precision")) query.precision = *p;
  auto limit = int_param(request, "limit", 1, 500);
  if (!limit) return limit.error();
  auto offset = int_param(request, "offset", 0, std::numeric_limits<int>::max());
  if (!offset) return offset.error();
  query.limit = limit->value_or(50);
  query.offset = offset->value_or(0);
  auto rows = store_.list(query);
  if (!rows) return rows.error();
  auto total = store_.count(query);
  if (!total) return total.error();
  Json list = Json::array();
  for (const Replication& r : *rows) list.push_back(replication_json(r, with_report));
  return ok_json(Json{{"total", *total}, {"limit", query.limit}, {"offset", query.offset}, {"replications", std::move(list)}});
}

Result<HttpResponse> Api::healthz(const HttpRequest&) const {
  std::size_t places = 0;
  for (const auto& [name, family] : evidence_.model->ratio.families()) places += family.locations().size();
  auto total = store_.count({});
  if (!total) return Error{ErrorCode::unavailable, "replications store unreachable", total.error()};
  return ok_json(Json{{"status", "ok"},
                      {"version", build_info::version},
                      {"commit", build_info::git_commit()},
                      {"replications", *total},
                      {"curves", decide::curve_count(evidence_)},
                      {"places", places},
                      {"rows", evidence_.rows.size()},
                      {"curve_source", decide::kCurveSource}});
}

}  // namespace ecocompute::server
