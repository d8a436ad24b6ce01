// FixtureTokenizer: builds a small SentencePiece-style ("llama") vocabulary from a training text by
// byte-pair merges, for the trained fixture model.
#pragma once

#include <cstddef>
#include <string_view>

#include "modelgen/model_writer.hpp"
#include "util/result.hpp"

namespace ecocompute::modelgen {

/// Ids of the fixed pieces at the start of every fixture vocabulary.
inline constexpr std::uint32_t fixture_unknown_id = 0;  ///< <unk>
inline constexpr std::uint32_t fixture_bos_id = 1;      ///< <s>
inline constexpr std::uint32_t fixture_eos_id = 2;      ///< </s>
inline constexpr std::uint32_t fixture_first_byte_id = 3;  ///< <0x00> … <0xFF> follow

/// Builds a "llama" (SentencePiece) tokenizer of exactly `vocab_size` pieces from `text`:
/// <unk>, <s>, </s>, the 256 byte-fallback pieces <0x00>…<0xFF>, every character of the text, then
/// the most frequent merges learnt on the text's words (a space becomes "▁" and starts a word, as
/// llama.cpp's SentencePiece tokenizer sees it; "\n" stands alone). A merge's score is minus its rank,
/// so llama.cpp applies earlier merges first. Deterministic: ties break on the pieces' bytes.
/// Errors: invalid_argument when the text is empty or `vocab_size` cannot hold the fixed pieces and
/// the alphabet, or the text has too few distinct pairs to reach `vocab_size`.
Result<TokenizerSpec> build_fixture_tokenizer(std::string_view text, std::size_t vocab_size);

}  // namespace ecocompute::modelgen
