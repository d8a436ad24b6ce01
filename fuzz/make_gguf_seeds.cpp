// Writes the GGUF fuzzer's small seeds: micro Llama models (one layer, width 16) with the trained
// fixture's 1024-token tokenizer, in F32 and F16, so mutations reach llama.cpp's loader in a few KB
// instead of the fixture's 3.7 MB. Usage: make_gguf_seeds <fixture.gguf> <folder>
#include <cstdio>
#include <filesystem>

#include "modelgen/model_writer.hpp"

int main(int argc, char** argv) {
  using namespace ecocompute::modelgen;
  if (argc != 3) {
    std::fprintf(stderr, "usage: make_gguf_seeds <fixture.gguf> <folder>\n");
    return 2;
  }
  auto tokenizer = read_tokenizer(argv[1]);
  if (!tokenizer) {
    std::fprintf(stderr, "%s\n", tokenizer.error().describe().c_str());
    return 1;
  }
  ModelShape shape;
  shape.id = "micro";
  shape.display_name = "micro fuzz seed";
  shape.architecture = "llama";
  shape.n_layer = 1;
  shape.n_embd = 16;
  shape.n_head = 2;
  shape.n_head_kv = 1;
  shape.n_ff = 32;
  shape.n_vocab = static_cast<std::uint32_t>(tokenizer->tokens.size());
  shape.n_ctx_train = 64;
  for (const auto& [type, name] : {std::pair{WeightType::f32, "micro-f32.gguf"}, std::pair{WeightType::f16, "micro-f16.gguf"}}) {
    ModelWriteRequest request;
    request.shape = shape;
    request.tokenizer = *tokenizer;
    request.type = type;
    request.seed = 7;
    request.name = "micro fuzz seed";
    request.weights = "synthetic";
    request.n_threads = 1;
    auto written = write_model(std::filesystem::path(argv[2]) / name, request);
    if (!written) {
      std::fprintf(stderr, "%s\n", written.error().describe().c_str());
      return 1;
    }
    std::printf("%s: %llu bytes\n", written->path.c_str(), static_cast<unsigned long long>(written->file_bytes));
  }
  return 0;
}
