// Filling the embedded OpenAPI spec's defaults from the one place that defines them.
#include "server/openapi.hpp"

#include "ecocompute/embedded/openapi_json.hpp"
#include "util/defaults.hpp"
#include "util/json.hpp"

namespace ecocompute::server {
namespace {

// Sets "default" on the query parameter `name` of `operation`.
void set_parameter_default(OrderedJson& operation, const char* name, const OrderedJson& value) {
  for (OrderedJson& parameter : operation["parameters"]) {
    if (parameter.value("name", "") == name) parameter["schema"]["default"] = value;
  }
}

std::string build() {
  OrderedJson spec = OrderedJson::parse(embedded::openapi_json);
  const OrderedJson precision = std::string(defaults::estimate_precision);
  OrderedJson& estimate = spec["paths"]["/v1/estimate"]["get"];
  set_parameter_default(estimate, "precision", precision);
  set_parameter_default(estimate, "batch", defaults::batch);
  set_parameter_default(estimate, "ctx", defaults::context);
  OrderedJson& request = spec["components"]["schemas"]["EstimateRequest"]["properties"];
  request["precision"]["default"] = precision;
  request["batch"]["default"] = defaults::batch;
  request["ctx"]["default"] = defaults::context;
  OrderedJson precisions = OrderedJson::array();
  for (std::string_view p : defaults::optimize_precisions) precisions.push_back(std::string(p));
  spec["components"]["schemas"]["OptimizeRequest"]["properties"]["precisions"]["default"] = precisions;
  return spec.dump(2) + "\n";
}

}  // namespace

const std::string& openapi_document() {
  static const std::string document = build();
  return document;
}

}  // namespace ecocompute::server
