// Loading evidence and its fitted model (see evidence.hpp).
#include "decide/evidence.hpp"

#include <cstdlib>

#include "decide/model_point.hpp"
#include "report/throttled_trials.hpp"
#include "util/file_io.hpp"
#include "util/log.hpp"

namespace ecocompute::decide {
namespace {

constexpr const char* kModelKey = "decision-model";

std::shared_ptr<const DecisionModel> parse_model(const std::string& text, const std::string& digest) {
  const Json j = Json::parse(text, nullptr, false);
  if (j.is_discarded()) return nullptr;
  auto model = DecisionModel::from_json(j);
  if (!model || (!digest.empty() && model->digest != digest)) return nullptr;
  return std::make_shared<const DecisionModel>(std::move(*model));
}

Result<Evidence> read_store(const data::DatasetStore& store) {
  Evidence e;
  auto rows = store.rows(data::RowQuery{});
  if (!rows) return rows.error();
  auto sessions = store.sessions();
  if (!sessions) return sessions.error();
  auto quality = store.quality_rows();
  if (!quality) return quality.error();
  e.rows = std::move(*rows);
  e.sessions = std::move(*sessions);
  e.published_quality = std::move(*quality);
  return e;
}

// The fit of the shipped evidence, from the cache when it describes these rows; a cache that cannot
// be written is only a slower next question.
std::shared_ptr<const DecisionModel> cached_fit(const std::vector<data::DataRow>& rows) {
  const std::string digest = evidence_digest(rows);
  const std::filesystem::path path = cache_dir() / ("model-" + digest.substr(0, 32) + ".json");
  if (auto text = read_file(path)) {
    if (auto model = parse_model(*text, digest)) return model;
  }
  auto model = std::make_shared<const DecisionModel>(DecisionModel::fit(rows));
  if (auto kept = write_file_atomic(path, Json(*model).dump()); !kept) {
    log::debug("the decision model could not be kept in {} ({}); it is fitted again next time", path.string(), kept.error().message());
  }
  return model;
}

}  // namespace

void Evidence::index_sessions() {
  session_positions.clear();
  session_positions.reserve(sessions.size());
  for (std::size_t i = 0; i < sessions.size(); ++i) session_positions.emplace(sessions[i].id, i);
}

const data::Session* Evidence::session(const std::string& id) const {
  if (session_positions.empty() && session_by_id) {
    const std::lock_guard lock(sessions_read->mutex);
    auto [it, added] = sessions_read->by_id.try_emplace(id);
    if (added) it->second = session_by_id(id);
    return it->second ? &*it->second : nullptr;
  }
  if (session_positions.empty()) return data::find_session(sessions, id);
  const auto it = session_positions.find(id);
  return it != session_positions.end() ? &sessions[it->second] : nullptr;
}

std::string Evidence::session_label(const std::string& id) const {
  const data::Session* s = session(id);
  return s != nullptr ? s->label : id;
}

std::string Evidence::session_gpu(const std::string& id) const {
  const data::Session* s = session(id);
  return s != nullptr ? s->gpu : std::string();
}

Evidence evidence_from(std::vector<data::DataRow> rows, std::vector<data::Session> sessions) {
  Evidence e;
  e.rows = std::move(rows);
  e.sessions = std::move(sessions);
  e.index_sessions();
  e.model = std::make_shared<const DecisionModel>(DecisionModel::fit(e.rows));
  e.index();
  return e;
}

namespace {

KeyRows shown_rows(const std::vector<data::DataRow>& rows) {
  KeyRows out;
  for (const data::DataRow& r : rows) {
    if (r.basis != data::Basis::measured) continue;
    if (r.delta_perplexity_pct()) out.with_quality.push_back(r);
    if (r.note.find(report::kThrottledTrialsCounted) != std::string::npos) out.throttled.push_back(r);
  }
  return out;
}

}  // namespace

const KeyRows& Evidence::key_rows(const std::string& engine, const std::string& precision) const {
  static const KeyRows none;
  const std::string key = model_key(engine, precision);
  if (const auto it = key_rows_index.find(key); it != key_rows_index.end()) return it->second;
  if (!rows_by_key) return none;
  const std::lock_guard lock(key_rows_read->mutex);
  auto [it, added] = key_rows_read->rows.try_emplace(key);
  if (added) it->second = shown_rows(rows_by_key(engine, precision));
  return it->second;
}

const data::QualityEvidence& Evidence::quality_evidence(const std::string& engine, const std::string& precision) const {
  const std::string key = model_key(engine, precision);
  const std::lock_guard lock(quality_read->mutex);
  auto [it, added] = quality_read->by_key.try_emplace(key);
  if (added) {
    auto evidence = std::make_shared<data::QualityEvidence>();
    evidence->published = published_quality;
    data::add_measured_quality(*evidence, key_rows(engine, precision).with_quality);
    it->second = std::move(evidence);
  }
  return *it->second;
}

void Evidence::index() {
  std::map<std::string, std::vector<data::DataRow>> by_key;
  for (const data::DataRow& r : rows) by_key[model_key(r.engine, r.precision)].push_back(r);
  key_rows_index.clear();
  for (const auto& [key, key_rows] : by_key) key_rows_index[key] = shown_rows(key_rows);
}

Result<Evidence> load_evidence(std::shared_ptr<data::DatasetStore> store, RowLoading loading) {
  auto version = store->evidence_version();
  if (!version) return version.error();
  Evidence e;
  if (loading == RowLoading::by_key_sessions_by_id) {
    e.session_by_id = [store](const std::string& id) {
      auto session = store->session_by_id(id);
      return session ? std::move(*session) : std::nullopt;
    };
  } else {
    auto sessions = store->sessions();
    if (!sessions) return sessions.error();
    e.sessions = std::move(*sessions);
    e.index_sessions();
  }
  auto quality = store->quality_rows();
  if (!quality) return quality.error();
  e.published_quality = std::move(*quality);
  auto stored = store->derived(kModelKey, *version);
  if (stored && *stored) e.model = parse_model(**stored, "");
  if (!e.model || loading == RowLoading::all) {
    auto rows = store->rows(data::RowQuery{});
    if (!rows) return rows.error();
    e.rows = std::move(*rows);
  }
  if (!e.model) {
    e.model = std::make_shared<const DecisionModel>(DecisionModel::fit(e.rows));
    if (auto put = store->put_derived(kModelKey, *version, Json(*e.model).dump()); !put) {
      log::info("the fitted model could not be kept in the store ({}); it is fitted again next time", put.error().message());
    }
  }
  e.calibration = calibration_for(e.model->digest);
  if (!e.rows.empty()) e.index();
  if (loading != RowLoading::all && e.rows.empty()) {
    e.rows_by_key = [store](const std::string& engine, const std::string& precision) {
      auto rows = store->rows(data::RowQuery{.gpu_arch = {},
                                             .engine = engine,
                                             .precision = precision,
                                             .session_id = {},
                                             .measured_only = true,
                                             .quality_or_note = std::string(report::kThrottledTrialsCounted)});
      return rows ? std::move(*rows) : std::vector<data::DataRow>{};
    };
  }
  return e;
}

Result<Evidence> load_published_evidence() {
  auto store = data::open_published_store();
  if (!store) return store.error();
  auto e = read_store(*store);
  if (!e) return e.error();
  e->model = cached_fit(e->rows);
  e->calibration = calibration_for(e->model->digest);
  e->index_sessions();
  e->index();
  return e;
}

Result<Evidence> load_evidence_at(const std::filesystem::path& store_path, bool* used_published, RowLoading loading) {
  std::error_code ec;
  const bool exists = data::is_postgres_url(store_path.string()) || std::filesystem::exists(store_path, ec);
  if (used_published != nullptr) *used_published = !exists;
  if (!exists) return load_published_evidence();
  auto store = data::DatasetStore::open(store_path.string());
  if (!store) return store.error();
  return load_evidence(std::make_shared<data::DatasetStore>(std::move(*store)), loading);
}

}  // namespace ecocompute::decide
