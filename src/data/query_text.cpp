// Rules for the free-text question. They recognise what the published parser recognises (sizes, cards
// and architecture names, int8 / nf4 / n-bit, batch and context with a k suffix) and, beyond it, every
// GPU of our datasheet table and the GGUF type names.
#include "data/query_text.hpp"

#include <cstdlib>
#include <regex>
#include <sstream>
#include <vector>

#include "data/gpu_spec.hpp"
#include "util/precision.hpp"

namespace ecocompute::data {
namespace {

constexpr auto kIcase = std::regex::icase | std::regex::ECMAScript;

std::optional<std::smatch> search(const std::string& text, const char* pattern) {
  const std::regex re(pattern, kIcase);
  std::smatch m;
  if (std::regex_search(text, m, re)) return m;
  return std::nullopt;
}

// A whole number of at most 10^7 (larger ones are left for the request's own range check to refuse).
std::optional<int> small_int(const std::string& digits, int scale = 1) {
  if (digits.size() > 8) return std::nullopt;
  const long long v = std::stoll(digits) * scale;
  if (v > 10'000'000) return std::nullopt;
  return static_cast<int>(v);
}

std::vector<std::string> words(const std::string& text) {
  std::string cleaned = text;
  for (char& c : cleaned) {
    if (c == ',' || c == ';' || c == '?' || c == '(' || c == ')') c = ' ';
  }
  std::vector<std::string> out;
  std::istringstream in(cleaned);
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

// Families the published parser knows that the datasheet table does not hold.
std::optional<std::string> family_architecture(const std::string& word) {
  static const std::vector<std::pair<const char*, const char*>> families{
      {R"(^(a40|a30|a10g?|a6000)$)", "ampere"}, {R"(^(h800|gh200)$)", "hopper"},
      {R"(^rtx40[0-9]0(ti)?$)", "ada"},          {R"(^rtx50[0-9]0(ti)?$)", "blackwell"},
      {R"(^(40[0-9]0)(d|ti)?$)", "ada"},          {R"(^(50[0-9]0)(ti)?$)", "blackwell"}};
  for (const auto& [pattern, arch] : families) {
    if (std::regex_search(word, std::regex(pattern, kIcase))) return std::string(arch);
  }
  return std::nullopt;
}

bool is_size_word(const std::string& word) {
  return std::regex_match(word, std::regex(R"(\d+(\.\d+)?[bm](-.*)?)", kIcase));
}

void read_device(const std::vector<std::string>& w, QueryText& out) {
  for (std::size_t i = 0; i < w.size() && !out.gpu && !out.arch; ++i) {
    if (is_size_word(w[i])) continue;
    if (auto a = parse_architecture(w[i])) {
      out.arch = *a;
      return;
    }
    // Two words first ("RTX 4090", "H100 PCIe"), then one, then a bare model number as a GeForce card.
    for (const std::string& candidate : {i + 1 < w.size() ? w[i] + " " + w[i + 1] : std::string(), w[i], "RTX " + w[i]}) {
      if (candidate.size() < 2 || !std::regex_search(candidate, std::regex(R"(\d)"))) continue;
      if (auto gpu = find_gpu(candidate)) {
        out.gpu = gpu->name;
        return;
      }
    }
    std::string joined = w[i];
    if (i + 1 < w.size()) joined += w[i + 1];
    for (const std::string& candidate : {joined, w[i]}) {
      if (auto a = family_architecture(candidate)) {
        out.arch = *a;
        return;
      }
    }
  }
}

}  // namespace

QueryText parse_query_text(std::string_view text_in) {
  const std::string text = " " + std::string(text_in) + " ";
  QueryText out;
  if (auto m = search(text, R"((\d+(?:\.\d+)?)\s*b\b)")) {
    out.params_b = std::strtod((*m)[1].str().c_str(), nullptr);
  } else if (auto m2 = search(text, R"((\d+(?:\.\d+)?)\s*(?:billion|params?)\b)")) {
    out.params_b = std::strtod((*m2)[1].str().c_str(), nullptr);
  } else if (auto m3 = search(text, R"((\d+(?:\.\d+)?)\s*m\b)")) {
    out.params_b = std::strtod((*m3)[1].str().c_str(), nullptr) / 1000.0;
  }
  const auto w = words(std::string(text_in));
  read_device(w, out);
  for (const std::string& word : w) {
    if (auto p = parse_precision(word); p && !p->is_baseline) {
      out.precision = std::string(p->name);
      break;
    }
  }
  if (!out.precision) {
    if (search(text, R"(\bint8\b|\b8[\s-]*bit\b)")) {
      out.precision = "INT8";
    } else if (search(text, R"(\bnf4\b|\b4[\s-]*bit\b|\bq4\b)")) {
      out.precision = "NF4";
    }
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

}  // namespace ecocompute::data
