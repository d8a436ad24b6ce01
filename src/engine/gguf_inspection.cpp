// GGUF inspection through gguf.h (no_alloc), with the checks llama.cpp's loader would abort on.
#include "engine/gguf_inspection.hpp"

#include <ggml.h>
#include <gguf.h>

#include <array>
#include <cctype>
#include <cstdio>
#include <map>
#include <optional>

#include "engine/gguf_handle.hpp"
#include "engine/llama_backend.hpp"
#include "engine/weights_label.hpp"

namespace ecocompute::engine {
namespace fs = std::filesystem;

namespace {
Error bad_file(const fs::path& path, const std::string& problem) {
  return Error{ErrorCode::invalid_input, "GGUF file " + path.string() + ": " + problem};
}

// gguf_get_val_* aborts on a type mismatch, so every read checks the stored type first.
std::string string_value(const gguf_context* ctx, const char* key) {
  const std::int64_t id = gguf_find_key(ctx, key);
  if (id < 0 || gguf_get_kv_type(ctx, id) != GGUF_TYPE_STRING) return {};
  return gguf_get_val_str(ctx, id);
}

std::optional<std::uint64_t> unsigned_value(const gguf_context* ctx, const std::string& key) {
  const std::int64_t id = gguf_find_key(ctx, key.c_str());
  if (id < 0) return std::nullopt;
  switch (gguf_get_kv_type(ctx, id)) {
    case GGUF_TYPE_UINT8: return gguf_get_val_u8(ctx, id);
    case GGUF_TYPE_UINT16: return gguf_get_val_u16(ctx, id);
    case GGUF_TYPE_UINT32: return gguf_get_val_u32(ctx, id);
    case GGUF_TYPE_UINT64: return gguf_get_val_u64(ctx, id);
    case GGUF_TYPE_INT32: {
      const std::int32_t v = gguf_get_val_i32(ctx, id);
      return v < 0 ? std::nullopt : std::optional<std::uint64_t>(static_cast<std::uint64_t>(v));
    }
    case GGUF_TYPE_INT64: {
      const std::int64_t v = gguf_get_val_i64(ctx, id);
      return v < 0 ? std::nullopt : std::optional<std::uint64_t>(static_cast<std::uint64_t>(v));
    }
    default: return std::nullopt;
  }
}

// The ftype llama.cpp's loader would guess from the dominant tensor type (llama-model-loader.cpp),
// for files without general.file_type.
std::optional<GgufType> guess_type(ggml_type dominant) {
  switch (dominant) {
    case GGML_TYPE_F32: return GgufType::F32;
    case GGML_TYPE_F16: return GgufType::F16;
    case GGML_TYPE_BF16: return GgufType::BF16;
    case GGML_TYPE_Q8_0: return GgufType::Q8_0;
    case GGML_TYPE_Q6_K: return GgufType::Q6_K;
    case GGML_TYPE_Q5_K: return GgufType::Q5_K_M;
    case GGML_TYPE_Q5_0: return GgufType::Q5_0;
    case GGML_TYPE_Q4_K: return GgufType::Q4_K_M;
    case GGML_TYPE_Q4_0: return GgufType::Q4_0;
    case GGML_TYPE_IQ4_NL: return GgufType::IQ4_NL;
    case GGML_TYPE_IQ4_XS: return GgufType::IQ4_XS;
    case GGML_TYPE_Q3_K: return GgufType::Q3_K_M;
    case GGML_TYPE_IQ3_S: return GgufType::IQ3_S;
    case GGML_TYPE_IQ3_XXS: return GgufType::IQ3_XXS;
    case GGML_TYPE_Q2_K: return GgufType::Q2_K;
    case GGML_TYPE_IQ2_S: return GgufType::IQ2_M;
    case GGML_TYPE_IQ2_XS: return GgufType::IQ2_XS;
    case GGML_TYPE_IQ2_XXS: return GgufType::IQ2_XXS;
    default: return std::nullopt;
  }
}

// Reads the fixed 24-byte header ourselves so the common failures get a precise message; gguf.cpp only
// logs them.
Result<std::uint32_t> check_header(const fs::path& path, std::uint64_t file_bytes) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) return unexpected(ErrorCode::io, "cannot open GGUF file " + path.string());
  std::array<unsigned char, 8> head{};
  const std::size_t got = std::fread(head.data(), 1, head.size(), f);
  std::fclose(f);
  if (got < 4) return bad_file(path, "not a GGUF file: only " + std::to_string(file_bytes) + " bytes");
  if (head[0] != 'G' || head[1] != 'G' || head[2] != 'U' || head[3] != 'F') {
    std::string magic;
    for (int i = 0; i < 4; ++i) magic += std::isprint(head[i]) != 0 ? static_cast<char>(head[i]) : '?';
    return bad_file(path, "not a GGUF file (magic is '" + magic + "', expected 'GGUF')");
  }
  if (got < 8) return bad_file(path, "truncated header (" + std::to_string(file_bytes) + " bytes)");
  const std::uint32_t version = head[4] | (head[5] << 8) | (head[6] << 16) | (static_cast<std::uint32_t>(head[7]) << 24);
  if (version < 2 || version > GGUF_VERSION) {
    return bad_file(path, "unsupported GGUF version " + std::to_string(version) + " (this build reads 2 to " +
                              std::to_string(GGUF_VERSION) + ")");
  }
  return version;
}
}  // namespace

Result<GgufInspection> inspect_gguf(const fs::path& path) {
  ensure_llama_backend();  // routes gguf.cpp's log through our quiet logger
  std::error_code ec;
  if (!fs::exists(path, ec)) return unexpected(ErrorCode::not_found, "GGUF file not found: " + path.string());
  if (!fs::is_regular_file(path, ec)) return bad_file(path, "not a regular file");
  const std::uint64_t file_bytes = fs::file_size(path, ec);
  if (ec) return unexpected(ErrorCode::io, "cannot read the size of " + path.string() + ": " + ec.message());

  auto version = check_header(path, file_bytes);
  if (!version) return version.error();

  GgufPtr ctx(gguf_init_from_file(path.c_str(), gguf_init_params{/*no_alloc=*/true, /*ctx=*/nullptr}));
  if (!ctx) {
    return bad_file(path, "truncated or corrupt metadata or tensor table (" + std::to_string(file_bytes) +
                              " bytes; gguf could not parse it)");
  }

  GgufInspection out;
  out.gguf_version = *version;
  out.file_bytes = file_bytes;
  out.n_tensors = gguf_get_n_tensors(ctx.get());
  out.data_offset = gguf_get_data_offset(ctx.get());
  if (out.n_tensors == 0) return bad_file(path, "has no tensors (a vocab-only GGUF holds a tokenizer, not a model)");

  ModelInfo& model = out.model;
  model.path = path;
  model.architecture = string_value(ctx.get(), "general.architecture");
  if (model.architecture.empty()) return bad_file(path, "has no general.architecture");
  model.name = string_value(ctx.get(), "general.name");
  if (model.name.empty()) model.name = path.stem().string();
  out.weights_label = string_value(ctx.get(), std::string(weights_metadata_key).c_str());
  model.synthetic_weights = out.weights_label == weights_synthetic;
  model.n_ctx_train = static_cast<std::uint32_t>(
      unsigned_value(ctx.get(), model.architecture + ".context_length").value_or(0));
  const std::int64_t tokens_id = gguf_find_key(ctx.get(), "tokenizer.ggml.tokens");
  if (tokens_id >= 0 && gguf_get_kv_type(ctx.get(), tokens_id) == GGUF_TYPE_ARRAY) {
    model.n_vocab = static_cast<std::int32_t>(gguf_get_arr_n(ctx.get(), tokens_id));
  }

  // Sizes, parameter count, truncation and the dominant 2-D tensor type, in one pass.
  std::map<ggml_type, std::uint64_t> elements_by_type;
  for (std::int64_t i = 0; i < out.n_tensors; ++i) {
    const ggml_type type = gguf_get_tensor_type(ctx.get(), i);
    const std::int64_t* ne = gguf_get_tensor_ne(ctx.get(), i);
    std::uint64_t elements = 1;
    for (int d = 0; d < GGML_MAX_DIMS; ++d) elements *= static_cast<std::uint64_t>(ne[d]);
    const std::uint64_t bytes = gguf_get_tensor_size(ctx.get(), i);
    const std::uint64_t end = out.data_offset + gguf_get_tensor_offset(ctx.get(), i) + bytes;
    if (end > file_bytes) {
      return bad_file(path, "truncated: tensor '" + std::string(gguf_get_tensor_name(ctx.get(), i)) + "' ends at byte " +
                                std::to_string(end) + " but the file has " + std::to_string(file_bytes) + " bytes");
    }
    model.n_params += elements;
    model.size_bytes += bytes;
    if (ne[1] > 1) elements_by_type[type] += elements;
  }
  if (model.n_params == 0) return bad_file(path, "its tensors hold no elements");
  // bits per weight = tensor bytes × 8 / elements, over every tensor (norms and embeddings included).
  model.bits_per_weight = static_cast<double>(model.size_bytes) * 8.0 / static_cast<double>(model.n_params);

  const auto file_type = unsigned_value(ctx.get(), "general.file_type");
  if (file_type) {
    auto type = gguf_type_from_llama_ftype(static_cast<int>(*file_type));
    if (!type) return Error{ErrorCode::invalid_input, "GGUF file " + path.string(), type.error()};
    out.type = *type;
  } else {
    ggml_type dominant = GGML_TYPE_F32;
    std::uint64_t most = 0;
    for (const auto& [type, elements] : elements_by_type) {
      if (elements > most) {
        most = elements;
        dominant = type;
      }
    }
    const auto guessed = guess_type(dominant);
    if (!guessed) {
      return bad_file(path, "has no general.file_type and its main tensor type " + std::string(ggml_type_name(dominant)) +
                                " is not one this tool measures; valid types: " + valid_gguf_type_names());
    }
    out.type = *guessed;
    out.type_guessed = true;
  }
  model.gguf_type = std::string(to_string(out.type));
  model.precision_class = std::string(precision_info(out.type).precision_class);
  return out;
}

}  // namespace ecocompute::engine
