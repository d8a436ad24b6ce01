// Linear-time matching steps over lower-cased text.
#include "data/text_scan.hpp"

namespace ecocompute::data {
namespace {

bool ascii_alnum(char c) noexcept {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

// The white space of a regular expression's \s, ASCII part.
bool space(char c) noexcept { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'; }

}  // namespace

TextScan::TextScan(std::string_view text) {
  text_.reserve(text.size() + 2);
  text_ += ' ';
  for (char c : text) text_ += (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
  text_ += ' ';
}

bool TextScan::word_char(std::size_t at) const noexcept {
  return at < text_.size() && (ascii_alnum(text_[at]) || text_[at] == '_');
}

bool TextScan::digit(std::size_t at) const noexcept { return at < text_.size() && text_[at] >= '0' && text_[at] <= '9'; }

bool TextScan::boundary_before(std::size_t at) const noexcept { return at == 0 || !word_char(at - 1); }

bool TextScan::digit_run_start(std::size_t at) const noexcept { return digit(at) && (at == 0 || !digit(at - 1)); }

std::size_t TextScan::skip_spaces(std::size_t at) const noexcept {
  while (at < text_.size() && space(text_[at])) ++at;
  return at;
}

std::size_t TextScan::skip_digits(std::size_t at) const noexcept {
  while (digit(at)) ++at;
  return at;
}

bool TextScan::has(std::size_t at, std::string_view word) const noexcept {
  return at <= text_.size() && text_.size() - at >= word.size() && std::string_view(text_).substr(at, word.size()) == word;
}

bool TextScan::has_word(std::size_t at, std::string_view word) const noexcept {
  return has(at, word) && boundary_at(at + word.size());
}

bool TextScan::contains_word(std::string_view word) const noexcept {
  for (std::size_t at = text_.find(word); at != std::string::npos; at = text_.find(word, at + 1)) {
    if (boundary_before(at) && has_word(at, word)) return true;
  }
  return false;
}

std::optional<ScannedNumber> TextScan::number(std::size_t at) const noexcept {
  std::size_t end = skip_digits(at);
  if (end == at) return std::nullopt;
  if (end < text_.size() && text_[end] == '.' && digit(end + 1)) end = skip_digits(end + 1);
  return ScannedNumber{std::string_view(text_).substr(at, end - at), end};
}

std::optional<ScannedNumber> TextScan::assigned_digits(std::size_t at) const noexcept {
  at = skip_spaces(at);
  if (at < text_.size() && (text_[at] == '=' || text_[at] == ':')) at = skip_spaces(at + 1);
  const std::size_t end = skip_digits(at);
  if (end == at) return std::nullopt;
  return ScannedNumber{std::string_view(text_).substr(at, end - at), end};
}

bool all_digits(std::string_view text) noexcept {
  if (text.empty()) return false;
  for (char c : text) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

}  // namespace ecocompute::data
