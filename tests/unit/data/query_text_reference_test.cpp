// The linear-time question reader against the regular expressions it replaced: on many short texts
// (where std::regex is safe) both read the same size, precision class, batch and context.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <map>
#include <optional>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "data/query_text.hpp"
#include "util/precision.hpp"

namespace ecocompute::data {
namespace {

constexpr auto kIcase = std::regex::icase | std::regex::ECMAScript;

std::optional<std::smatch> search(const std::string& text, const char* pattern) {
  // Compiled once per pattern: compiling dominates the test's time otherwise (the sanitizer build too).
  static std::map<const char*, std::regex> compiled;
  auto it = compiled.find(pattern);
  if (it == compiled.end()) it = compiled.emplace(pattern, std::regex(pattern, kIcase)).first;
  const std::regex& re = it->second;
  std::smatch m;
  if (std::regex_search(text, m, re)) return m;
  return std::nullopt;
}

std::optional<int> small_int(const std::string& digits, int scale = 1) {
  if (digits.size() > 8) return std::nullopt;
  const long long v = std::stoll(digits) * scale;
  if (v > 10'000'000) return std::nullopt;
  return static_cast<int>(v);
}

std::optional<std::string> named_precision(std::string cleaned) {
  for (char& c : cleaned) {
    if (c == ',' || c == ';' || c == '?' || c == '(' || c == ')') c = ' ';
  }
  std::istringstream in(cleaned);
  for (std::string w; in >> w;) {
    if (auto p = parse_precision(w); p && !p->is_baseline) return std::string(p->name);
  }
  return std::nullopt;
}

// The rules of the former reader, word for word (less the device, read alike by both).
QueryText reference(std::string_view text_in) {
  const std::string text = " " + std::string(text_in) + " ";
  QueryText out;
  if (auto m = search(text, R"((\d+(?:\.\d+)?)\s*b\b)")) {
    out.params_b = std::strtod((*m)[1].str().c_str(), nullptr);
  } else if (auto m2 = search(text, R"((\d+(?:\.\d+)?)\s*(?:billion|params?)\b)")) {
    out.params_b = std::strtod((*m2)[1].str().c_str(), nullptr);
  } else if (auto m3 = search(text, R"((\d+(?:\.\d+)?)\s*m\b)")) {
    out.params_b = std::strtod((*m3)[1].str().c_str(), nullptr) / 1000.0;
  }
  out.precision = named_precision(text);
  if (out.precision) {
    // a format named outright wins over the classes below
  } else if (search(text, R"(\bint8\b|\b8[\s-]*bit\b)")) {
    out.precision = "INT8";
  } else if (search(text, R"(\bnf4\b|\b4[\s-]*bit\b|\bq4\b)")) {
    out.precision = "NF4";
  }
  if (auto m = search(text, R"(\bbatch\s*size\s*[=:]?\s*(\d+)\b)")) {
    out.batch = small_int((*m)[1].str());
  } else if (auto m2 = search(text, R"(\b(?:batch|bs|b)\s*[=:]?\s*(\d+)\b)")) {
    out.batch = small_int((*m2)[1].str());
  }
  if (auto m = search(text, R"(\b(?:ctx|context|seq(?:len)?|sequence)\s*[=:]?\s*(\d+)\s*(k)?\b)")) {
    out.context = small_int((*m)[1].str(), (*m)[2].matched ? 1024 : 1);
  } else if (auto m2 = search(text, R"(\b(\d+)\s*k\s*(?:ctx|context|tokens?)\b)")) {
    out.context = small_int((*m2)[1].str(), 1024);
  }
  return out;
}

// Texts built from the pieces the rules look for, in every order of up to three, then random strings
// over the characters they care about (a fixed seed: the same texts on every run).
std::vector<std::string> texts() {
  const std::vector<std::string> pieces{"13B", "1.1b-chat", "7 billion", "500M", "2 m", "int8", "8-bit", "4 - bit", "nf4",
                                        "q4", "batch size 4", "bs=8", "b32", "batch:16", "ctx 8k", "context 4096",
                                        "seqlen=2048", "seq 12 K", "8k tokens", "32 k ctx", "1.2.3b", "x9b", "b 3x"};
  std::vector<std::string> out;
  for (const auto& a : pieces) {
    for (const auto& b : pieces) {
      out.push_back(a + " " + b);
      for (const auto& c : {std::string("on a100"), std::string("k"), std::string("=5")}) out.push_back(a + b + " " + c);
    }
  }
  const std::string alphabet = "0123456789..bBmMkK  =:-_xsizectbathqnfi4tokenlq";
  std::uint64_t state = 0x9e3779b97f4a7c15ULL;
  for (int i = 0; i < 4000; ++i) {
    std::string text;
    const int length = 1 + static_cast<int>(i % 24);
    for (int j = 0; j < length; ++j) {
      state = state * 6364136223846793005ULL + 1442695040888963407ULL;
      text += alphabet[(state >> 33) % alphabet.size()];
    }
    out.push_back(text);
  }
  return out;
}

TEST(QueryTextReference, ReadsWhatTheRegularExpressionsRead) {
  int compared = 0;
  for (const std::string& text : texts()) {
    const QueryText want = reference(text);
    const QueryText got = read_query_text(text);
    if (got.active_params_b) continue;  // "8x7b": a mixture of experts, which the former reader read as 7 B

    EXPECT_EQ(got.params_b, want.params_b) << "'" << text << "'";
    EXPECT_EQ(got.batch, want.batch) << "'" << text << "'";
    EXPECT_EQ(got.context, want.context) << "'" << text << "'";
    EXPECT_EQ(got.precision, want.precision) << "'" << text << "'";
    ++compared;
  }
  EXPECT_GT(compared, 5000);
}

}  // namespace
}  // namespace ecocompute::data
