// The covariance of the decision model (see variance_components.hpp).
#include "decide/variance_components.hpp"

#include <cmath>

namespace ecocompute::decide {
double covariance_kernel(double distance, double scale) {
  const double t = distance / scale;
  return std::exp(-0.5 * t * t);
}

double VarianceComponents::card_var(const std::string& key) const {
  const auto it = card.find(key);
  return it != card.end() ? it->second : card_pooled;
}

double VarianceComponents::covariance(const ModelPoint& a, const ModelPoint& b, double mean_log_size) const {
  if (a.arch != b.arch) return 0.0;
  const bool same_key = a.key == b.key;
  const double ua = a.log_size - mean_log_size, ub = b.log_size - mean_log_size;
  double v = 0;
  if (same_key) v += arch + arch_slope * ua * ub + (a.gpu == b.gpu ? gpu : 0.0);
  if (a.engine != b.engine) return v;
  const double in_size = covariance_kernel(ua - ub, size_scale);
  v += in_size * (shared + (same_key ? format : 0.0));
  if (a.regime > 0 && a.regime == b.regime) {
    v += covariance_kernel(std::log(static_cast<double>(a.batch) / b.batch), batch_scale) * in_size *
         (batch_shared + (same_key ? batch_format : 0.0));
  }
  return v;
}

double VarianceComponents::prior_variance(const ModelPoint& p, double mean_log_size) const {
  return covariance(p, p, mean_log_size);
}

void to_json(Json& j, const VarianceComponents& v) {
  j = Json{{"card", v.card},         {"card_pooled", v.card_pooled},   {"shared", v.shared},
           {"format", v.format},     {"size_scale", v.size_scale},     {"arch", v.arch},
           {"arch_slope", v.arch_slope}, {"gpu", v.gpu},              {"batch_shared", v.batch_shared},
           {"batch_format", v.batch_format}, {"batch_scale", v.batch_scale}};
}

void from_json(const Json& j, VarianceComponents& v) {
  v.card = j.at("card").get<std::map<std::string, double>>();
  for (auto [name, field] : {std::pair{"card_pooled", &v.card_pooled}, std::pair{"shared", &v.shared},
                             std::pair{"format", &v.format}, std::pair{"size_scale", &v.size_scale}, std::pair{"arch", &v.arch},
                             std::pair{"arch_slope", &v.arch_slope}, std::pair{"gpu", &v.gpu},
                             std::pair{"batch_shared", &v.batch_shared}, std::pair{"batch_format", &v.batch_format},
                             std::pair{"batch_scale", &v.batch_scale}}) {
    *field = j.at(name).get<double>();
  }
}

}  // namespace ecocompute::decide
