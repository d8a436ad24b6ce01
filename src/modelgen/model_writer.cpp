// ModelWriter: GGUF header from gguf.h's writer (metadata only), then tensor data streamed in chunks.
#include "modelgen/model_writer.hpp"

#include "engine/gguf_handle.hpp"

#include <fmt/format.h>
#include <ggml.h>
#include <gguf.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <thread>

#include "util/file_io.hpp"

namespace ecocompute::modelgen {
namespace fs = std::filesystem;

namespace {

struct FileCloser {
  void operator()(std::FILE* f) const noexcept { std::fclose(f); }
};
using FilePtr = std::unique_ptr<std::FILE, FileCloser>;

constexpr const char* key_model = "tokenizer.ggml.model";
constexpr const char* key_pre = "tokenizer.ggml.pre";
constexpr const char* key_tokens = "tokenizer.ggml.tokens";
constexpr const char* key_scores = "tokenizer.ggml.scores";
constexpr const char* key_token_type = "tokenizer.ggml.token_type";
constexpr const char* key_merges = "tokenizer.ggml.merges";
constexpr const char* key_bos = "tokenizer.ggml.bos_token_id";
constexpr const char* key_eos = "tokenizer.ggml.eos_token_id";
constexpr const char* key_unknown = "tokenizer.ggml.unknown_token_id";
constexpr const char* key_padding = "tokenizer.ggml.padding_token_id";
constexpr const char* key_add_bos = "tokenizer.ggml.add_bos_token";
constexpr const char* key_add_eos = "tokenizer.ggml.add_eos_token";
constexpr const char* key_add_space_prefix = "tokenizer.ggml.add_space_prefix";
constexpr const char* key_chat_template = "tokenizer.chat_template";

// --- reading ---------------------------------------------------------------------------------

std::optional<std::uint32_t> read_token_id(const gguf_context* ctx, const char* key) {
  const std::int64_t id = gguf_find_key(ctx, key);
  if (id < 0) return std::nullopt;
  switch (gguf_get_kv_type(ctx, id)) {
    case GGUF_TYPE_UINT32: return gguf_get_val_u32(ctx, id);
    case GGUF_TYPE_INT32: {
      const std::int32_t v = gguf_get_val_i32(ctx, id);
      return v < 0 ? std::nullopt : std::optional<std::uint32_t>(static_cast<std::uint32_t>(v));
    }
    default: return std::nullopt;
  }
}

std::optional<bool> read_bool(const gguf_context* ctx, const char* key) {
  const std::int64_t id = gguf_find_key(ctx, key);
  if (id < 0 || gguf_get_kv_type(ctx, id) != GGUF_TYPE_BOOL) return std::nullopt;
  return gguf_get_val_bool(ctx, id);
}

std::string read_string(const gguf_context* ctx, const char* key) {
  const std::int64_t id = gguf_find_key(ctx, key);
  if (id < 0 || gguf_get_kv_type(ctx, id) != GGUF_TYPE_STRING) return {};
  return gguf_get_val_str(ctx, id);
}

// Reads an array key of strings; nullopt when absent or of another type.
std::optional<std::vector<std::string>> read_strings(const gguf_context* ctx, const char* key) {
  const std::int64_t id = gguf_find_key(ctx, key);
  if (id < 0 || gguf_get_kv_type(ctx, id) != GGUF_TYPE_ARRAY || gguf_get_arr_type(ctx, id) != GGUF_TYPE_STRING) {
    return std::nullopt;
  }
  const std::size_t n = gguf_get_arr_n(ctx, id);
  std::vector<std::string> out;
  out.reserve(n);
  for (std::size_t i = 0; i < n; ++i) out.emplace_back(gguf_get_arr_str(ctx, id, i));
  return out;
}

template <typename T>
std::optional<std::vector<T>> read_numbers(const gguf_context* ctx, const char* key, gguf_type type) {
  const std::int64_t id = gguf_find_key(ctx, key);
  if (id < 0 || gguf_get_kv_type(ctx, id) != GGUF_TYPE_ARRAY || gguf_get_arr_type(ctx, id) != type) {
    return std::nullopt;
  }
  const std::size_t n = gguf_get_arr_n(ctx, id);
  const auto* data = static_cast<const T*>(gguf_get_arr_data(ctx, id));
  return std::vector<T>(data, data + n);
}

// --- writing metadata ------------------------------------------------------------------------

void set_strings(gguf_context* ctx, const char* key, const std::vector<std::string>& values) {
  std::vector<const char*> pointers;
  pointers.reserve(values.size());
  for (const std::string& v : values) pointers.push_back(v.c_str());
  gguf_set_arr_str(ctx, key, pointers.data(), pointers.size());
}

void set_tokenizer(gguf_context* ctx, const TokenizerSpec& t) {
  gguf_set_val_str(ctx, key_model, t.model.c_str());
  if (!t.pre.empty()) gguf_set_val_str(ctx, key_pre, t.pre.c_str());
  set_strings(ctx, key_tokens, t.tokens);
  if (!t.scores.empty()) gguf_set_arr_data(ctx, key_scores, GGUF_TYPE_FLOAT32, t.scores.data(), t.scores.size());
  gguf_set_arr_data(ctx, key_token_type, GGUF_TYPE_INT32, t.token_types.data(), t.token_types.size());
  if (!t.merges.empty()) set_strings(ctx, key_merges, t.merges);
  if (t.bos_id) gguf_set_val_u32(ctx, key_bos, *t.bos_id);
  if (t.eos_id) gguf_set_val_u32(ctx, key_eos, *t.eos_id);
  if (t.unknown_id) gguf_set_val_u32(ctx, key_unknown, *t.unknown_id);
  if (t.padding_id) gguf_set_val_u32(ctx, key_padding, *t.padding_id);
  if (t.add_bos) gguf_set_val_bool(ctx, key_add_bos, *t.add_bos);
  if (t.add_eos) gguf_set_val_bool(ctx, key_add_eos, *t.add_eos);
  if (t.add_space_prefix) gguf_set_val_bool(ctx, key_add_space_prefix, *t.add_space_prefix);
  if (!t.chat_template.empty()) gguf_set_val_str(ctx, key_chat_template, t.chat_template.c_str());
}

// llama_ftype numbers for general.file_type.
std::uint32_t file_type(WeightType type) {
  switch (type) {
    case WeightType::f32: return 0;   // LLAMA_FTYPE_ALL_F32
    case WeightType::f16: return 1;   // LLAMA_FTYPE_MOSTLY_F16
    case WeightType::bf16: return 32; // LLAMA_FTYPE_MOSTLY_BF16
  }
  return 0;
}

ggml_type storage_type(TensorRole role, WeightType type) {
  if (role == TensorRole::norm || role == TensorRole::bias) return GGML_TYPE_F32;
  switch (type) {
    case WeightType::f32: return GGML_TYPE_F32;
    case WeightType::f16: return GGML_TYPE_F16;
    case WeightType::bf16: return GGML_TYPE_BF16;
  }
  return GGML_TYPE_F32;
}

void set_shape(gguf_context* ctx, const ModelShape& s) {
  const std::string& a = s.architecture;
  auto key = [&](std::string_view suffix) { return fmt::format("{}.{}", a, suffix); };
  gguf_set_val_str(ctx, "general.architecture", a.c_str());
  gguf_set_val_u32(ctx, key("vocab_size").c_str(), s.n_vocab);
  gguf_set_val_u32(ctx, key("context_length").c_str(), s.n_ctx_train);
  gguf_set_val_u32(ctx, key("embedding_length").c_str(), s.n_embd);
  gguf_set_val_u32(ctx, key("block_count").c_str(), s.n_layer);
  gguf_set_val_u32(ctx, key("feed_forward_length").c_str(), s.n_ff);
  gguf_set_val_u32(ctx, key("attention.head_count").c_str(), s.n_head);
  gguf_set_val_u32(ctx, key("attention.head_count_kv").c_str(), s.n_head_kv);
  gguf_set_val_u32(ctx, key("rope.dimension_count").c_str(), s.head_dim());
  gguf_set_val_f32(ctx, key("rope.freq_base").c_str(), s.rope_freq_base);
  gguf_set_val_f32(ctx, key("attention.layer_norm_rms_epsilon").c_str(), s.norm_rms_eps);
}

// --- weights ---------------------------------------------------------------------------------

constexpr std::uint64_t golden_gamma = 0x9E3779B97F4A7C15ULL;

constexpr std::uint64_t mix64(std::uint64_t z) noexcept {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

std::uint64_t fnv1a(std::string_view text) noexcept {
  std::uint64_t h = 0xCBF29CE484222325ULL;
  for (char c : text) h = (h ^ static_cast<unsigned char>(c)) * 0x100000001B3ULL;
  return h;
}

// Fills values[i] with element `first + i` of a tensor: a splitmix64 stream indexed by element, so
// any chunk can be generated independently of the others.
void fill_chunk(TensorRole role, std::uint64_t stream, float half_width, std::int64_t first, float* values,
                std::int64_t count) {
  if (role == TensorRole::norm) {
    std::fill(values, values + count, 1.0F);
    return;
  }
  for (std::int64_t i = 0; i < count; ++i) {
    const std::uint64_t bits = mix64(stream + static_cast<std::uint64_t>(first + i + 1) * golden_gamma);
    const float unit = static_cast<float>(bits >> 40) * (1.0F / 16777216.0F);  // [0, 1), 24 bits
    values[i] = (2.0F * unit - 1.0F) * half_width;
  }
}

class TensorStreamer {
 public:
  TensorStreamer(std::FILE* file, unsigned n_threads) : file_(file), n_threads_(std::max(1U, n_threads)) {}

  // Generates and writes one tensor; false on a write error.
  bool write(const TensorSpec& spec, ggml_type type, std::uint64_t stream, float half_width) {
    const std::int64_t n = spec.n_elements();
    for (std::int64_t first = 0; first < n; first += chunk_elements) {
      const std::int64_t count = std::min(chunk_elements, n - first);
      generate(spec.role, stream, half_width, first, count);
      const void* bytes = values_.data();
      std::size_t size = static_cast<std::size_t>(count) * sizeof(float);
      if (type == GGML_TYPE_F16) {
        half_.resize(static_cast<std::size_t>(count));
        ggml_fp32_to_fp16_row(values_.data(), half_.data(), count);
        bytes = half_.data();
        size = static_cast<std::size_t>(count) * sizeof(ggml_fp16_t);
      } else if (type == GGML_TYPE_BF16) {
        bf16_.resize(static_cast<std::size_t>(count));
        ggml_fp32_to_bf16_row(values_.data(), bf16_.data(), count);
        bytes = bf16_.data();
        size = static_cast<std::size_t>(count) * sizeof(ggml_bf16_t);
      }
      if (std::fwrite(bytes, 1, size, file_) != size) return false;
    }
    return true;
  }

 private:
  static constexpr std::int64_t chunk_elements = std::int64_t{1} << 22;

  void generate(TensorRole role, std::uint64_t stream, float half_width, std::int64_t first, std::int64_t count) {
    values_.resize(static_cast<std::size_t>(count));
    const std::int64_t per_thread = (count + n_threads_ - 1) / n_threads_;
    if (n_threads_ == 1 || count < 65536) {
      fill_chunk(role, stream, half_width, first, values_.data(), count);
      return;
    }
    std::vector<std::jthread> workers;
    for (unsigned t = 0; t < n_threads_; ++t) {
      const std::int64_t begin = t * per_thread;
      const std::int64_t end = std::min(count, begin + per_thread);
      if (begin >= end) break;
      workers.emplace_back([=, this] {
        fill_chunk(role, stream, half_width, first + begin, values_.data() + begin, end - begin);
      });
    }
  }

  std::FILE* file_;
  unsigned n_threads_;
  std::vector<float> values_;
  std::vector<ggml_fp16_t> half_;
  std::vector<ggml_bf16_t> bf16_;
};

bool write_zeros(std::FILE* file, std::size_t n) {
  static constexpr char zeros[64] = {};
  while (n > 0) {
    const std::size_t step = std::min(n, sizeof(zeros));
    if (std::fwrite(zeros, 1, step, file) != step) return false;
    n -= step;
  }
  return true;
}

Result<void> check_tokenizer(const TokenizerSpec& t, const ModelShape& shape) {
  auto fail = [&](const std::string& what) {
    return unexpected(ErrorCode::invalid_argument, fmt::format("tokenizer for shape '{}': {}", shape.id, what));
  };
  if (t.model.empty()) return fail("no tokenizer model (tokenizer.ggml.model)");
  if (t.tokens.empty()) return fail("no tokens");
  if (t.tokens.size() > shape.n_vocab) {
    return fail(fmt::format("{} tokens but the shape has {} vocabulary rows", t.tokens.size(), shape.n_vocab));
  }
  if (t.token_types.size() != t.tokens.size()) return fail("token_type count differs from the token count");
  if (!t.scores.empty() && t.scores.size() != t.tokens.size()) return fail("score count differs from the token count");
  return {};
}

}  // namespace

Result<TokenizerSpec> read_tokenizer(const fs::path& gguf) {
  std::error_code ec;
  if (!fs::is_regular_file(gguf, ec)) return unexpected(ErrorCode::not_found, "no such vocab file: " + gguf.string());
  gguf_init_params params{/*no_alloc=*/true, /*ctx=*/nullptr};
  engine::GgufPtr ctx(gguf_init_from_file(gguf.c_str(), params));
  if (!ctx) return unexpected(ErrorCode::invalid_input, "not a readable GGUF file: " + gguf.string());
  TokenizerSpec t;
  t.model = read_string(ctx.get(), key_model);
  t.pre = read_string(ctx.get(), key_pre);
  auto tokens = read_strings(ctx.get(), key_tokens);
  auto types = read_numbers<std::int32_t>(ctx.get(), key_token_type, GGUF_TYPE_INT32);
  if (t.model.empty() || !tokens || tokens->empty() || !types || types->size() != tokens->size()) {
    return unexpected(ErrorCode::invalid_input,
                      gguf.string() + ": no usable tokenizer (needs tokenizer.ggml.model, tokens and token_type)");
  }
  t.tokens = std::move(*tokens);
  t.token_types = std::move(*types);
  if (auto scores = read_numbers<float>(ctx.get(), key_scores, GGUF_TYPE_FLOAT32)) t.scores = std::move(*scores);
  if (auto merges = read_strings(ctx.get(), key_merges)) t.merges = std::move(*merges);
  if (!t.scores.empty() && t.scores.size() != t.tokens.size()) {
    return unexpected(ErrorCode::invalid_input, gguf.string() + ": score count differs from the token count");
  }
  t.bos_id = read_token_id(ctx.get(), key_bos);
  t.eos_id = read_token_id(ctx.get(), key_eos);
  t.unknown_id = read_token_id(ctx.get(), key_unknown);
  t.padding_id = read_token_id(ctx.get(), key_padding);
  t.add_bos = read_bool(ctx.get(), key_add_bos);
  t.add_eos = read_bool(ctx.get(), key_add_eos);
  t.add_space_prefix = read_bool(ctx.get(), key_add_space_prefix);
  t.chat_template = read_string(ctx.get(), key_chat_template);
  return t;
}

void pad_tokenizer(TokenizerSpec& tokenizer, std::size_t n_vocab) {
  for (std::size_t i = tokenizer.tokens.size(); i < n_vocab; ++i) {
    tokenizer.tokens.push_back(fmt::format("[PAD{}]", i));
    tokenizer.token_types.push_back(static_cast<std::int32_t>(TokenType::unused));
    if (!tokenizer.scores.empty()) tokenizer.scores.push_back(0.0F);
  }
}

Result<fs::path> find_vocab_file(std::string_view vocab, const fs::path& vocab_dir) {
  const std::string file = fmt::format("ggml-vocab-{}.gguf", vocab);
  std::vector<fs::path> folders;
  if (!vocab_dir.empty()) {
    folders.push_back(vocab_dir);
  } else {
    if (const char* env = std::getenv("ECOCOMPUTE_VOCAB_DIR"); env != nullptr && *env != '\0') folders.emplace_back(env);
    folders.push_back(data_dir() / "vocab");
    folders.push_back(data_dir().parent_path() / "third_party" / "llama.cpp" / "models");
  }
  std::string searched;
  for (const fs::path& folder : folders) {
    std::error_code ec;
    if (fs::is_regular_file(folder / file, ec)) return folder / file;
    searched += (searched.empty() ? "" : ", ") + folder.string();
  }
  return unexpected(ErrorCode::not_found,
                    fmt::format("vocab file {} not found in {} (pass --vocab-dir or set ECOCOMPUTE_VOCAB_DIR to "
                                "llama.cpp's models/ folder)",
                                file, searched));
}

Result<WeightType> parse_weight_type(std::string_view text) {
  std::string lower(text);
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
  if (lower == "f32") return WeightType::f32;
  if (lower == "f16") return WeightType::f16;
  if (lower == "bf16") return WeightType::bf16;
  return unexpected(ErrorCode::invalid_argument, fmt::format("unknown weight type '{}' (use f16, bf16 or f32)", text));
}

std::string_view to_string(WeightType type) noexcept {
  switch (type) {
    case WeightType::f32: return "f32";
    case WeightType::f16: return "f16";
    case WeightType::bf16: return "bf16";
  }
  return "f32";
}

Result<ModelWriteSummary> write_model(const fs::path& out, const ModelWriteRequest& request) {
  const ModelShape& shape = request.shape;
  if (auto valid = validate_shape(shape); !valid) return valid.error();
  if (auto valid = check_tokenizer(request.tokenizer, shape); !valid) return valid.error();
  if (!(request.init_std > 0.0F) || !std::isfinite(request.init_std) || !(request.embedding_std >= 0.0F) ||
      !std::isfinite(request.embedding_std)) {
    return unexpected(ErrorCode::invalid_argument, "init_std must be positive and embedding_std >= 0 (finite)");
  }
  TokenizerSpec tokenizer = request.tokenizer;
  pad_tokenizer(tokenizer, shape.n_vocab);

  engine::GgufPtr gguf(gguf_init_empty());
  set_shape(gguf.get(), shape);
  gguf_set_val_str(gguf.get(), "general.name", request.name.c_str());
  gguf_set_val_u32(gguf.get(), "general.file_type", file_type(request.type));
  if (!request.weights.empty()) {
    gguf_set_val_str(gguf.get(), std::string(engine::weights_metadata_key).c_str(), request.weights.c_str());
  }
  gguf_set_val_u64(gguf.get(), "ecocompute.seed", request.seed);
  for (const auto& [key, value] : request.extra_metadata) gguf_set_val_str(gguf.get(), key.c_str(), value.c_str());
  set_tokenizer(gguf.get(), tokenizer);

  const std::vector<TensorSpec> specs = tensor_specs(shape);
  ggml_init_params meta_params{/*mem_size=*/(specs.size() + 1) * ggml_tensor_overhead(), /*mem_buffer=*/nullptr,
                               /*no_alloc=*/true};
  engine::GgmlPtr meta(ggml_init(meta_params));
  if (!meta) return unexpected(ErrorCode::internal, "cannot create a ggml context for tensor metadata");
  std::vector<ggml_type> types;
  std::uint64_t data_bytes = 0;
  const std::size_t alignment = gguf_get_alignment(gguf.get());
  for (const TensorSpec& spec : specs) {
    const ggml_type type = storage_type(spec.role, request.type);
    ggml_tensor* t = ggml_new_tensor(meta.get(), type, static_cast<int>(spec.ne.size()), spec.ne.data());
    ggml_set_name(t, spec.name.c_str());
    gguf_add_tensor(gguf.get(), t);
    types.push_back(type);
    data_bytes += GGML_PAD(ggml_nbytes(t), alignment);
  }
  std::vector<char> header(gguf_get_meta_size(gguf.get()));
  gguf_get_meta_data(gguf.get(), header.data());
  const std::uint64_t total_bytes = header.size() + data_bytes;

  std::error_code ec;
  const fs::path folder = out.has_parent_path() ? out.parent_path() : fs::path(".");
  fs::create_directories(folder, ec);
  if (ec) return unexpected(ErrorCode::io, fmt::format("cannot create folder {}: {}", folder.string(), ec.message()));
  const fs::space_info space = fs::space(folder, ec);
  if (!ec && space.available < total_bytes) {
    return unexpected(ErrorCode::io, fmt::format("not enough disk space in {}: {} needs {:.2f} GB, {:.2f} GB free",
                                                 folder.string(), out.filename().string(), total_bytes / 1e9,
                                                 static_cast<double>(space.available) / 1e9));
  }

  fs::path partial = out;
  partial += ".partial";
  FilePtr file(std::fopen(partial.c_str(), "wb"));
  if (!file) return unexpected(ErrorCode::io, "cannot write " + partial.string());
  auto fail_write = [&] {
    file.reset();
    std::error_code ignored;
    fs::remove(partial, ignored);
    return unexpected(ErrorCode::io, "cannot write " + partial.string() + " (disk full?)");
  };
  if (std::fwrite(header.data(), 1, header.size(), file.get()) != header.size()) return fail_write();

  const unsigned n_threads = request.n_threads != 0 ? request.n_threads : std::max(1U, std::thread::hardware_concurrency());
  TensorStreamer streamer(file.get(), n_threads);
  // Uniform(-a, a) has standard deviation a / sqrt(3).
  const float half_width = request.init_std * std::sqrt(3.0F);
  const float embedding_half_width =
      (request.embedding_std > 0.0F ? request.embedding_std : request.init_std) * std::sqrt(3.0F);
  WriteProgress progress{header.size(), total_bytes, 0, specs.size(), {}};
  for (std::size_t i = 0; i < specs.size(); ++i) {
    const std::uint64_t stream = mix64(request.seed ^ fnv1a(specs[i].name));
    const float a = specs[i].role == TensorRole::embedding ? embedding_half_width : half_width;
    if (!streamer.write(specs[i], types[i], stream, a)) return fail_write();
    const std::size_t size = ggml_row_size(types[i], specs[i].n_elements());
    if (!write_zeros(file.get(), GGML_PAD(size, alignment) - size)) return fail_write();
    progress.bytes_written += GGML_PAD(size, alignment);
    progress.tensors_written = i + 1;
    progress.tensor_name = specs[i].name;
    if (request.on_progress) request.on_progress(progress);
  }
  if (std::fflush(file.get()) != 0 || ::fsync(::fileno(file.get())) != 0) return fail_write();
  if (std::fclose(file.release()) != 0) {
    fs::remove(partial, ec);
    return unexpected(ErrorCode::io, "cannot write " + partial.string() + " (disk full?)");
  }
  fs::rename(partial, out, ec);
  if (ec) {
    fs::remove(partial, ec);
    return unexpected(ErrorCode::io, "cannot rename " + partial.string() + " into " + out.string());
  }
  return ModelWriteSummary{out, parameter_count(shape), total_bytes, specs.size()};
}

Result<ModelWriteSummary> write_synthetic_model(const fs::path& out, const SynthOptions& options) {
  auto shape = find_shape(options.arch);
  if (!shape) return shape.error();
  auto vocab_file = find_vocab_file(shape->vocab, options.vocab_dir);
  if (!vocab_file) return vocab_file.error();
  auto tokenizer = read_tokenizer(*vocab_file);
  if (!tokenizer) return tokenizer.error();

  ModelWriteRequest request;
  request.shape = *shape;
  if (options.layers > 0) {
    if (options.layers > shape->n_layer) {
      return unexpected(ErrorCode::invalid_argument, fmt::format("--layers {}: the {} shape has {} layers", options.layers,
                                                                 shape->id, shape->n_layer));
    }
    request.shape.n_layer = options.layers;
  }
  request.tokenizer = std::move(*tokenizer);
  request.type = options.type;
  request.seed = options.seed;
  request.name = options.layers > 0 ? fmt::format("synthetic {} shape, first {} of {} layers", shape->display_name,
                                                  options.layers, shape->n_layer)
                                    : fmt::format("synthetic {} shape", shape->display_name);
  request.weights = std::string(engine::weights_synthetic);
  request.extra_metadata = {{"ecocompute.shape", shape->id},
                            {"ecocompute.tokenizer_source", vocab_file->filename().string()}};
  request.on_progress = options.on_progress;
  return write_model(out, request);
}

}  // namespace ecocompute::modelgen
