// Drop-in compatibility with the published API: requests a client of the published /v1/estimate,
// /v1/optimize and /v1/architectures sends (api/worker.js, estimate.js, optimize.js of the published
// service), answered field by field in the published names and shapes. Ours may add fields; a test
// fails when a published field is missing, renamed or of another type. The values are the decision
// model's (a predictive interval for the user's card), not the published curves'.
#include "server/api.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "server_test_support.hpp"

namespace ecocompute::server {
namespace {
using testing::get;
using testing::post;

enum class Kind { number, number_or_null, string, boolean, array, object, pair };

struct Field {
  const char* name;
  Kind kind;
};

::testing::AssertionResult has_shape(const Json& j, const std::vector<Field>& fields, const std::string& where) {
  if (!j.is_object()) return ::testing::AssertionFailure() << where << " is not an object: " << j.dump();
  for (const Field& f : fields) {
    if (!j.contains(f.name)) return ::testing::AssertionFailure() << where << " lacks published field '" << f.name << "'";
    const Json& v = j[f.name];
    bool ok = false;
    switch (f.kind) {
      case Kind::number: ok = v.is_number(); break;
      case Kind::number_or_null: ok = v.is_number() || v.is_null(); break;
      case Kind::string: ok = v.is_string(); break;
      case Kind::boolean: ok = v.is_boolean(); break;
      case Kind::array: ok = v.is_array(); break;
      case Kind::object: ok = v.is_object(); break;
      case Kind::pair: ok = v.is_array() && v.size() == 2 && v[0].is_number() && v[1].is_number(); break;
    }
    if (!ok) return ::testing::AssertionFailure() << where << "." << f.name << " has the wrong shape: " << v.dump();
  }
  return ::testing::AssertionSuccess();
}

// estimate.js's return value plus worker.js's `input`.
const std::vector<Field> kEstimate{{"input", Kind::object},          {"delta_pct", Kind::number},   {"ci", Kind::pair},
                                   {"basis", Kind::string},          {"confidence", Kind::string},  {"recommendation", Kind::string},
                                   {"verdict", Kind::string},        {"crossover_b", Kind::number_or_null},
                                   {"anchors", Kind::array},         {"arch_used", Kind::string},   {"modelled", Kind::boolean},
                                   {"weight_gb", Kind::number},      {"weight_gb_fp16", Kind::number}, {"notes", Kind::array}};
const std::vector<Field> kEstimateInput{{"params_b", Kind::number}, {"arch", Kind::string}, {"precision", Kind::string},
                                        {"batch", Kind::number},    {"ctx", Kind::number}};
const std::vector<Field> kAnchor{{"N", Kind::number}, {"dE", Kind::number}, {"model", Kind::string}, {"gpu", Kind::string},
                                 {"n", Kind::number}};
// optimize.js's scoreCandidate + decorate.
const std::vector<Field> kConfig{{"precision", Kind::string},
                                 {"batch", Kind::number},
                                 {"context", Kind::number},
                                 {"energy_j_per_1k_tokens", Kind::number_or_null},
                                 {"energy_mj_per_token", Kind::number_or_null},
                                 {"energy_rel_fp16", Kind::number},
                                 {"delta_pct_vs_fp16", Kind::number},
                                 {"latency_ms_per_token", Kind::number},
                                 {"throughput_tok_s", Kind::number},
                                 {"bound", Kind::string},
                                 {"vram_gb", Kind::number},
                                 {"basis", Kind::object},
                                 {"confidence", Kind::string},
                                 {"recommendation", Kind::string},
                                 {"role", Kind::string},
                                 {"summary", Kind::string}};
const std::vector<Field> kFigureBases{{"energy", Kind::string}, {"latency", Kind::string}, {"vram", Kind::string}};
const std::vector<Field> kVsRecommended{{"energy_pct", Kind::number_or_null}, {"latency_pct", Kind::number_or_null},
                                        {"throughput_pct", Kind::number_or_null}, {"vram_pct", Kind::number_or_null}};
const std::vector<Field> kPareto{{"precision", Kind::string},          {"batch", Kind::number},
                                 {"context", Kind::number},            {"energy_j_per_1k_tokens", Kind::number_or_null},
                                 {"latency_ms_per_token", Kind::number}, {"throughput_tok_s", Kind::number},
                                 {"vram_gb", Kind::number}};

using PublishedCompatTest = testing::ApiFixture;

TEST_F(PublishedCompatTest, EstimateHasEveryPublishedField) {
  // worker.js: GET /v1/estimate?params_b=13&arch=ampere&precision=nf4&batch=32&ctx=8192 and the POST body.
  const Json by_get = call(get("/v1/estimate", {{"params_b", "3"}, {"arch", "ada"}, {"precision", "NF4"}}), 200);
  EXPECT_TRUE(has_shape(by_get, kEstimate, "estimate"));
  EXPECT_TRUE(has_shape(by_get["input"], kEstimateInput, "estimate.input"));
  ASSERT_FALSE(by_get["anchors"].empty());
  for (const Json& a : by_get["anchors"]) EXPECT_TRUE(has_shape(a, kAnchor, "anchor"));
  // At a measured size: one anchor per place (two RTX 4090 sessions at 3 B: +0.76 % in July,
  // −15.06 % on 2026-08-19), and the model's interval for a new card, which holds both.
  const Json* at3 = nullptr;
  for (const Json& a : by_get["anchors"]) {
    if (a["N"] == 3.0 && a["gpu"] == "RTX 4090") at3 = &a;
  }
  ASSERT_NE(at3, nullptr);
  EXPECT_EQ((*at3)["n"], 2);
  EXPECT_LT(by_get["ci"][0].get<double>(), -15.06);
  EXPECT_GT(by_get["ci"][1].get<double>(), 0.76);
  EXPECT_EQ(by_get["basis"], "measured");
  EXPECT_GT(by_get["crossover_b"].get<double>(), 0.5);  // inside the measured 0.5–7 B
  EXPECT_LT(by_get["crossover_b"].get<double>(), 7.0);
  EXPECT_EQ(by_get["arch_used"], "ada");
  EXPECT_EQ(by_get["recommendation"], "depends");
  EXPECT_EQ(by_get["modelled"], false);
  const Json by_post = call(post("/v1/estimate", R"({"params_b": 3, "arch": "ada", "precision": "NF4"})"), 200);
  EXPECT_EQ(by_get, by_post);
}

TEST_F(PublishedCompatTest, EstimateFreeTextReadsBatchAndContext) {
  // worker.js's own example: GET /v1/estimate?q=13B on A100 int8 batch 32 (plus a context).
  const Json e = call(get("/v1/estimate", {{"q", "13B on A100 int8 batch 32 ctx 8k"}}), 200);
  EXPECT_TRUE(has_shape(e, kEstimate, "estimate"));
  EXPECT_EQ(e["input"]["params_b"], 13.0);
  EXPECT_EQ(e["input"]["arch"], "ampere");
  EXPECT_EQ(e["input"]["precision"], "INT8");
  EXPECT_EQ(e["input"]["batch"], 32);
  EXPECT_EQ(e["input"]["ctx"], 8192);
  EXPECT_EQ(e["modelled"], true);
  EXPECT_NE(e["basis"], "measured");
  const Json body = call(post("/v1/estimate", R"({"q": "7B on RTX 4090 nf4 bs=8 context 4096"})"), 200);
  EXPECT_EQ(body["input"]["batch"], 8);
  EXPECT_EQ(body["input"]["ctx"], 4096);
  EXPECT_EQ(body["input"]["arch"], "ada");
}

TEST_F(PublishedCompatTest, EstimateErrorsAre400WithAnErrorField) {
  for (const auto& query : std::vector<std::map<std::string, std::string>>{
           {{"arch", "ada"}},                                          // no size
           {{"params_b", "0"}, {"arch", "ada"}},                       // not > 0
           {{"params_b", "7"}},                                        // no architecture
           {{"params_b", "7"}, {"arch", "turing"}, {"precision", "INT8"}},  // not measured there
           {{"params_b", "2"}, {"arch", "blackwell"}, {"precision", "INT8"}}}) {
    const Json e = call(get("/v1/estimate", query), 400);
    ASSERT_TRUE(e.contains("error")) << e;
    EXPECT_TRUE(e["error"].is_string());
    EXPECT_TRUE(e["input"].is_object()) << e;  // worker.js: { ...r, input: a }
  }
}

TEST_F(PublishedCompatTest, HopperBorrowsAmpereAsPublishedAndSaysSo) {
  const Json e = call(get("/v1/estimate", {{"params_b", "13"}, {"arch", "hopper"}, {"precision", "NF4"}}), 200);
  EXPECT_TRUE(has_shape(e, kEstimate, "estimate"));
  EXPECT_NE(e["arch_used"].get<std::string>().find("ampere"), std::string::npos) << e["arch_used"];
  EXPECT_EQ(e["basis"], "borrowed");
  EXPECT_EQ(e["confidence"], "low");
}

TEST_F(PublishedCompatTest, OptimizeHasEveryPublishedField) {
  // worker.js: GET /v1/optimize?params_b=7&arch=ada&objective=min_energy&max_latency_ms=50&max_vram_gb=16
  const Json o = call(get("/v1/optimize", {{"params_b", "7"}, {"arch", "ada"}, {"objective", "min_energy"},
                                           {"max_latency_ms", "50"}, {"max_vram_gb", "16"}}),
                      200);
  EXPECT_TRUE(has_shape(o, {{"input", Kind::object}, {"basis", Kind::object}, {"feasible_count", Kind::number},
                            {"notes", Kind::array}, {"recommended", Kind::object}, {"alternatives", Kind::array},
                            {"pareto_energy_latency", Kind::array}},
                        "optimize"));
  EXPECT_TRUE(has_shape(o["basis"], kFigureBases, "optimize.basis"));
  EXPECT_TRUE(has_shape(o["input"], {{"params_b", Kind::number}, {"arch", Kind::string}, {"objective", Kind::string},
                                     {"constraints", Kind::object}, {"grid", Kind::object}},
                        "optimize.input"));
  EXPECT_TRUE(has_shape(o["input"]["grid"], {{"precisions", Kind::array}, {"batches", Kind::array}, {"contexts", Kind::array},
                                             {"candidates", Kind::number}},
                        "optimize.input.grid"));
  // The published default grid: 3 precisions × 6 batches × 5 contexts.
  EXPECT_EQ(o["input"]["grid"]["candidates"], 90);
  EXPECT_EQ(o["input"]["constraints"]["max_vram_gb"], 16.0);
  EXPECT_TRUE(has_shape(o["recommended"], kConfig, "recommended"));
  EXPECT_TRUE(has_shape(o["recommended"]["basis"], kFigureBases, "recommended.basis"));
  EXPECT_EQ(o["recommended"]["role"], "objective-optimal under the given constraints");
  ASSERT_FALSE(o["alternatives"].empty());
  EXPECT_LE(o["alternatives"].size(), 3u);  // feas.slice(1, 4)
  for (const Json& a : o["alternatives"]) {
    EXPECT_TRUE(has_shape(a, kConfig, "alternative"));
    EXPECT_TRUE(has_shape(a["vs_recommended"], kVsRecommended, "alternative.vs_recommended"));
  }
  for (const Json& p : o["pareto_energy_latency"]) EXPECT_TRUE(has_shape(p, kPareto, "pareto"));
  // Constraints keep their meaning.
  EXPECT_LE(o["recommended"]["vram_gb"].get<double>(), 16.0);
  EXPECT_LE(o["recommended"]["latency_ms_per_token"].get<double>(), 50.0);
}

TEST_F(PublishedCompatTest, OptimizePinsAndListsAsPublished) {
  // Pins (batch, context, precision) and comma-separated lists from a query string.
  const Json pinned = call(get("/v1/optimize", {{"params_b", "7"}, {"arch", "ada"}, {"batch", "4"}, {"context", "1024"},
                                                {"precision", "nf4"}}),
                           200);
  EXPECT_EQ(pinned["input"]["grid"]["candidates"], 1);
  EXPECT_EQ(pinned["recommended"]["batch"], 4);
  EXPECT_EQ(pinned["recommended"]["context"], 1024);
  EXPECT_EQ(pinned["recommended"]["precision"], "NF4");
  const Json lists = call(post("/v1/optimize", R"({"params_b": 7, "arch": "ada", "precisions": ["FP16", "NF4"],
                                                    "batches": [1, 8], "contexts": [2048]})"),
                          200);
  EXPECT_EQ(lists["input"]["grid"]["candidates"], 4);
  // Nothing fits: closest_infeasible, recommended null, as published.
  const Json none = call(get("/v1/optimize", {{"params_b", "70"}, {"arch", "ada"}, {"max_vram_gb", "1"}}), 200);
  EXPECT_TRUE(none["recommended"].is_null());
  EXPECT_TRUE(has_shape(none["closest_infeasible"], kConfig, "closest_infeasible"));
  EXPECT_EQ(none["feasible_count"], 0);
  // Errors: 400 with `error`.
  for (const auto& query : std::vector<std::map<std::string, std::string>>{{{"arch", "ada"}}, {{"params_b", "7"}}}) {
    const Json e = call(get("/v1/optimize", query), 400);
    EXPECT_TRUE(e.contains("error")) << e;
  }
}

TEST_F(PublishedCompatTest, ArchitecturesInThePublishedShape) {
  const Json a = call(get("/v1/architectures"), 200);
  for (const char* arch : {"ada", "ampere", "blackwell", "turing"}) {
    ASSERT_TRUE(a.contains(arch)) << arch;
    EXPECT_TRUE(has_shape(a[arch], {{"label", Kind::string}, {"precisions", Kind::object}}, arch));
    for (const auto& [precision, entry] : a[arch]["precisions"].items()) {
      EXPECT_TRUE(has_shape(entry, {{"measured_range_b", Kind::pair}, {"crossover_b", Kind::number_or_null}}, precision));
    }
  }
  EXPECT_EQ(a["ampere"]["label"], "Ampere (A100/A800)");
  EXPECT_EQ(a["ada"]["precisions"]["NF4"]["measured_range_b"], Json::array({0.5, 7.0}));
  EXPECT_GT(a["ada"]["precisions"]["NF4"]["crossover_b"].get<double>(), 0.5);
  EXPECT_LT(a["ada"]["precisions"]["NF4"]["crossover_b"].get<double>(), 7.0);
  ASSERT_TRUE(a.contains("hopper"));  // measured with llama.cpp
  EXPECT_TRUE(a["hopper"]["precisions"].contains("Q4_K_M"));
  EXPECT_EQ(a["hopper"]["precisions"]["Q4_K_M"]["engine"], "llama.cpp");
}

TEST_F(PublishedCompatTest, WrongMethodsAre405AndGetsSayHowLongToKeep) {
  for (const char* method : {"PUT", "DELETE", "PATCH"}) {
    for (const char* path : {"/v1/estimate", "/v1/optimize", "/v1/architectures"}) {
      HttpRequest r = get(path);
      r.method = method;
      EXPECT_EQ(api_->handle(r).status, 405) << method << " " << path;
    }
  }
  call(get("/v1/architectures"), 200);
  ASSERT_TRUE(last_.header("Cache-Control"));
  EXPECT_NE(last_.header("Cache-Control")->find("max-age"), std::string::npos);
  call(get("/v1/estimate", {{"params_b", "7"}, {"arch", "ada"}}), 200);
  EXPECT_TRUE(last_.header("Cache-Control"));
  call(get("/v1/estimate", {{"params_b", "-1"}, {"arch", "ada"}}), 400);
  EXPECT_EQ(last_.header("Cache-Control"), "no-store");
  call(get("/v1/replications"), 200);
  EXPECT_EQ(last_.header("Cache-Control"), "no-cache");  // uploads change it
}

TEST_F(PublishedCompatTest, OpenApiNamesThePublishedParameters) {
  const Json doc = call(get("/openapi.json"), 200);
  auto names = [&](const char* path) {
    std::set<std::string> out;
    for (const Json& p : doc["paths"][path]["get"]["parameters"]) out.insert(p["name"].get<std::string>());
    return out;
  };
  for (const char* p : {"params_b", "arch", "precision", "batch", "ctx", "q"}) EXPECT_TRUE(names("/v1/estimate").contains(p)) << p;
  for (const char* p : {"params_b", "arch", "objective", "max_latency_ms", "max_vram_gb", "min_throughput", "batch", "context"}) {
    EXPECT_TRUE(names("/v1/optimize").contains(p)) << p;
  }
}

}  // namespace
}  // namespace ecocompute::server
