// QuantizationCache: GGUF files quantized in-process with llama_model_quantize, kept by source hash and type.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <string>

#include "engine/gguf_inspection.hpp"
#include "engine/precision.hpp"
#include "util/result.hpp"

namespace ecocompute::engine {

/// A model file ready to load at a precision, and how it was obtained.
struct PreparedModel {
  std::filesystem::path path;
  GgufType type = GgufType::F16;
  enum class Origin {
    source_as_is,  ///< the given file is already of the wanted type: used directly
    cache_hit,     ///< quantized earlier, found in the cache and verified
    quantized,     ///< quantized now into the cache
  } origin = Origin::source_as_is;
  std::string source_sha256;  ///< hex sha256 of the source file ("" for source_as_is)
};

/// Returns the stable spelling of an origin ("source-as-is", "cache-hit", "quantized").
std::string_view to_string(PreparedModel::Origin origin) noexcept;

/// Quantizes F32/F16/BF16 GGUF files into a cache folder keyed by the source's sha256 and the target
/// type: `<folder>/<sha256>/<TYPE>.gguf`. A cached file is reused after checking that it parses, is
/// complete and has the target type; new files are written under a temporary name and renamed, so a
/// reader never sees half a file. Not thread-safe; separate processes may share a folder.
class QuantizationCache {
 public:
  /// Returns the bytes free for writing in a folder; the seam tests use to simulate a full disk.
  using SpaceProbe = std::function<std::uint64_t(const std::filesystem::path& folder)>;

  /// Uses `folder` (created on first write); `available_bytes` empty: std::filesystem::space.
  explicit QuantizationCache(std::filesystem::path folder, SpaceProbe available_bytes = {});

  /// Returns $XDG_CACHE_HOME/ecocompute, else $HOME/.cache/ecocompute, else ./.ecocompute-cache.
  static std::filesystem::path default_folder();

  [[nodiscard]] const std::filesystem::path& folder() const { return folder_; }

  /// Returns the cache path for `source_sha256` quantized to `type`.
  [[nodiscard]] std::filesystem::path path_for(std::string_view source_sha256, GgufType type) const;

  /// Returns a file of `source` at `target`: the source itself when it already has that type;
  /// otherwise the cached or newly quantized file. Errors (each naming the file): the source fails
  /// inspect_gguf; the source is already quantized to another type (requantizing loses quality
  /// silently, so it is refused); the target needs an importance matrix (see PrecisionInfo); the
  /// folder cannot be written or lacks the space (io); llama_model_quantize fails (engine).
  /// `n_threads` 0: all hardware threads.
  Result<PreparedModel> prepare(const std::filesystem::path& source, GgufType target, int n_threads = 0);

 private:
  Result<std::string> source_hash(const std::filesystem::path& source);

  std::filesystem::path folder_;
  SpaceProbe available_bytes_;
  std::map<std::string, std::string> hash_memo_;  // "path|size|mtime" → sha256: a multi-GB source is hashed once
};

}  // namespace ecocompute::engine
