// Tests of the API's routes called directly (no socket): estimate, optimize, architectures, curves,
// measurements, replications (upload, grading, bad-upload corpus), OpenAPI coverage, static files.
#include "server/api.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>

#include "server_test_support.hpp"
#include "support/golden.hpp"
#include "support/session_evidence.hpp"
#include "decide/estimate.hpp"
#include "decide/prediction.hpp"
#include "util/defaults.hpp"
#include "util/json.hpp"

namespace ecocompute::server {
namespace {
using testing::fixture_report;
using testing::get;
using testing::post;

class ApiTest : public testing::ApiFixture {
 protected:
  // A static file under a subfolder, and a file beside web/ that must never be served.
  void add_files() override {
    std::filesystem::create_directories(dir_ / "web/assets");
    ASSERT_TRUE(write_file_atomic(dir_ / "web/assets/app.js", "console.log(1);"));
    ASSERT_TRUE(write_file_atomic(dir_ / "secret.txt", "do not serve"));
  }
  std::int64_t stored() { return *store_->count({}); }
};

TEST_F(ApiTest, EstimateAnswersGetAndPostAlike) {
  const Json by_get = call(get("/v1/estimate", {{"params_b", "7"}, {"arch", "ada"}, {"precision", "NF4"}}), 200);
  const Json by_post = call(post("/v1/estimate", R"({"params_b": 7, "arch": "ada", "precision": "NF4"})"), 200);
  EXPECT_EQ(by_get, by_post);
  EXPECT_EQ(by_get["arch_used"], "ada");
  for (const char* field : {"input", "delta_pct", "ci", "basis", "confidence", "recommendation", "verdict",
                            "crossover_b", "anchors", "arch_used", "modelled", "weight_gb", "weight_gb_fp16", "notes"}) {
    EXPECT_TRUE(by_get.contains(field)) << field;
  }
  const std::set<std::string> recommendations{"quantize", "do_not_quantize", "depends"};
  EXPECT_TRUE(recommendations.contains(by_get["recommendation"].get<std::string>()));
}

TEST_F(ApiTest, EstimateBadInputIs400NamingTheField) {
  Json e = call(get("/v1/estimate", {{"params_b", "-3"}, {"arch", "ada"}}), 400);
  EXPECT_NE(e["error"].get<std::string>().find("params_b"), std::string::npos) << e;
  e = call(get("/v1/estimate", {{"params_b", "7"}, {"arch", "nosucharch"}}), 400);
  EXPECT_NE(e["error"].get<std::string>().find("nosucharch"), std::string::npos) << e;
  call(post("/v1/estimate", "{not json"), 400);
  call(post("/v1/estimate", "[1,2]"), 400);
  call(post("/v1/estimate", R"({"params_b": "NaN", "arch": "ada"})"), 400);
  call(post("/v1/estimate", R"({"params_b": 1e999, "arch": "ada"})"), 400);
  call(post("/v1/estimate", std::string(50, '[') + std::string(50, ']')), 400);
  EXPECT_EQ(api_->handle(post("/v1/estimate", std::string(8 * 1024 + 1, ' '))).status, 413);
}

TEST_F(ApiTest, OptimizeTakesListsFromTheQuery) {
  const Json by_get = call(get("/v1/optimize", {{"params_b", "7"}, {"gpu", "RTX 4090"}, {"precisions", "FP16,NF4"},
                                                {"batches", "1,8"}}),
                           200);
  const Json by_post = call(post("/v1/optimize", R"({"params_b": 7, "gpu": "RTX 4090", "precisions": ["FP16", "NF4"],
                                                     "batches": [1, 8]})"),
                            200);
  EXPECT_EQ(by_get, by_post);
  for (const char* field : {"input", "basis", "feasible_count", "notes", "recommended", "closest_infeasible",
                            "alternatives", "pareto_energy_latency"}) {
    EXPECT_TRUE(by_get.contains(field)) << field;
  }
  call(get("/v1/optimize", {{"params_b", "7"}, {"gpu", "RTX 4090"}, {"objective", "fastest"}}), 400);
}

TEST_F(ApiTest, ArchitecturesListWhatIsMeasured) {
  const Json a = call(get("/v1/architectures"), 200);
  EXPECT_EQ(a["curve_source"], "store");
  std::set<std::string> archs;
  for (const Json& entry : a["architectures"]) archs.insert(entry["arch"].get<std::string>());
  // The published sessions measured ada, ampere, blackwell and turing; ours hopper.
  EXPECT_EQ(archs, (std::set<std::string>{"ada", "ampere", "blackwell", "hopper", "turing"}));
}

TEST_F(ApiTest, CurvesCarryTheModelsSamplesForDrawing) {
  const Json c = call(get("/v1/curves", {{"arch", "ada"}, {"precision", "NF4"}}), 200);
  EXPECT_EQ(c["curve_source"], "store");
  ASSERT_EQ(c["curves"].size(), 1u);
  const Json& curve = c["curves"][0];
  EXPECT_EQ(curve["source"], "model");
  ASSERT_EQ(curve["samples"].size(), 41u);
  // Drawn from 0.5/2 = 0.25 B to 7 × 2 = 14 B (ada NF4 is measured at 0.5–7 B).
  EXPECT_NEAR(curve["samples"].front()["params_b"].get<double>(), 0.25, 1e-9);
  EXPECT_NEAR(curve["samples"].back()["params_b"].get<double>(), 14.0, 1e-9);
  EXPECT_EQ(curve["range_min_b"], 0.5);
  EXPECT_EQ(curve["range_max_b"], 7.0);
  for (const Json& s : curve["samples"]) {
    EXPECT_LE(s["ci_low_pct"].get<double>(), s["delta_pct"].get<double>());
    EXPECT_GE(s["ci_high_pct"].get<double>(), s["delta_pct"].get<double>());
    const double n = s["params_b"].get<double>();
    EXPECT_EQ(s["in_range"].get<bool>(), n >= 0.5 && n <= 7.0) << n;
  }
  // Each sample is what /v1/estimate answers there (one model behind both).
  const Json& at = curve["samples"][20];
  const Json e = call(get("/v1/estimate", {{"params_b", at["params_b"].dump()}, {"arch", "ada"}, {"precision", "NF4"}}), 200);
  EXPECT_NEAR(e["delta_pct"].get<double>(), at["delta_pct"].get<double>(), 1e-9);
}

TEST_F(ApiTest, CurvesAtABatchAreTheModelAtThatBatchForTheFormatsMeasuredThere) {
  const Json one = call(get("/v1/curves", {{"arch", "hopper"}, {"precision", "Q4_K_M"}}), 200);
  const Json eight = call(get("/v1/curves", {{"arch", "hopper"}, {"precision", "Q4_K_M"}, {"batch", "8"}}), 200);
  EXPECT_EQ(one["batch"], 1);
  EXPECT_EQ(eight["batch"], 8);
  const auto llama_cpp = [](const Json& list) {
    return std::find_if(list.begin(), list.end(), [](const Json& c) { return c["engine"] == "llama.cpp"; });
  };
  ASSERT_NE(llama_cpp(eight["curves"]), eight["curves"].end());
  const Json& curve = *llama_cpp(eight["curves"]);
  EXPECT_EQ(curve["batch"], 8);
  EXPECT_EQ(curve["engine"], "llama.cpp");
  // Each sample is /v1/estimate at batch 8, and differs from the batch-1 curve at the same size.
  const Json& at = curve["samples"][20];
  const Json e = call(get("/v1/estimate", {{"params_b", at["params_b"].dump()}, {"arch", "hopper"}, {"precision", "Q4_K_M"},
                                           {"engine", "llama.cpp"}, {"batch", "8"}}),
                      200);
  EXPECT_NEAR(e["delta_pct"].get<double>(), at["delta_pct"].get<double>(), 1e-9);
  const Json& llama_one = *llama_cpp(one["curves"]);
  EXPECT_EQ(llama_one["batch"], 1);
  EXPECT_GT(at["delta_pct"].get<double>() - llama_one["samples"][20]["delta_pct"].get<double>(), 20.0)
      << "batch 8 costs where batch 1 saves (the atlas)";
  // A format never measured at a batch has no curve there (ada NF4: batch 1 only).
  EXPECT_TRUE(call(get("/v1/curves", {{"arch", "ada"}, {"precision", "NF4"}, {"batch", "8"}}), 200)["curves"].empty());
  for (const char* bad : {"0", "4097", "x", "1,8", ""}) {
    const Json error = call(get("/v1/curves", {{"batch", bad}}), 400);
    EXPECT_NE(error["error"].get<std::string>().find("batch"), std::string::npos) << bad << ": " << error.dump();
  }
}

TEST_F(ApiTest, MeasurementsFilterRows) {
  const Json all = call(get("/v1/measurements"), 200);
  const Json ada_int8 = call(get("/v1/measurements", {{"arch", "ada"}, {"precision", "INT8"}}), 200);
  EXPECT_GT(all["count"].get<int>(), ada_int8["count"].get<int>());
  EXPECT_GT(ada_int8["count"].get<int>(), 0);
  for (const Json& row : ada_int8["rows"]) {
    EXPECT_EQ(row["gpu_arch"], "ada");
    EXPECT_EQ(row["precision"], "INT8");
  }
}

// The field table's ranges and the members every 1.2 report needs hold for uploads: a figure outside
// its range is refused naming the field, its value and the range (in a 1.1 report too, whose schema
// bounds next to nothing), and a 1.2 report without a member the table requires is refused naming it.
TEST_F(ApiTest, AnUploadOutsideARangeOrWithoutANeededMemberIsRefusedNamingIt) {
  OrderedJson no_size = fixture_report();
  no_size["workload"]["params_b"] = 0;
  const HttpResponse sized = api_->handle(post("/v1/replications", no_size.dump()));
  EXPECT_EQ(sized.status, 400);
  EXPECT_NE(sized.body.find("workload.params_b 0 is outside (0, 100000] billions"), std::string::npos) << sized.body;

  const OrderedJson run = read_json_file(ecocompute::testing::golden_path("energy/energy-Q8_0.json")).value();
  OrderedJson hot = run;
  hot["trials"][0]["decode"]["energy_j"] = 2e9;
  const HttpResponse out_of_range = api_->handle(post("/v1/replications", hot.dump()));
  EXPECT_EQ(out_of_range.status, 400);
  EXPECT_NE(out_of_range.body.find("/trials/0/decode/energy_j: 2e+09 is outside [0, 1e+09] J"), std::string::npos)
      << out_of_range.body;
  OrderedJson unseeded = run;
  unseeded["measurement"].erase("seed");
  const HttpResponse missing = api_->handle(post("/v1/replications", unseeded.dump()));
  EXPECT_EQ(missing.status, 400);
  EXPECT_NE(missing.body.find("/measurement"), std::string::npos) << missing.body;
  EXPECT_NE(missing.body.find("'seed'"), std::string::npos) << missing.body;
  EXPECT_EQ(stored(), 0);
}

TEST_F(ApiTest, AnUploadIsGradedStoredAndListed) {
  const std::string body = testing::fixture("rtx4090_qwen2.5-3b_nf4.energy.json");
  const HttpResponse created = api_->handle(post("/v1/replications", body));
  ASSERT_EQ(created.status, 201) << created.body;
  const Json c = Json::parse(created.body);
  EXPECT_EQ(c["created"], true);
  EXPECT_EQ(c["model_name"], "Qwen/Qwen2.5-3B");
  EXPECT_EQ(c["gpu_arch"], "ada");
  EXPECT_EQ(c["basis"], "measured");
  // Measured (3584.88 − 3557.99)/3557.99 = +0.756 %, inside the model's 95 % interval for a new
  // RTX 4090 at 3 B NF4 (about −21 … +9 %).
  EXPECT_EQ(c["grade"], "inside") << c;
  EXPECT_EQ(created.header("Location"), "/v1/replications?id=" + std::to_string(c["id"].get<int>()));
  EXPECT_FALSE(created.header("Access-Control-Allow-Origin"));

  // The same report again: 200 with the same row.
  const Json again = call(post("/v1/replications", body), 200);
  EXPECT_EQ(again["id"], c["id"]);
  EXPECT_EQ(again["created"], false);

  const Json list = call(get("/v1/replications"), 200);
  EXPECT_EQ(list["total"], 1);
  ASSERT_EQ(list["replications"].size(), 1u);
  EXPECT_FALSE(list["replications"][0].contains("report"));
  const Json one = call(get("/v1/replications", {{"id", std::to_string(c["id"].get<int>())}}), 200);
  EXPECT_EQ(one["report"]["workload"]["params_b"], 3.0);
  call(get("/v1/replications", {{"id", "424242"}}), 404);
  call(get("/v1/replications", {{"limit", "0"}}), 400);
}

TEST_F(ApiTest, CopiesOfAReportDifferingOnlyInLayoutAreOneReport) {
  const std::string body = testing::fixture("rtx4090_qwen2.5-3b_nf4.energy.json");
  const Json first = call(post("/v1/replications", body), 201);
  OrderedJson reordered = OrderedJson::object();
  const OrderedJson original = OrderedJson::parse(body);
  for (auto it = original.rbegin(); it != original.rend(); ++it) reordered[it.key()] = it.value();
  for (const std::string& copy : {original.dump(), original.dump(4), reordered.dump(), body + "\n", "\n " + body}) {
    const Json again = call(post("/v1/replications", copy), 200);
    EXPECT_EQ(again["id"], first["id"]) << copy.substr(0, 40);
    EXPECT_EQ(again["created"], false);
  }
  EXPECT_EQ(stored(), 1);
}

TEST_F(ApiTest, BadUploadsAreRefusedAndNothingIsStored) {
  OrderedJson wrong_type = fixture_report();
  wrong_type["workload"]["batch_size"] = "one";
  OrderedJson missing = fixture_report();
  missing.erase("results");
  OrderedJson huge = fixture_report();
  huge["results"]["energy_per_token_mj"] = 1e308;
  OrderedJson mismatch = fixture_report();  // says measured, carries no energy
  mismatch["results"]["energy_per_token_mj"] = nullptr;
  OrderedJson estimate_as_measured = fixture_report();
  estimate_as_measured["measurement_source"] = "dataset-interpolation";
  OrderedJson tdp_estimate = fixture_report();
  tdp_estimate["measurement_source"] = "Estimated (TDP x time)";
  OrderedJson unsourced = fixture_report();
  unsourced.erase("measurement_source");
  OrderedJson overstated = fixture_report();  // energies give +0.756 %
  overstated["results"]["vs_fp16_energy_pct"] = -90.0;
  OrderedJson wrong_version = fixture_report();
  wrong_version["schema_version"] = "ecocompute-energy/9.9";
  std::string nan_text = fixture_report().dump();
  nan_text.replace(nan_text.find("3584.88"), 7, "NaN");

  const std::vector<std::pair<std::string, std::string>> corpus{
      {"not JSON", "this is not json"},
      {"empty", ""},
      {"array", "[1, 2, 3]"},
      {"wrong type", wrong_type.dump()},
      {"missing results", missing.dump()},
      {"huge number", huge.dump()},
      {"NaN", nan_text},
      {"basis mismatch", mismatch.dump()},
      {"estimate labelled measured", estimate_as_measured.dump()},
      {"TDP estimate labelled measured", tdp_estimate.dump()},
      {"measured without a source", unsourced.dump()},
      {"stated delta the energies contradict", overstated.dump()},
      {"unknown schema version", wrong_version.dump()},
      {"deeply nested", std::string(10000, '[') + std::string(10000, ']')},
      {"deeply nested object", "{\"schema_version\":" + std::string(5000, '[') + std::string(5000, ']') + "}"},
  };
  for (const auto& [name, body] : corpus) {
    const HttpResponse r = api_->handle(post("/v1/replications", body));
    EXPECT_EQ(r.status, 400) << name << ": " << r.body;
    const Json error = Json::parse(r.body, nullptr, false);
    ASSERT_TRUE(error.is_object()) << name;
    EXPECT_TRUE(error["error"].is_string()) << name;
  }
  const HttpResponse mismatch_answer = api_->handle(post("/v1/replications", mismatch.dump()));
  EXPECT_NE(Json::parse(mismatch_answer.body)["error"].get<std::string>().find("measured"), std::string::npos);
  // 10 MB body: over the 256 KiB upload limit.
  EXPECT_EQ(api_->handle(post("/v1/replications", std::string(10 * 1024 * 1024, 'x'))).status, 413);
  EXPECT_EQ(stored(), 0);
}

TEST_F(ApiTest, OpenApiDescribesEveryRoute) {
  const Json doc = call(get("/openapi.json"), 200);
  EXPECT_EQ(doc["openapi"], "3.1.0");
  for (const std::string& route : api_->routes()) {
    const auto space = route.find(' ');
    std::string method = route.substr(0, space);
    for (char& ch : method) ch = static_cast<char>(std::tolower(ch));
    const std::string path = route.substr(space + 1);
    EXPECT_TRUE(doc["paths"].contains(path) && doc["paths"][path].contains(method)) << route;
  }
  EXPECT_EQ(api_->routes().size(), 14u);  // GET+POST estimate, optimize and check, 6 more /v1 routes, healthz, openapi
}

TEST_F(ApiTest, OpenApiStatesTheDefaultsTheHandlersUse) {
  const Json doc = call(get("/openapi.json"), 200);
  std::map<std::string, Json> estimate;
  for (const Json& p : doc["paths"]["/v1/estimate"]["get"]["parameters"]) {
    if (p["schema"].contains("default")) estimate[p["name"].get<std::string>()] = p["schema"]["default"];
  }
  EXPECT_EQ(estimate["precision"], std::string(defaults::estimate_precision));
  EXPECT_EQ(estimate["batch"], defaults::batch);
  EXPECT_EQ(estimate["ctx"], defaults::context);
  const Json& request = doc["components"]["schemas"]["EstimateRequest"]["properties"];
  EXPECT_EQ(request["precision"]["default"], std::string(defaults::estimate_precision));
  EXPECT_EQ(request["ctx"]["default"], defaults::context);
  EXPECT_EQ(doc["components"]["schemas"]["OptimizeRequest"]["properties"]["precisions"]["default"].size(),
            defaults::optimize_precisions.size());
  // What the handler does when nothing is given is what the document says.
  const Json answer = call(get("/v1/estimate", {{"params_b", "7"}, {"arch", "ada"}}), 200);
  EXPECT_EQ(answer["input"]["precision"], std::string(defaults::estimate_precision)) << answer["input"];
}

TEST_F(ApiTest, CheckGradesAReportWithoutStoringIt) {
  const std::string body = testing::fixture("rtx4090_qwen2.5-3b_nf4.energy.json");
  const Json graded = call(post("/v1/check", body), 200);
  // As `ecocompute check` and the upload: +0.756 % against the ada NF4 curve's 6.758 % ± 22.96 → inside.
  EXPECT_EQ(graded["grade"], "inside") << graded;
  EXPECT_EQ(graded["exit_code"], 0);
  EXPECT_NEAR(graded["measured_delta_pct"].get<double>(), 0.7557, 1e-3);
  EXPECT_EQ(graded["overlay"], (Json{{"m", "Qwen/Qwen2.5-3B"}, {"N", 3.0}, {"a", "ada"}, {"p", "NF4"},
                                     {"e", graded["measured_delta_pct"]}, {"b", "measured"}, {"g", "RTX 4090"}}));
  EXPECT_EQ(stored(), 0);
  // The share link's point gets the same grade.
  const Json point = call(get("/v1/check", {{"N", "3"}, {"a", "ada"}, {"p", "NF4"}, {"e", "0.76"}, {"b", "measured"}}), 200);
  EXPECT_EQ(point["grade"], "inside") << point;
  EXPECT_EQ(point["curve"], graded["curve"]);
  // Far from the curve: outside; not a measurement: not gradeable.
  EXPECT_EQ(call(get("/v1/check", {{"N", "3"}, {"a", "ada"}, {"p", "NF4"}, {"e", "60"}}), 200)["grade"], "outside");
  EXPECT_EQ(call(get("/v1/check", {{"N", "3"}, {"a", "ada"}, {"p", "NF4"}, {"e", "6"}, {"b", "interpolated"}}), 200)["grade"],
            "not_gradeable");
}

TEST_F(ApiTest, CheckRefusesWhatIsNotAReportOrAPoint) {
  Json e = call(get("/v1/check", {{"a", "ada"}, {"p", "NF4"}, {"e", "1"}}), 400);
  EXPECT_NE(e["error"].get<std::string>().find("params_b"), std::string::npos) << e;
  e = call(get("/v1/check", {{"N", "3"}, {"a", "ada"}, {"p", "NF9"}, {"e", "1"}}), 400);
  EXPECT_NE(e["error"].get<std::string>().find("NF9"), std::string::npos) << e;
  call(post("/v1/check", "not json"), 400);
  call(post("/v1/check", "[1]"), 400);
  call(post("/v1/check", std::string(10000, '[') + std::string(10000, ']')), 400);
  e = call(post("/v1/check", R"({"schema_version": "ecocompute-energy/7.0"})"), 400);
  EXPECT_NE(e["error"].get<std::string>().find("schema_version"), std::string::npos) << e;
  // A report without a size is read but not gradeable, with the reason.
  OrderedJson no_size = fixture_report();
  no_size["workload"].erase("params_b");
  const Json graded = call(post("/v1/check", no_size.dump()), 200);
  EXPECT_EQ(graded["grade"], "not_gradeable");
  EXPECT_NE(graded["reason"].get<std::string>().find("params_b"), std::string::npos) << graded;
}

TEST_F(ApiTest, HealthzReportsTheStore) {
  const Json h = call(get("/healthz"), 200);
  EXPECT_EQ(h["status"], "ok");
  EXPECT_EQ(h["replications"], 0);
  EXPECT_EQ(h["curve_source"], "store");
  EXPECT_GT(h["places"].get<int>(), 50);  // the places the decision model was fitted to
}

TEST_F(ApiTest, StaticFilesAreServedByExactPathOnly) {
  const HttpResponse index = api_->handle(get("/"));
  EXPECT_EQ(index.status, 200);
  EXPECT_EQ(index.content_type, "text/html; charset=utf-8");
  EXPECT_EQ(api_->handle(get("/assets/app.js")).content_type, "text/javascript; charset=utf-8");
  for (const char* path : {"/../secret.txt", "/assets/../../secret.txt", "/..%2fsecret.txt", "/%2e%2e/secret.txt",
                           "//etc/passwd", "/assets/../index.html/..", "/secret.txt", "/etc/passwd"}) {
    EXPECT_EQ(api_->handle(get(path)).status, 404) << path;
  }
}

}  // namespace
}  // namespace ecocompute::server

namespace ecocompute::server {
namespace {

// GET /v1/atlas over the 2026-12-03 atlas session (1.24 B at every batch 1–64, one card).
class AtlasRouteTest : public testing::ApiFixture {
 protected:
  void SetUp() override {
    ApiFixture::SetUp();
    if (HasFatalFailure()) return;
    evidence_ = ecocompute::testing::session_evidence({"h200-2026-12-03-llama3-1b-atlas"});
    auto files = StaticFiles::load(dir_ / "web");
    ASSERT_TRUE(files);
    ApiOptions options;
    options.rate_limit_per_minute = 0;
    options.atlas_sizes = {{1.2358144, "Llama-3.2-1B"}, {7.0, "a size nobody measured"}};
    atlas_api_ = std::make_unique<Api>(evidence_, *store_, std::move(files).value(), options);
  }
  HttpResponse ask(std::map<std::string, std::string> query) { return atlas_api_->handle(get("/v1/atlas", std::move(query))); }
  decide::Evidence evidence_;
  std::unique_ptr<Api> atlas_api_;
};

TEST_F(AtlasRouteTest, EveryCellIsTheDecisionModelsAnswerWithItsBasis) {
  const HttpResponse response = ask({{"precision", "Q4_K_M"}});
  ASSERT_EQ(response.status, 200) << response.body;
  const Json grid = Json::parse(response.body);
  ASSERT_EQ(grid["batches"].size(), 7u);
  ASSERT_EQ(grid["cells"].size(), 14u);
  EXPECT_EQ(grid["measured"], 7) << "the 1.24 B row is measured at every batch, the 7 B row at none";
  for (std::size_t i = 0; i < 7; ++i) {
    const Json& cell = grid["cells"][i];
    EXPECT_EQ(cell["basis"], "measured") << cell.dump();
    decide::EstimateRequest request;
    request.gpu = "H200";
    request.engine = "llama.cpp";
    request.precision = "Q4_K_M";
    request.params_b = 1.2358144;
    request.batch = cell["batch"].get<int>();
    auto question = decide::resolve_estimate_request(request);
    ASSERT_TRUE(question) << question.error().describe();
    auto answer = decide::predict(evidence_, *question);
    ASSERT_TRUE(answer && answer->delta) << cell.dump();
    EXPECT_DOUBLE_EQ(cell["delta_pct"].get<double>(), answer->delta->value);
    EXPECT_DOUBLE_EQ(cell["ci"][0].get<double>(), answer->delta->low);
    EXPECT_DOUBLE_EQ(cell["ci"][1].get<double>(), answer->delta->high);
  }
  for (std::size_t i = 7; i < 14; ++i) EXPECT_NE(grid["cells"][i]["basis"], "measured") << grid["cells"][i].dump();
}

TEST_F(AtlasRouteTest, BadQueriesAreRefusedWithTheReason) {
  EXPECT_EQ(ask({{"batches", "0"}}).status, 400);
  EXPECT_EQ(ask({{"batches", "4,4"}}).status, 400);
  EXPECT_EQ(ask({{"batches", std::string(5000, '9')}}).status, 400);
  const HttpResponse misspelt = ask({{"precison", "Q8_0"}});
  EXPECT_EQ(misspelt.status, 400);
  EXPECT_NE(misspelt.body.find("precison"), std::string::npos) << misspelt.body;
  const HttpResponse two = ask({{"batches", "16,1"}});
  ASSERT_EQ(two.status, 200) << two.body;
  EXPECT_EQ(Json::parse(two.body)["batches"], Json::array({1, 16}));
  // A server started without the campaign's sizes has no atlas.
  EXPECT_EQ(api_->handle(get("/v1/atlas")).status, 404);
}

}  // namespace
}  // namespace ecocompute::server
