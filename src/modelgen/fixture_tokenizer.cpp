// FixtureTokenizer: byte-pair merges over word types, counted once, updated incrementally per merge.
#include "modelgen/fixture_tokenizer.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <unordered_map>
#include <unordered_set>

namespace ecocompute::modelgen {
namespace {

constexpr std::string_view word_boundary = "\xE2\x96\x81";  // U+2581 "▁", SentencePiece's space

// Length of the UTF-8 sequence starting with `lead`, or 1 for a byte that cannot start one.
std::size_t utf8_length(unsigned char lead) noexcept {
  if (lead < 0x80) return 1;
  if ((lead & 0xE0) == 0xC0) return 2;
  if ((lead & 0xF0) == 0xE0) return 3;
  if ((lead & 0xF8) == 0xF0) return 4;
  return 1;
}

// Splits text into words as llama.cpp's SentencePiece tokenizer sees it: spaces become "▁" and start
// a word, a "▁" is put before the first character (add_space_prefix), and "\n" is a word of its own.
// Returns each word as its characters, counted by frequency.
std::map<std::vector<std::string>, std::int64_t> count_words(std::string_view text) {
  std::map<std::vector<std::string>, std::int64_t> words;
  std::vector<std::string> word{std::string(word_boundary)};
  auto flush = [&] {
    if (!word.empty()) ++words[word];
    word.clear();
  };
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t n = std::min(utf8_length(static_cast<unsigned char>(text[i])), text.size() - i);
    const std::string_view ch = text.substr(i, n);
    i += n;
    if (ch == " ") {
      flush();
      word.emplace_back(word_boundary);
    } else if (ch == "\n") {
      flush();
      words[{std::string("\n")}] += 1;
    } else {
      word.emplace_back(ch);
    }
  }
  flush();
  return words;
}

constexpr std::uint64_t pair_key(std::int32_t a, std::int32_t b) noexcept {
  return (static_cast<std::uint64_t>(static_cast<std::uint32_t>(a)) << 32) | static_cast<std::uint32_t>(b);
}

struct Word {
  std::vector<std::int32_t> symbols;
  std::int64_t count = 0;
};

class MergeLearner {
 public:
  MergeLearner(std::vector<Word> words, std::vector<std::string> pieces)
      : words_(std::move(words)), pieces_(std::move(pieces)) {
    for (std::size_t w = 0; w < words_.size(); ++w) add_pairs(static_cast<std::int32_t>(w), +1);
  }

  // Merges the most frequent pair; returns its new piece, or nothing when no pair is left.
  std::optional<std::string> merge_next() {
    std::uint64_t best = 0;
    std::int64_t best_count = 0;
    std::string best_piece;
    for (const auto& [key, count] : pair_count_) {
      if (count <= 0 || count < best_count) continue;
      std::string piece = pieces_[key >> 32] + pieces_[key & 0xFFFFFFFFU];
      if (count > best_count || piece < best_piece) {
        best = key;
        best_count = count;
        best_piece = std::move(piece);
      }
    }
    if (best_count == 0) return std::nullopt;
    const auto a = static_cast<std::int32_t>(best >> 32);
    const auto b = static_cast<std::int32_t>(best & 0xFFFFFFFFU);
    const auto merged = static_cast<std::int32_t>(pieces_.size());
    pieces_.push_back(best_piece);
    const std::vector<std::int32_t> holders = std::move(pair_words_[best]);
    pair_words_.erase(best);
    std::unordered_set<std::int32_t> done;
    for (std::int32_t w : holders) {
      if (!done.insert(w).second) continue;
      add_pairs(w, -1);
      std::vector<std::int32_t>& s = words_[static_cast<std::size_t>(w)].symbols;
      std::vector<std::int32_t> out;
      out.reserve(s.size());
      for (std::size_t i = 0; i < s.size(); ++i) {
        if (i + 1 < s.size() && s[i] == a && s[i + 1] == b) {
          out.push_back(merged);
          ++i;
        } else {
          out.push_back(s[i]);
        }
      }
      s = std::move(out);
      add_pairs(w, +1);
    }
    return best_piece;
  }

 private:
  void add_pairs(std::int32_t w, std::int64_t sign) {
    const Word& word = words_[static_cast<std::size_t>(w)];
    for (std::size_t i = 0; i + 1 < word.symbols.size(); ++i) {
      const std::uint64_t key = pair_key(word.symbols[i], word.symbols[i + 1]);
      pair_count_[key] += sign * word.count;
      if (sign > 0) pair_words_[key].push_back(w);
    }
  }

  std::vector<Word> words_;
  std::vector<std::string> pieces_;
  std::unordered_map<std::uint64_t, std::int64_t> pair_count_;
  std::unordered_map<std::uint64_t, std::vector<std::int32_t>> pair_words_;
};

}  // namespace

Result<TokenizerSpec> build_fixture_tokenizer(std::string_view text, std::size_t vocab_size) {
  if (text.empty()) return unexpected(ErrorCode::invalid_argument, "fixture tokenizer: the training text is empty");
  const auto counted = count_words(text);

  // The alphabet: every character, most frequent first (ties by bytes).
  std::map<std::string, std::int64_t> char_count;
  for (const auto& [chars, count] : counted) {
    for (const std::string& c : chars) char_count[c] += count;
  }
  std::vector<std::pair<std::string, std::int64_t>> alphabet(char_count.begin(), char_count.end());
  std::stable_sort(alphabet.begin(), alphabet.end(), [](const auto& x, const auto& y) { return x.second > y.second; });
  const std::size_t fixed = fixture_first_byte_id + 256;
  if (vocab_size < fixed + alphabet.size()) {
    return unexpected(ErrorCode::invalid_argument,
                      fmt::format("fixture tokenizer: vocab_size {} cannot hold the {} fixed pieces and the {} "
                                  "characters of the text",
                                  vocab_size, fixed, alphabet.size()));
  }

  TokenizerSpec t;
  t.model = "llama";
  t.pre = "default";
  auto add = [&t](std::string piece, float score, TokenType type) {
    t.tokens.push_back(std::move(piece));
    t.scores.push_back(score);
    t.token_types.push_back(static_cast<std::int32_t>(type));
  };
  add("<unk>", 0.0F, TokenType::unknown);
  add("<s>", 0.0F, TokenType::control);
  add("</s>", 0.0F, TokenType::control);
  for (int byte = 0; byte < 256; ++byte) add(fmt::format("<0x{:02X}>", byte), 0.0F, TokenType::byte);

  std::unordered_map<std::string, std::int32_t> char_id;
  std::vector<std::string> pieces;
  for (const auto& [c, count] : alphabet) {
    char_id[c] = static_cast<std::int32_t>(pieces.size());
    pieces.push_back(c);
  }
  std::vector<Word> words;
  words.reserve(counted.size());
  for (const auto& [chars, count] : counted) {
    Word w;
    w.count = count;
    for (const std::string& c : chars) w.symbols.push_back(char_id.at(c));
    words.push_back(std::move(w));
  }

  // Scores: merges get -rank (0, -1, -2 …); characters sit below every merge.
  const std::size_t n_merges = vocab_size - fixed - alphabet.size();
  for (std::size_t i = 0; i < alphabet.size(); ++i) {
    add(alphabet[i].first, -static_cast<float>(n_merges + i), TokenType::normal);
  }
  std::unordered_set<std::string> known(t.tokens.begin(), t.tokens.end());
  MergeLearner learner(std::move(words), std::move(pieces));
  std::size_t rank = 0;
  while (t.tokens.size() < vocab_size) {
    std::optional<std::string> piece = learner.merge_next();
    if (!piece) {
      return unexpected(ErrorCode::invalid_argument,
                        fmt::format("fixture tokenizer: the text yields only {} pieces, fewer than vocab_size {}",
                                    t.tokens.size(), vocab_size));
    }
    if (!known.insert(*piece).second) continue;  // the same string reached by another pair
    add(std::move(*piece), -static_cast<float>(rank++), TokenType::normal);
  }
  t.unknown_id = fixture_unknown_id;
  t.bos_id = fixture_bos_id;
  t.eos_id = fixture_eos_id;
  t.add_bos = true;
  t.add_eos = false;
  t.add_space_prefix = true;
  return t;
}

}  // namespace ecocompute::modelgen
