// The free-text question of the published API and MCP server ("13B on A100 int8 batch 32 ctx 8k"):
// size, GPU or architecture, precision, batch and context, read by fixed rules (no language model).
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "util/result.hpp"

namespace ecocompute::data {

struct QueryText {
  std::optional<double> params_b;      ///< "13B", "13 billion", "1.1B-Chat", "500M"; a mixture of experts' total
  std::optional<double> active_params_b;  ///< a mixture of experts' active size ("Mixtral-8x7B": 12.9 of 46.7)
  std::optional<std::string> gpu;      ///< a GPU of the datasheet table ("A100", "RTX 4090", "H200")
  std::optional<std::string> arch;     ///< an architecture or a GPU family the table lacks ("ampere", "A40", "H800")
  std::optional<std::string> precision;  ///< "INT8" (int8, 8-bit), "NF4" (nf4, 4-bit, q4) or a GGUF type
  std::optional<int> batch;            ///< "batch 32", "bs=8", "batch size 4", "b32"
  std::optional<int> context;          ///< "ctx 8k" (8192), "context 4096", "seqlen 2048", "8k tokens"
  std::optional<std::string> unreadable;  ///< a batch or context too large to read ("batch 123456789"), in words
};

/// The longest question read (bytes): the longest published example is under 60; a longer text is
/// refused with a clear error rather than read.
inline constexpr std::size_t max_query_text_bytes = 512;

/// Reads what the text says; fields it does not mention stay absent. Takes time linear in the length
/// of `text`, whatever it holds (no regular expressions, no recursion).
QueryText read_query_text(std::string_view text);

/// Reads a question given as `field` ("q", "--q"): an invalid_argument error naming the field and the
/// limit when it is longer than max_query_text_bytes, or when it asks for a batch or context past
/// kMaxBatch or kMaxContext (model_size.hpp), else read_query_text(text).
Result<QueryText> parse_query_text(std::string_view text, std::string_view field = "q");

}  // namespace ecocompute::data
