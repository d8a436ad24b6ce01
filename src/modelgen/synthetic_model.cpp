// The shape table of named architectures (from each model's published config.json) and the tensor
// list llama.cpp's "llama" and "qwen2" loaders expect for a shape.
#include "modelgen/synthetic_model.hpp"

#include <fmt/format.h>

namespace ecocompute::modelgen {
namespace {

ModelShape llama3(std::string id, std::string display, std::uint32_t n_layer, std::uint32_t n_embd,
                  std::uint32_t n_head, std::uint32_t n_ff, std::uint32_t n_ctx_train, bool tied) {
  ModelShape s;
  s.id = std::move(id);
  s.display_name = std::move(display);
  s.architecture = "llama";
  s.vocab = "llama-bpe";
  s.n_layer = n_layer;
  s.n_embd = n_embd;
  s.n_head = n_head;
  s.n_head_kv = 8;
  s.n_ff = n_ff;
  s.n_vocab = 128256;
  s.n_ctx_train = n_ctx_train;
  s.rope_freq_base = 500000.0F;
  s.norm_rms_eps = 1e-5F;
  s.tied_embeddings = tied;
  return s;
}

ModelShape qwen2(std::string id, std::string display, std::uint32_t n_layer, std::uint32_t n_embd,
                 std::uint32_t n_head, std::uint32_t n_head_kv, std::uint32_t n_ff, std::uint32_t n_vocab,
                 bool tied, float norm_rms_eps) {
  ModelShape s;
  s.id = std::move(id);
  s.display_name = std::move(display);
  s.architecture = "qwen2";
  s.vocab = "qwen2";
  s.n_layer = n_layer;
  s.n_embd = n_embd;
  s.n_head = n_head;
  s.n_head_kv = n_head_kv;
  s.n_ff = n_ff;
  s.n_vocab = n_vocab;
  s.n_ctx_train = 32768;
  s.rope_freq_base = 1000000.0F;
  s.norm_rms_eps = norm_rms_eps;
  s.tied_embeddings = tied;
  s.qkv_bias = true;
  return s;
}

ModelShape test_only(ModelShape s, std::string id) {
  s.id = std::move(id);
  s.display_name += " (tiny test shape)";
  s.test_only = true;
  return s;
}

const std::vector<ModelShape>& shape_table() {
  // Llama-3 (8B) and Llama-3.2 (1B, 3B): 128256-token vocab, 8 kv heads, rope theta 500000.
  // Qwen2 / Qwen2.5: q/k/v biases, rope theta 1e6; the small ones tie their embeddings.
  static const std::vector<ModelShape> table = [] {
    std::vector<ModelShape> t;
    t.push_back(llama3("llama3-1b", "Llama-3.2-1B", 16, 2048, 32, 8192, 131072, true));
    t.push_back(llama3("llama3-3b", "Llama-3.2-3B", 28, 3072, 24, 8192, 131072, true));
    t.push_back(llama3("llama3-8b", "Llama-3-8B", 32, 4096, 32, 14336, 8192, false));
    t.push_back(qwen2("qwen2-0.5b", "Qwen2-0.5B", 24, 896, 14, 2, 4864, 151936, true, 1e-6F));
    t.push_back(qwen2("qwen2-1.5b", "Qwen2-1.5B", 28, 1536, 12, 2, 8960, 151936, true, 1e-6F));
    t.push_back(qwen2("qwen2-7b", "Qwen2-7B", 28, 3584, 28, 4, 18944, 152064, false, 1e-6F));
    t.push_back(qwen2("qwen2.5-3b", "Qwen2.5-3B", 36, 2048, 16, 2, 11008, 151936, true, 1e-6F));
    t.push_back(qwen2("qwen2.5-14b", "Qwen2.5-14B", 48, 5120, 40, 8, 13824, 152064, false, 1e-5F));
    // The sizes served on H200 nodes, whose F16 baseline needs a RAM-backed file system (65 GB) or
    // several GPUs (141 GB): docs/findings/h200-32b-70b-plan.md.
    t.push_back(qwen2("qwen2.5-32b", "Qwen2.5-32B", 64, 5120, 40, 8, 27648, 152064, false, 1e-5F));
    t.push_back(llama3("llama3.1-70b", "Llama-3.1-70B", 80, 8192, 64, 28672, 131072, false));
    // Two-layer shapes with the real tokenizers, small enough for unit and integration tests.
    t.push_back(test_only(llama3("", "Llama-3", 2, 64, 4, 128, 8192, false), "llama3-tiny"));
    t.back().n_head_kv = 2;
    t.push_back(test_only(qwen2("", "Qwen2", 2, 64, 4, 2, 128, 151936, true, 1e-6F), "qwen2-tiny"));
    return t;
  }();
  return table;
}

TensorSpec tensor(std::string name, std::vector<std::int64_t> ne, TensorRole role) {
  return TensorSpec{std::move(name), std::move(ne), role};
}

}  // namespace

std::int64_t TensorSpec::n_elements() const noexcept {
  std::int64_t n = 1;
  for (std::int64_t d : ne) n *= d;
  return n;
}

std::span<const ModelShape> known_shapes() { return shape_table(); }

Result<ModelShape> find_shape(std::string_view id) {
  std::string names;
  for (const ModelShape& s : shape_table()) {
    if (s.id == id) return s;
    names += names.empty() ? s.id : ", " + s.id;
  }
  return unexpected(ErrorCode::not_found, fmt::format("unknown architecture '{}' (known: {})", id, names));
}

Result<void> validate_shape(const ModelShape& shape) {
  auto fail = [&](std::string_view rule) {
    return unexpected(ErrorCode::invalid_argument, fmt::format("shape '{}': {}", shape.id, rule));
  };
  if (shape.architecture != "llama" && shape.architecture != "qwen2") {
    return fail("architecture must be llama or qwen2, not '" + shape.architecture + "'");
  }
  if (shape.n_layer == 0 || shape.n_embd == 0 || shape.n_head == 0 || shape.n_head_kv == 0 ||
      shape.n_ff == 0 || shape.n_vocab == 0 || shape.n_ctx_train == 0) {
    return fail("layers, width, heads, kv heads, ffn, vocab and context must all be > 0");
  }
  if (shape.n_embd % shape.n_head != 0) return fail("n_head must divide n_embd");
  if (shape.n_head % shape.n_head_kv != 0) return fail("n_head_kv must divide n_head");
  if (shape.head_dim() % 2 != 0) return fail("the head width must be even (rope)");
  return {};
}

std::vector<TensorSpec> tensor_specs(const ModelShape& shape) {
  const std::int64_t embd = shape.n_embd;
  const std::int64_t kv = static_cast<std::int64_t>(shape.head_dim()) * shape.n_head_kv;
  const std::int64_t ff = shape.n_ff;
  std::vector<TensorSpec> specs;
  specs.push_back(tensor("token_embd.weight", {embd, shape.n_vocab}, TensorRole::embedding));
  for (std::uint32_t i = 0; i < shape.n_layer; ++i) {
    const std::string blk = fmt::format("blk.{}.", i);
    specs.push_back(tensor(blk + "attn_norm.weight", {embd}, TensorRole::norm));
    specs.push_back(tensor(blk + "attn_q.weight", {embd, embd}, TensorRole::matrix));
    specs.push_back(tensor(blk + "attn_k.weight", {embd, kv}, TensorRole::matrix));
    specs.push_back(tensor(blk + "attn_v.weight", {embd, kv}, TensorRole::matrix));
    if (shape.qkv_bias) {
      specs.push_back(tensor(blk + "attn_q.bias", {embd}, TensorRole::bias));
      specs.push_back(tensor(blk + "attn_k.bias", {kv}, TensorRole::bias));
      specs.push_back(tensor(blk + "attn_v.bias", {kv}, TensorRole::bias));
    }
    specs.push_back(tensor(blk + "attn_output.weight", {embd, embd}, TensorRole::matrix));
    specs.push_back(tensor(blk + "ffn_norm.weight", {embd}, TensorRole::norm));
    specs.push_back(tensor(blk + "ffn_gate.weight", {embd, ff}, TensorRole::matrix));
    specs.push_back(tensor(blk + "ffn_down.weight", {ff, embd}, TensorRole::matrix));
    specs.push_back(tensor(blk + "ffn_up.weight", {embd, ff}, TensorRole::matrix));
  }
  specs.push_back(tensor("output_norm.weight", {embd}, TensorRole::norm));
  if (!shape.tied_embeddings) {
    specs.push_back(tensor("output.weight", {embd, shape.n_vocab}, TensorRole::matrix));
  }
  return specs;
}

std::uint64_t parameter_count(const ModelShape& shape) {
  std::uint64_t n = 0;
  for (const TensorSpec& t : tensor_specs(shape)) n += static_cast<std::uint64_t>(t.n_elements());
  return n;
}

}  // namespace ecocompute::modelgen
