// Api: the REST API (/v1/estimate, /v1/optimize, /v1/architectures, /v1/curves, /v1/measurements,
// /v1/check, /v1/replications, /openapi.json, /healthz) and the web UI, registered on one Router. Every route
// is a small function over the shared Evidence and the replication store.
//
//   Api api(evidence, *store, std::move(files));
//   HttpResponse r = api.handle(HttpRequest{.method = "GET", .path = "/healthz"});   // no socket
//   HttpServer server(api.router());                                                   // or over HTTP
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "data/published_reference.hpp"
#include "decide/atlas_answers.hpp"
#include "decide/evidence.hpp"
#include "server/answer_cache.hpp"
#include "server/rate_limiter.hpp"
#include "server/replication_store.hpp"
#include "server/replication_upload.hpp"
#include "server/router.hpp"
#include "server/static_files.hpp"
#include "server/write_keys.hpp"
#include "util/json.hpp"

namespace ecocompute::server {

struct ApiOptions {
  /// Requests per minute per client on the /v1 routes (a token bucket with the same burst); 0 = off.
  int rate_limit_per_minute = 600;
  /// Body limit of POST /v1/replications (the other routes keep the published 8 KiB).
  std::size_t max_upload_bytes = server::max_upload_bytes;
  /// Other origins whose pages may upload (`serve --allow-origin`), each as parse_origin() returns it.
  /// Empty: uploads are answered to no other origin; reads stay open to all.
  std::vector<std::string> write_origins;
  /// The keys uploads need (`serve --write-keys`); null: uploads need no key (a loopback-only server).
  std::shared_ptr<WriteKeyFile> write_keys;
  /// Processor time one optimize request may use; past it the request is refused with how far it got.
  std::chrono::milliseconds request_cpu_budget{2000};
  /// The rows of GET /v1/atlas: the campaign's model sizes (the command line knows them; empty: the
  /// route answers 404).
  std::vector<decide::AtlasSize> atlas_sizes;
  /// How many answers of /v1/estimate and /v1/optimize are kept by question (`serve --answer-cache`);
  /// 0 keeps none.
  std::size_t answer_cache_entries = 4096;
};

class Api {
 public:
  /// Registers every route. `evidence` and `store` are not owned and must outlive the Api; `clock`
  /// is the rate limiter's time source (tests replace it).
  Api(const decide::Evidence& evidence, ReplicationStore& store, StaticFiles files, ApiOptions options = {},
      std::shared_ptr<const Clock> clock = system_clock());

  /// Answers one request without a socket. Thread-safe.
  [[nodiscard]] HttpResponse handle(const HttpRequest& request) const { return router_.handle(request); }

  /// Returns the router, for HttpServer.
  [[nodiscard]] const Router& router() const noexcept { return router_; }

  /// Returns every registered "METHOD path", sorted (the OpenAPI document must describe each).
  [[nodiscard]] std::vector<std::string> routes() const { return routes_; }

 private:
  void add(const std::string& method, const std::string& path, Handler handler, RouteOptions options = {});

  Result<HttpResponse> estimate(const HttpRequest& request) const;
  Result<HttpResponse> optimize(const HttpRequest& request) const;
  Result<HttpResponse> architectures(const HttpRequest& request) const;
  Result<HttpResponse> curves(const HttpRequest& request) const;
  Result<HttpResponse> atlas(const HttpRequest& request) const;
  Result<HttpResponse> measurements(const HttpRequest& request) const;
  Result<HttpResponse> check(const HttpRequest& request) const;
  Result<HttpResponse> post_replication(const HttpRequest& request) const;
  Result<HttpResponse> list_replications(const HttpRequest& request) const;
  Result<HttpResponse> healthz(const HttpRequest& request) const;
  // The answer kept for `route` and `input` when there is one, else `answer()`'s, kept when it succeeds.
  Result<HttpResponse> kept_answer(const char* route, const Json& input,
                                   const std::function<Result<HttpResponse>()>& answer) const;

  const decide::Evidence& evidence_;
  /// The published curves and anchors, for `POST /v1/check?rules=published`; an error when the shipped
  /// files could not be read (the request then says why).
  Result<data::PublishedReference> published_reference_;
  ReplicationStore& store_;
  StaticFiles files_;
  ApiOptions options_;
  RateLimiter limiter_;
  Router router_;
  std::vector<std::string> routes_;
  std::shared_ptr<AnswerCache> answers_;
};

/// Serializes JSON for a response body; invalid UTF-8 in echoed input is replaced, never thrown on.
std::string json_text(const Json& value);


}  // namespace ecocompute::server
