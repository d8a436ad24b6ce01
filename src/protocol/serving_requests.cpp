#include "protocol/serving_requests.hpp"

#include <array>
#include <fstream>
#include <random>
#include <string>

#include <nlohmann/json.hpp>

#include "util/check.hpp"

namespace ecocompute::protocol {
namespace {

// Plain English words: every tokenizer splits them into a few tokens each.
constexpr std::array<const char*, 48> kWords = {
    "the",    "energy", "of",     "a",      "model",  "is",     "measured", "on",     "one",    "card",
    "while",  "it",     "writes", "text",   "for",    "many",   "people",   "who",    "ask",    "about",
    "power",  "and",    "time",   "when",   "light",  "river",  "stone",    "garden", "winter", "market",
    "letter", "bridge", "window", "forest", "ocean",  "silver", "morning",  "story",  "number", "little",
    "house",  "field",  "voice",  "water",  "under",  "great",  "second",   "answer"};

// rng() mapped onto [lo, hi] without std::uniform_int_distribution, whose algorithm differs between
// standard libraries; the slight modulo bias is irrelevant for lengths.
int draw(std::mt19937_64& rng, int lo, int hi) {
  const auto span = static_cast<std::uint64_t>(hi - lo) + 1;
  return lo + static_cast<int>(rng() % span);
}

}  // namespace

std::vector<engine::CompletionRequest> make_request_set(const RequestSetOptions& o) {
  ECO_CHECK(o.count >= 1, "request set: count must be ≥ 1");
  ECO_CHECK(o.prompt_words_min >= 1 && o.prompt_words_min <= o.prompt_words_max, "request set: bad prompt range");
  ECO_CHECK(o.output_tokens_min >= 1 && o.output_tokens_min <= o.output_tokens_max, "request set: bad output range");
  std::mt19937_64 rng(o.seed);
  std::vector<engine::CompletionRequest> out;
  out.reserve(static_cast<std::size_t>(o.count));
  for (int i = 0; i < o.count; ++i) {
    const int words = draw(rng, o.prompt_words_min, o.prompt_words_max);
    engine::CompletionRequest request;
    for (int w = 0; w < words; ++w) {
      if (w > 0) request.prompt += ' ';
      request.prompt += kWords[rng() % kWords.size()];
    }
    request.max_tokens = draw(rng, o.output_tokens_min, o.output_tokens_max);
    out.push_back(std::move(request));
  }
  return out;
}

Result<std::vector<engine::CompletionRequest>> read_request_set(const std::filesystem::path& path) {
  std::ifstream in(path);
  if (!in) return unexpected(ErrorCode::not_found, "--requests " + path.string() + ": cannot be read");
  std::vector<engine::CompletionRequest> out;
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    const auto where = path.string() + ":" + std::to_string(number);
    const nlohmann::json row = nlohmann::json::parse(line, nullptr, false);
    if (row.is_discarded() || !row.is_object()) {
      return unexpected(ErrorCode::invalid_input, where + ": not a JSON object");
    }
    const auto prompt = row.find("prompt");
    const auto max_tokens = row.find("max_tokens");
    if (prompt == row.end() || !prompt->is_string() || prompt->get<std::string>().empty()) {
      return unexpected(ErrorCode::invalid_input, where + ": \"prompt\" must be a non-empty string");
    }
    if (max_tokens == row.end() || !max_tokens->is_number_integer() || max_tokens->get<std::int64_t>() < 1 ||
        max_tokens->get<std::int64_t>() > (1 << 20)) {
      return unexpected(ErrorCode::invalid_input, where + ": \"max_tokens\" must be a whole number from 1 to 1048576");
    }
    out.push_back({prompt->get<std::string>(), max_tokens->get<std::int64_t>()});
  }
  if (out.empty()) return unexpected(ErrorCode::invalid_input, "--requests " + path.string() + ": no requests");
  return out;
}

}  // namespace ecocompute::protocol
