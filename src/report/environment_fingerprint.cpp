// Canonical JSON (sorted keys, compact) hashed with sha256.
#include "report/environment_fingerprint.hpp"

#include "report/report_json.hpp"
#include "util/file_io.hpp"

namespace ecocompute::report {

std::string environment_fingerprint(const OrderedJson& environment) {
  Json canonical = Json::object();  // std::map keeps keys sorted, which makes the dump canonical
  if (environment.is_object()) {
    for (const auto& [key, value] : environment.items()) {
      if (key != "fingerprint") canonical[key] = Json(value);
    }
  }
  return sha256_hex(canonical.dump());
}

std::string environment_fingerprint(const Environment& environment) {
  return environment_fingerprint(detail::environment_json(environment));
}

}  // namespace ecocompute::report
