// QuantizationCache: in-process llama_model_quantize into a hash-keyed folder, atomic by rename.
#include "engine/quantization_cache.hpp"

#include <fmt/format.h>
#include <llama.h>

#include <cstdlib>

#include "engine/llama_backend.hpp"
#include "util/file_io.hpp"
#include "util/log.hpp"
#include "util/units.hpp"

namespace ecocompute::engine {
namespace fs = std::filesystem;

namespace {

// Planning estimate of the output size: every parameter at the main type's bits, plus 10 % for the
// tensors llama.cpp keeps at higher precision and 16 MiB for metadata (a vocabulary is a few MB).
std::uint64_t estimated_output_bytes(const ModelInfo& source, GgufType target) {
  const double bits = precision_info(target).bits_per_weight;
  return static_cast<std::uint64_t>(static_cast<double>(source.n_params) * bits / 8.0 * 1.1) + (16ULL << 20);
}

std::uint64_t free_bytes(const fs::path& folder) {
  std::error_code ec;
  const fs::space_info space = fs::space(folder, ec);
  return ec ? 0 : space.available;
}
}  // namespace

std::string_view to_string(PreparedModel::Origin origin) noexcept {
  switch (origin) {
    case PreparedModel::Origin::source_as_is: return "source-as-is";
    case PreparedModel::Origin::cache_hit: return "cache-hit";
    case PreparedModel::Origin::quantized: return "quantized";
  }
  return "quantized";
}

QuantizationCache::QuantizationCache(fs::path folder, SpaceProbe available_bytes)
    : folder_(std::move(folder)), available_bytes_(available_bytes ? std::move(available_bytes) : SpaceProbe(free_bytes)) {}

fs::path QuantizationCache::default_folder() {
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg != nullptr && *xdg != '\0') return fs::path(xdg) / "ecocompute";
  if (const char* home = std::getenv("HOME"); home != nullptr && *home != '\0') return fs::path(home) / ".cache" / "ecocompute";
  return fs::path(".ecocompute-cache");
}

fs::path QuantizationCache::path_for(std::string_view source_sha256, GgufType type) const {
  return folder_ / std::string(source_sha256) / (std::string(to_string(type)) + ".gguf");
}

Result<std::string> QuantizationCache::source_hash(const fs::path& source) {
  std::error_code ec;
  const auto size = fs::file_size(source, ec);
  const auto mtime = fs::last_write_time(source, ec).time_since_epoch().count();
  const std::string key = fs::absolute(source, ec).string() + "|" + std::to_string(size) + "|" + std::to_string(mtime);
  if (auto found = hash_memo_.find(key); found != hash_memo_.end()) return found->second;
  auto hash = sha256_file(source);
  if (!hash) return hash.error();
  hash_memo_[key] = *hash;
  return *hash;
}

Result<PreparedModel> QuantizationCache::prepare(const fs::path& source, GgufType target, int n_threads) {
  auto src = inspect_gguf(source);
  if (!src) return src.error();
  const std::string target_name(to_string(target));
  if (src->type == target) return PreparedModel{source, target, PreparedModel::Origin::source_as_is, ""};
  if (!precision_info(src->type).is_source_format) {
    return unexpected(ErrorCode::invalid_argument,
                      fmt::format("cannot make {} from {}: the file is already {} (quantizing a quantized model again "
                                  "compounds the error); give an F32, F16 or BF16 GGUF, or a {} file",
                                  target_name, source.string(), src->model.gguf_type, target_name));
  }
  if (precision_info(target).requires_imatrix) {
    return unexpected(ErrorCode::invalid_argument,
                      fmt::format("{} needs an importance matrix (llama.cpp refuses it without one) and this tool does not "
                                  "compute one; give a pre-quantized {} GGUF instead of {}",
                                  target_name, target_name, source.string()));
  }

  auto hash = source_hash(source);
  if (!hash) return hash.error();
  const fs::path out = path_for(*hash, target);
  std::error_code ec;
  if (fs::exists(out, ec)) {
    auto cached = inspect_gguf(out);
    if (cached && cached->type == target) return PreparedModel{out, target, PreparedModel::Origin::cache_hit, *hash};
    log::warn("cached {} is unusable ({}); quantizing again", out.string(),
              cached ? "type " + cached->model.gguf_type : cached.error().describe());
    fs::remove(out, ec);
  }

  fs::create_directories(out.parent_path(), ec);
  if (ec) return unexpected(ErrorCode::io, "cannot create cache folder " + out.parent_path().string() + ": " + ec.message());
  const std::uint64_t needed = estimated_output_bytes(src->model, target);
  if (const std::uint64_t available = available_bytes_(out.parent_path()); available < needed) {
    return unexpected(ErrorCode::io, fmt::format("not enough disk space in {} to quantize {} to {}: about {:.2f} GiB needed, "
                                                 "{:.2f} GiB available",
                                                 out.parent_path().string(), source.string(), target_name,
                                                 static_cast<double>(needed) / kBytesPerGiB, static_cast<double>(available) / kBytesPerGiB));
  }

  ensure_llama_backend();
  llama_model_quantize_params params = llama_model_quantize_default_params();
  params.ftype = static_cast<llama_ftype>(precision_info(target).llama_ftype);
  params.nthread = n_threads;
  log::info("quantizing {} to {} into {}", source.string(), target_name, out.string());
  // Written beside the cache entry and renamed over it only once it reads back as the type asked for.
  auto quantized = replace_file(out, [&](const fs::path& temp) -> Result<void> {
    take_last_llama_error();
    if (llama_model_quantize(source.c_str(), temp.c_str(), &params) != 0) {
      const std::string reason = take_last_llama_error();
      std::error_code removed;
      fs::remove(temp, removed);  // before the space is read again: what it took is free again
      if (available_bytes_(out.parent_path()) < needed) {
        return unexpected(ErrorCode::io, "quantizing " + source.string() + " to " + target_name + " failed: disk full in " +
                                             out.parent_path().string());
      }
      return unexpected(ErrorCode::engine, "llama_model_quantize failed for " + source.string() + " → " + target_name +
                                               (reason.empty() ? "" : " (llama.cpp: " + reason + ")"));
    }
    auto written = inspect_gguf(temp);
    if (!written || written->type != target) {
      return unexpected(ErrorCode::engine, "llama_model_quantize wrote an unusable file for " + source.string() + " → " +
                                               target_name + ": " +
                                               (written ? "type " + written->model.gguf_type : written.error().describe()));
    }
    return {};
  });
  if (!quantized) return quantized.error();
  return PreparedModel{out, target, PreparedModel::Origin::quantized, *hash};
}

}  // namespace ecocompute::engine
