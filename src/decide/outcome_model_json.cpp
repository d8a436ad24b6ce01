// A fitted outcome model as JSON: what it keeps of each family (its places with their cells' values,
// the variance components, the priors, the precision of the components), so that a stored model
// answers without refitting or reading the rows again.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <stdexcept>

#include "decide/outcome_model.hpp"
#include "util/packed_numbers.hpp"

namespace ecocompute::decide {
namespace {

constexpr const char* kComponentNames[] = {"card", "shared", "format", "size_scale", "arch", "arch_slope",
                                           "gpu", "batch_shared", "batch_format", "batch_scale"};

// A place's cells as packed arrays (util/packed_numbers.hpp): its values, their within-session
// variances and its sessions as indices into the model's table of session ids.
Json location_json(const Location& l, std::map<std::string, std::uint32_t>& session_index, Json& session_ids) {
  std::vector<std::uint32_t> sessions;
  sessions.reserve(l.sessions.size());
  for (const std::string& id : l.sessions) {
    const auto [it, added] = session_index.try_emplace(id, static_cast<std::uint32_t>(session_index.size()));
    if (added) session_ids.push_back(id);
    sessions.push_back(it->second);
  }
  return Json{{"engine", l.place.engine}, {"precision", l.place.precision}, {"arch", l.place.arch}, {"gpu", l.place.gpu},
              {"params_b", l.place.params_b}, {"batch", l.place.batch}, {"context", l.place.context}, {"model", l.model},
              {"values", pack_doubles(l.values)}, {"within", pack_doubles(l.within)}, {"sessions", pack_indices(sessions)}};
}

// Each id's place in the ids' order (equal ids, equal places).
std::vector<std::uint32_t> ranks_of(const std::vector<std::string>& ids) {
  std::vector<std::uint32_t> by_id(ids.size());
  for (std::uint32_t i = 0; i < by_id.size(); ++i) by_id[i] = i;
  std::sort(by_id.begin(), by_id.end(), [&](std::uint32_t a, std::uint32_t b) { return ids[a] < ids[b]; });
  std::vector<std::uint32_t> rank(ids.size());
  std::uint32_t r = 0;
  for (std::size_t k = 0; k < by_id.size(); ++k) {
    if (k > 0 && ids[by_id[k]] != ids[by_id[k - 1]]) ++r;
    rank[by_id[k]] = r;
  }
  return rank;
}

// Throws (as nlohmann::json does for a missing key) when a packed array does not unpack or does not
// match the others, so that a damaged stored model is refitted instead of answering from it.
Location location_from(const Json& j, const std::vector<std::string>& session_ids, const std::vector<std::uint32_t>& id_rank) {
  Location l;
  l.place = CellPlace{j.at("engine").get<std::string>(), j.at("precision").get<std::string>(), j.at("arch").get<std::string>(),
                      j.at("gpu").get<std::string>(), j.at("params_b").get<double>(), j.at("batch").get<int>(), j.at("context").get<int>()};
  l.point = point_of(l.place);
  l.model = j.value("model", "");
  auto values = unpack_doubles(j.at("values").get_ref<const std::string&>());
  auto within = unpack_doubles(j.at("within").get_ref<const std::string&>());
  const auto sessions = unpack_indices(j.at("sessions").get_ref<const std::string&>());
  if (!values || !within || !sessions || values->empty() || within->size() != values->size() || sessions->size() != values->size()) {
    throw std::invalid_argument("a place's packed cells do not unpack");
  }
  l.values = std::move(*values);
  l.within = std::move(*within);
  l.sessions.reserve(sessions->size());
  std::vector<std::uint32_t> rank;
  rank.reserve(sessions->size());
  for (std::uint32_t i : *sessions) {
    l.sessions.push_back(session_ids.at(i));
    rank.push_back(id_rank[i]);
  }
  l.session_order = session_order(l.sessions, &rank);
  return l;
}

Json free_json(const std::vector<FreeComponent>& free) {
  Json out = Json::array();
  for (const FreeComponent& f : free) out.push_back(Json{{"which", kComponentNames[static_cast<int>(f.which)]}, {"key", f.key}});
  return out;
}

std::vector<FreeComponent> free_from(const Json& j) {
  std::vector<FreeComponent> out;
  for (const Json& f : j) {
    const std::string name = f.at("which").get<std::string>();
    for (int i = 0; i < 10; ++i) {
      if (name == kComponentNames[i]) out.push_back(FreeComponent{static_cast<FreeComponent::Which>(i), f.at("key").get<std::string>()});
    }
  }
  return out;
}

Json matrix_json(const std::optional<Matrix>& m) {
  if (!m) return nullptr;
  return Json{{"rows", m->rows}, {"values", m->a}};
}

std::optional<Matrix> matrix_from(const Json& j) {
  if (j.is_null()) return std::nullopt;
  Matrix m(j.at("rows").get<std::size_t>(), j.at("rows").get<std::size_t>());
  m.a = j.at("values").get<std::vector<double>>();
  return m;
}

const char* unmeasured_name(Unmeasured u) {
  switch (u) {
    case Unmeasured::architecture_spread: return "architecture_spread";
    case Unmeasured::gpu_spread: return "gpu_spread";
    case Unmeasured::batch: return "batch";
  }
  return "batch";
}

}  // namespace

void to_json(Json& j, const OutcomeModel& m) {
  Json families = Json::object();
  std::map<std::string, std::uint32_t> session_index;
  Json session_ids = Json::array();
  for (const auto& [name, f] : m.families_) {
    const FamilyFit::Stored s = f.stored();
    Json locations = Json::array();
    for (const Location& l : s.locations) locations.push_back(location_json(l, session_index, session_ids));
    families[name] = Json{{"components", s.components}, {"identified", s.identified}, {"free", free_json(s.free)},
                          {"theta_covariance", matrix_json(s.theta_covariance)}, {"objective", s.objective},
                          {"locations", std::move(locations)}};
  }
  Json priors = Json::object();
  for (const auto& [kind, p] : m.priors_) priors[std::string(to_string(kind))] = p;
  Json unmeasured = Json::array();
  for (Unmeasured u : m.unmeasured_) unmeasured.push_back(unmeasured_name(u));
  j = Json{{"families", std::move(families)}, {"priors", std::move(priors)}, {"unmeasured", std::move(unmeasured)},
           {"session_ids", std::move(session_ids)}};
}

Result<OutcomeModel> OutcomeModel::from_json(const Json& j) {
  try {
    OutcomeModel m;
    for (const auto& [kind_name, p] : j.at("priors").items()) {
      for (EffectKind k : {EffectKind::size_slope, EffectKind::regime_level, EffectKind::regime_slope, EffectKind::context_slope}) {
        if (to_string(k) == kind_name) m.priors_[k] = p.get<EffectPrior>();
      }
    }
    for (const Json& u : j.at("unmeasured")) {
      for (Unmeasured k : {Unmeasured::architecture_spread, Unmeasured::gpu_spread, Unmeasured::batch}) {
        if (u.get<std::string>() == unmeasured_name(k)) m.unmeasured_.insert(k);
      }
    }
    const auto session_ids = j.at("session_ids").get<std::vector<std::string>>();
    const std::vector<std::uint32_t> id_rank = ranks_of(session_ids);
    for (const auto& [name, f] : j.at("families").items()) {
      FamilyFit::Stored s;
      for (const Json& l : f.at("locations")) s.locations.push_back(location_from(l, session_ids, id_rank));
      s.components = f.at("components").get<VarianceComponents>();
      s.priors = m.priors_;
      s.free = free_from(f.at("free"));
      s.identified = f.at("identified").get<std::vector<std::string>>();
      s.theta_covariance = matrix_from(f.at("theta_covariance"));
      s.objective = f.at("objective").get<double>();
      auto fit = FamilyFit::restore(name, std::move(s), card_variance_floor());
      if (!fit) return unexpected(ErrorCode::invalid_argument, "stored model family " + name + " does not factor");
      m.families_.emplace(name, std::move(*fit));
    }
    return m;
  } catch (const std::exception& e) {  // nlohmann's, a packed array that does not unpack, an index past the table
    return unexpected(ErrorCode::invalid_argument, std::string("stored model: ") + e.what());
  }
}

}  // namespace ecocompute::decide
