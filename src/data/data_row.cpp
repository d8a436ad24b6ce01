// DataRow derived quantities and JSON forms.
#include "data/data_row.hpp"

#include <cmath>

namespace ecocompute::data {

const Session* find_session(const std::vector<Session>& sessions, std::string_view id) {
  for (const Session& s : sessions) {
    if (s.id == id) return &s;
  }
  return nullptr;
}

double DataRow::delta_pct() const {
  return (energy_per_token_mj - fp16_energy_per_token_mj) / fp16_energy_per_token_mj * 100.0;
}

std::optional<double> DataRow::consistency_gap_pct() const {
  if (!avg_power_w || !throughput_tokens_per_s || *throughput_tokens_per_s <= 0) return std::nullopt;
  // W / (tokens/s) = J/token; × 1000 → mJ/token.
  const double from_power_mj = *avg_power_w / *throughput_tokens_per_s * 1000.0;
  return std::abs(energy_per_token_mj - from_power_mj) / energy_per_token_mj * 100.0;
}

bool DataRow::is_inconsistent() const {
  const auto gap = consistency_gap_pct();
  return gap && *gap > kConsistencyTolerancePct;
}

std::optional<double> DataRow::delta_perplexity_pct() const {
  if (!perplexity || !fp16_perplexity || *fp16_perplexity <= 0) return std::nullopt;
  return (*perplexity - *fp16_perplexity) / *fp16_perplexity * 100.0;
}

namespace {
template <typename T>
void put_optional(Json& j, const char* key, const std::optional<T>& value) {
  if (value) {
    j[key] = *value;
  } else {
    j[key] = nullptr;
  }
}
}  // namespace

void to_json(Json& j, const Session& s) {
  j = Json{{"id", s.id},         {"fingerprint", s.fingerprint},       {"label", s.label},
           {"gpu", s.gpu},       {"gpu_arch", s.gpu_arch},             {"engine", s.engine},
           {"engine_version", s.engine_version}, {"software", s.software}, {"date", s.date},
           {"provenance", s.provenance}};
}

void to_json(Json& j, const DataRow& r) {
  j = Json{{"session_id", r.session_id},
           {"row_key", r.row_key},
           {"gpu", r.gpu},
           {"gpu_arch", r.gpu_arch},
           {"engine", r.engine},
           {"model", r.model},
           {"params_b", r.params_b},
           {"precision", r.precision},
           {"basis", to_string(r.basis)},
           {"weights", r.weights},
           {"energy_per_token_mj", r.energy_per_token_mj},
           {"fp16_energy_per_token_mj", r.fp16_energy_per_token_mj},
           {"batch_size", r.batch_size},
           {"delta_pct", r.delta_pct()},
           {"n_trials", r.n_trials}};
  if (r.context_tokens > 0) j["context_tokens"] = r.context_tokens;
  put_optional(j, "delta_sd_pct", r.delta_sd_pct);
  put_optional(j, "delta_ci95_low_pct", r.delta_ci95_low_pct);
  put_optional(j, "delta_ci95_high_pct", r.delta_ci95_high_pct);
  put_optional(j, "stored_delta_pct", r.stored_delta_pct);
  put_optional(j, "avg_power_w", r.avg_power_w);
  put_optional(j, "throughput_tokens_per_s", r.throughput_tokens_per_s);
  put_optional(j, "consistency_gap_pct", r.consistency_gap_pct());
  j["inconsistent"] = r.is_inconsistent();
  put_optional(j, "perplexity", r.perplexity);
  put_optional(j, "fp16_perplexity", r.fp16_perplexity);
  put_optional(j, "delta_perplexity_pct", r.delta_perplexity_pct());
  put_optional(j, "kld", r.kld);
  j["note"] = r.note;
}

}  // namespace ecocompute::data
