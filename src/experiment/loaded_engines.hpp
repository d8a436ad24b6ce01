// LoadedEngines: the one owner of a run's loaded models. The runner borrows each precision's engine;
// the quality probe then runs on the very same loaded weights, after every energy window.
#pragma once

#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>

#include "engine/engine.hpp"
#include "protocol/runner.hpp"
#include "util/result.hpp"

namespace ecocompute::experiment {

/// Opens an engine (engine::open_llama_engine in the tool; a fake in tests).
using EngineLoader = std::function<Result<std::unique_ptr<engine::Engine>>(const engine::LoadOptions&)>;

class LoadedEngines {
 public:
  /// `files` maps each precision to its model file; every engine is opened with `options` and its file.
  LoadedEngines(std::map<std::string, std::filesystem::path, std::less<>> files, engine::LoadOptions options,
                EngineLoader loader);

  /// Returns the precision's engine, loading it the first time; the engine stays owned here.
  [[nodiscard]] Result<std::reference_wrapper<engine::Engine>> load(std::string_view precision);
  /// Returns the precision's engine if it was loaded, else nullptr.
  [[nodiscard]] engine::Engine* find(std::string_view precision) const;
  /// Returns a provider for the runner that borrows from this owner, which must outlive the run.
  [[nodiscard]] protocol::EngineProvider provider();

 private:
  std::map<std::string, std::filesystem::path, std::less<>> files_;
  engine::LoadOptions options_;
  EngineLoader loader_;
  std::map<std::string, std::unique_ptr<engine::Engine>, std::less<>> engines_;
};

}  // namespace ecocompute::experiment
