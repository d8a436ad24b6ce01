// Loading each precision once, and lending it.
#include "experiment/loaded_engines.hpp"

#include "util/log.hpp"

namespace ecocompute::experiment {

LoadedEngines::LoadedEngines(std::map<std::string, std::filesystem::path, std::less<>> files,
                             engine::LoadOptions options, EngineLoader loader)
    : files_(std::move(files)), options_(std::move(options)), loader_(std::move(loader)) {}

Result<std::reference_wrapper<engine::Engine>> LoadedEngines::load(std::string_view precision) {
  if (engine::Engine* loaded = find(precision)) return std::ref(*loaded);
  const auto file = files_.find(precision);
  if (file == files_.end()) {
    return unexpected(ErrorCode::internal, "no model file was prepared for " + std::string(precision));
  }
  engine::LoadOptions these = options_;
  these.model = file->second;
  log::info("loading {} ({})", precision, these.model.string());
  auto opened = loader_(these);
  if (!opened) return opened.error();
  if (!*opened) return unexpected(ErrorCode::internal, "the engine loader returned no engine for " + std::string(precision));
  engine::Engine& engine = **opened;
  engines_.emplace(std::string(precision), std::move(*opened));
  return std::ref(engine);
}

engine::Engine* LoadedEngines::find(std::string_view precision) const {
  const auto it = engines_.find(precision);
  return it != engines_.end() ? it->second.get() : nullptr;
}

protocol::EngineProvider LoadedEngines::provider() {
  return [this](const protocol::Condition& condition) { return load(condition.precision); };
}

}  // namespace ecocompute::experiment
