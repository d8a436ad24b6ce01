// The free-text question of the published API and MCP server ("13B on A100 int8 batch 32 ctx 8k"):
// size, GPU or architecture, precision, batch and context, read by fixed rules (no language model).
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace ecocompute::data {

struct QueryText {
  std::optional<double> params_b;      ///< "13B", "13 billion", "1.1B-Chat", "500M"
  std::optional<std::string> gpu;      ///< a GPU of the datasheet table ("A100", "RTX 4090", "H200")
  std::optional<std::string> arch;     ///< an architecture or a GPU family the table lacks ("ampere", "A40", "H800")
  std::optional<std::string> precision;  ///< "INT8" (int8, 8-bit), "NF4" (nf4, 4-bit, q4) or a GGUF type
  std::optional<int> batch;            ///< "batch 32", "bs=8", "batch size 4", "b32"
  std::optional<int> context;          ///< "ctx 8k" (8192), "context 4096", "seqlen 2048", "8k tokens"
};

/// Reads what the text says; fields it does not mention stay absent.
QueryText parse_query_text(std::string_view text);

}  // namespace ecocompute::data
