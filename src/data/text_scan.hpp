// TextScan: the few matching steps the free-text readers need (a keyword at a word boundary, a run of
// digits, a decimal number, spaces), over lower-cased ASCII text. Every step looks at each character a
// bounded number of times, so reading any text is linear in its length: no backtracking, no recursion
// (std::regex recursed once per character and overflowed the stack on a 100,000-digit question).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace ecocompute::data {

/// A number as it was written: its digits ("13", "1.1") and where the text after it starts.
struct ScannedNumber {
  std::string_view digits;
  std::size_t end = 0;
};

class TextScan {
 public:
  /// Keeps `text` lower-cased (ASCII only), with one space before and after, so that every position
  /// of the original text has a neighbour on each side.
  explicit TextScan(std::string_view text);

  [[nodiscard]] const std::string& text() const noexcept { return text_; }
  [[nodiscard]] std::size_t size() const noexcept { return text_.size(); }

  /// A letter, digit or underscore (what \w matches in a regular expression).
  [[nodiscard]] bool word_char(std::size_t at) const noexcept;
  [[nodiscard]] bool digit(std::size_t at) const noexcept;
  /// Whether a word starts at `at`: the character before is not a word character.
  [[nodiscard]] bool boundary_before(std::size_t at) const noexcept;
  /// Whether a word ends just before `at`: the character at `at` is not a word character.
  [[nodiscard]] bool boundary_at(std::size_t at) const noexcept { return !word_char(at); }
  /// Whether `at` starts a run of digits (a digit not preceded by one).
  [[nodiscard]] bool digit_run_start(std::size_t at) const noexcept;

  /// The position after any white space at `at`.
  [[nodiscard]] std::size_t skip_spaces(std::size_t at) const noexcept;
  /// The position after a run of digits at `at`; `at` itself when there is none.
  [[nodiscard]] std::size_t skip_digits(std::size_t at) const noexcept;
  /// Whether `word` is written at `at`.
  [[nodiscard]] bool has(std::size_t at, std::string_view word) const noexcept;
  /// Whether `word` is written at `at` and a word boundary follows it.
  [[nodiscard]] bool has_word(std::size_t at, std::string_view word) const noexcept;
  /// Whether `word` stands anywhere as a whole word (boundaries on both sides).
  [[nodiscard]] bool contains_word(std::string_view word) const noexcept;

  /// Digits, then optionally '.' and more digits, at `at`; absent when `at` is not a digit.
  [[nodiscard]] std::optional<ScannedNumber> number(std::size_t at) const noexcept;
  /// An optional '=' or ':' between spaces, then a run of digits; absent when no digit follows.
  [[nodiscard]] std::optional<ScannedNumber> assigned_digits(std::size_t at) const noexcept;

 private:
  std::string text_;
};

/// Whether every character of `text` is an ASCII digit (and there is at least one).
[[nodiscard]] bool all_digits(std::string_view text) noexcept;

}  // namespace ecocompute::data
