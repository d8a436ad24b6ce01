// Loading the evidence the decision layer answers from.
#include "data/evidence.hpp"

#include "util/file_io.hpp"

namespace ecocompute::data {

std::string session_label(const Evidence& evidence, const std::string& id) {
  const Session* s = find_session(evidence.sessions, id);
  return s != nullptr ? s->label : id;
}

std::string session_gpu(const Evidence& evidence, const std::string& id) {
  const Session* s = find_session(evidence.sessions, id);
  return s != nullptr ? s->gpu : std::string();
}

std::string_view to_string(CurveSource source) noexcept {
  return source == CurveSource::published ? "published" : "store";
}

Result<CurveSource> parse_curve_source(std::string_view text) {
  if (text == "store") return CurveSource::store;
  if (text == "published") return CurveSource::published;
  return unexpected(ErrorCode::invalid_argument, "unknown curve source '" + std::string(text) + "' (store or published)");
}

Result<Evidence> load_evidence(const DatasetStore& store, const EvidenceOptions& options) {
  Evidence evidence;
  evidence.curve_source = options.curve_source;
  auto rows = store.rows(RowQuery{});
  if (!rows) return rows.error();
  evidence.rows = std::move(*rows);
  auto sessions = store.sessions();
  if (!sessions) return sessions.error();
  evidence.sessions = std::move(*sessions);
  if (options.curve_source == CurveSource::published) {
    auto curves = read_published_curves(data_dir() / "published" / "published_curves.csv");
    if (!curves) return curves.error();
    evidence.curves = std::move(*curves);
  } else {
    auto curves = fit_curve_set(evidence.rows, evidence.sessions, options.curves);
    if (!curves) return curves.error();
    evidence.curves = std::move(*curves);
  }
  if (auto spreads = attach_session_spreads(evidence); !spreads) return spreads.error();
  return evidence;
}

Result<void> attach_session_spreads(Evidence& evidence) {
  auto per_session = fit_per_session(evidence.rows, evidence.sessions, FitWeighting::unweighted);
  if (!per_session) return per_session.error();
  evidence.delta_spreads = delta_spreads(evidence.rows, *per_session);
  evidence.fp16_spreads = fp16_energy_spreads(evidence.rows);
  return {};
}

Result<EvidenceOptions> make_evidence_options(std::string_view curves, bool pool_sessions, bool unweighted,
                                              const std::string& session) {
  auto source = parse_curve_source(curves);
  if (!source) return source.error();
  EvidenceOptions options;
  options.curve_source = *source;
  options.curves.pool_sessions = pool_sessions;
  options.curves.weighting = unweighted ? FitWeighting::unweighted : FitWeighting::weighted;
  if (!session.empty()) options.curves.session = session;
  if (pool_sessions && !session.empty()) {
    return unexpected(ErrorCode::invalid_argument, "pooling all sessions and choosing one session exclude each other");
  }
  return options;
}

Result<Evidence> load_evidence_at(const std::filesystem::path& store_path, const EvidenceOptions& options,
                                  bool* used_published) {
  auto store = open_store_or_published(store_path, used_published);
  if (!store) return store.error();
  return load_evidence(*store, options);
}

Result<Evidence> load_published_evidence(const EvidenceOptions& options) {
  auto store = open_published_store();
  if (!store) return store.error();
  return load_evidence(*store, options);
}

}  // namespace ecocompute::data
