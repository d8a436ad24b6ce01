// Serving request set: the fixed, reproducible requests every endpoint and concurrency level gets.
#pragma once

#include <cstdint>
#include <filesystem>
#include <vector>

#include "engine/endpoint_client.hpp"
#include "util/result.hpp"

namespace ecocompute::protocol {

/// A request set drawn from a seed: prompt lengths (in words of a fixed list; the server's tokenizer
/// turns them into prompt tokens, which its usage reports) and output lengths (max_tokens), each
/// uniform over its inclusive range.
struct RequestSetOptions {
  std::uint64_t seed = 0;
  int count = 64;
  int prompt_words_min = 16;
  int prompt_words_max = 128;
  int output_tokens_min = 32;
  int output_tokens_max = 128;
};

/// Draws the set with std::mt19937_64(seed) and a platform-independent mapping to the ranges, so a
/// seed gives the same requests everywhere. Throws InvariantError on an empty or inverted range.
[[nodiscard]] std::vector<engine::CompletionRequest> make_request_set(const RequestSetOptions& options);

/// Reads a JSONL file, one {"prompt": "…", "max_tokens": N} per line (blank lines skipped). A bad
/// line is an invalid_input error naming the file and line; an empty file is one too.
[[nodiscard]] Result<std::vector<engine::CompletionRequest>> read_request_set(const std::filesystem::path& path);

}  // namespace ecocompute::protocol
