// Rules for the free-text question. They recognise what the published parser recognises (sizes, cards
// and architecture names, int8 / nf4 / n-bit, batch and context with a k suffix) and, beyond it, every
// GPU of our datasheet table and the GGUF type names. Each rule is a left-to-right scan (TextScan) that
// reads the same spellings the published regular expressions read, in time linear in the text.
#include "data/query_text.hpp"

#include <array>
#include <initializer_list>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "data/gpu_spec.hpp"
#include "data/model_size.hpp"
#include "data/text_scan.hpp"
#include "util/precision.hpp"
#include "util/quoted_input.hpp"

namespace ecocompute::data {
namespace {

// A whole number of at most 10^7 (larger ones are left for the request's own range check to refuse).
std::optional<int> small_int(std::string_view digits, int scale = 1) {
  if (digits.size() > 8 || !all_digits(digits)) return std::nullopt;
  const long long v = std::atoll(std::string(digits).c_str()) * scale;
  if (v > 10'000'000) return std::nullopt;
  return static_cast<int>(v);
}

// The first number (leftmost) followed, after optional spaces, by one of `units` as a whole word:
// "13B", "13 billion", "500M".
std::optional<double> size_followed_by(const TextScan& s, std::initializer_list<std::string_view> units) {
  for (std::size_t at = 0; at < s.size(); ++at) {
    if (!s.digit_run_start(at)) continue;
    const auto n = s.number(at);
    const std::size_t after = s.skip_spaces(n->end);
    for (std::string_view unit : units) {
      if (s.has_word(after, unit)) return std::strtod(std::string(n->digits).c_str(), nullptr);
    }
  }
  return std::nullopt;
}

std::optional<double> read_size(const TextScan& s) {
  if (auto b = size_followed_by(s, {"b"})) return b;
  if (auto b = size_followed_by(s, {"billion", "params", "param"})) return b;
  if (auto m = size_followed_by(s, {"m"})) return *m / 1000.0;
  return std::nullopt;
}

// A digit at a word start, then spaces or dashes, then "bit": "8-bit", "4 bit".
bool n_bit(const TextScan& s, char digit) {
  for (std::size_t at = 0; at < s.size(); ++at) {
    if (s.text()[at] != digit || !s.boundary_before(at)) continue;
    std::size_t next = s.skip_spaces(at + 1);
    while (next < s.size() && s.text()[next] == '-') next = s.skip_spaces(next + 1);
    if (s.has_word(next, "bit")) return true;
  }
  return false;
}

// A number the text gives for batch or context, as written, with its multiplier (1024 for "8k").
struct Mention {
  std::string_view digits;
  int scale = 1;
};

std::optional<Mention> read_batch(const TextScan& s) {
  for (std::size_t at = 0; at < s.size(); ++at) {  // "batch size 4" first, anywhere
    if (!s.boundary_before(at) || !s.has(at, "batch")) continue;
    const std::size_t size_at = s.skip_spaces(at + 5);
    if (!s.has(size_at, "size")) continue;
    if (auto d = s.assigned_digits(size_at + 4); d && s.boundary_at(d->end)) return Mention{d->digits};
  }
  for (std::size_t at = 0; at < s.size(); ++at) {  // then "batch 32", "bs=8", "b32"
    if (!s.boundary_before(at)) continue;
    for (std::string_view key : {"batch", "bs", "b"}) {
      if (!s.has(at, key)) continue;
      if (auto d = s.assigned_digits(at + key.size()); d && s.boundary_at(d->end)) return Mention{d->digits};
    }
  }
  return std::nullopt;
}

// "ctx 8k", "context 4096", "seqlen=2048": a keyword, a number, an optional k.
std::optional<Mention> context_after_keyword(const TextScan& s) {
  for (std::size_t at = 0; at < s.size(); ++at) {
    if (!s.boundary_before(at)) continue;
    for (std::string_view key : {"ctx", "context", "seqlen", "seq", "sequence"}) {
      if (!s.has(at, key)) continue;
      const auto d = s.assigned_digits(at + key.size());
      if (!d) continue;
      const std::size_t after = s.skip_spaces(d->end);
      if (s.has_word(after, "k")) return Mention{d->digits, 1024};
      if (after > d->end || s.boundary_at(d->end)) return Mention{d->digits};
    }
  }
  return std::nullopt;
}

// "8k tokens", "32k context".
std::optional<Mention> context_before_keyword(const TextScan& s) {
  for (std::size_t at = 0; at < s.size(); ++at) {
    if (!s.digit_run_start(at) || !s.boundary_before(at)) continue;
    const std::size_t end = s.skip_digits(at);
    const std::size_t k = s.skip_spaces(end);
    if (!s.has(k, "k")) continue;
    const std::size_t key = s.skip_spaces(k + 1);
    for (std::string_view word : {"ctx", "context", "tokens", "token"}) {
      if (s.has_word(key, word)) return Mention{std::string_view(s.text()).substr(at, end - at), 1024};
    }
  }
  return std::nullopt;
}

std::vector<std::string> words(std::string_view text) {
  std::vector<std::string> out;
  std::string word;
  for (char c : text) {
    const bool separator = c == ',' || c == ';' || c == '?' || c == '(' || c == ')' || c == ' ' || c == '\t' ||
                           c == '\n' || c == '\r' || c == '\v' || c == '\f';
    if (!separator) {
      word += c;
    } else if (!word.empty()) {
      out.push_back(std::exchange(word, {}));
    }
  }
  if (!word.empty()) out.push_back(std::move(word));
  return out;
}

// Families the published parser knows that the datasheet table does not hold: A40, A30, A10(G),
// A6000 (ampere); H800, GH200 (hopper); RTX 40x0 (Ti), 40x0 (D, Ti) (ada); RTX 50x0 (Ti), 50x0 (Ti)
// (blackwell). `word` is lower case.
std::optional<std::string> family_architecture(std::string_view word) {
  for (std::string_view name : {"a40", "a30", "a10", "a10g", "a6000"}) {
    if (word == name) return std::string("ampere");
  }
  if (word == "h800" || word == "gh200") return std::string("hopper");
  const bool rtx = word.starts_with("rtx");
  if (rtx) word.remove_prefix(3);
  // "40" or "50", a digit, "0", then a suffix.
  if (word.size() < 4 || !(word.starts_with("40") || word.starts_with("50")) || word[2] < '0' || word[2] > '9' ||
      word[3] != '0') {
    return std::nullopt;
  }
  const std::string_view suffix = word.substr(4);
  const bool ada = word[0] == '4';
  if (suffix.empty() || suffix == "ti" || (ada && !rtx && suffix == "d")) return std::string(ada ? "ada" : "blackwell");
  return std::nullopt;
}

std::string lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
  return out;
}

// "13B", "1.1B-Chat", "500m": a size, not a device.
bool is_size_word(std::string_view word) {
  const TextScan s(word);
  const auto n = s.number(1);
  if (!n || n->end >= s.size() - 1) return false;
  const char unit = s.text()[n->end];
  return (unit == 'b' || unit == 'm') && (n->end + 1 == s.size() - 1 || s.text()[n->end + 1] == '-');
}

bool has_digit(std::string_view text) { return text.find_first_of("0123456789") != std::string_view::npos; }

void read_device(const std::vector<std::string>& w, QueryText& out) {
  for (std::size_t i = 0; i < w.size() && !out.gpu && !out.arch; ++i) {
    if (is_size_word(w[i])) continue;
    if (auto a = parse_architecture(w[i])) {
      out.arch = *a;
      return;
    }
    // Two words first ("RTX 4090", "H100 PCIe"), then one, then a bare model number as a GeForce card.
    for (const std::string& candidate : {i + 1 < w.size() ? w[i] + " " + w[i + 1] : std::string(), w[i], "RTX " + w[i]}) {
      if (candidate.size() < 2 || !has_digit(candidate)) continue;
      if (auto gpu = find_gpu(candidate)) {
        out.gpu = gpu->name;
        return;
      }
    }
    std::string joined = w[i];
    if (i + 1 < w.size()) joined += w[i + 1];
    for (const std::string& candidate : {joined, w[i]}) {
      if (auto a = family_architecture(lower(candidate))) {
        out.arch = *a;
        return;
      }
    }
  }
}

void read_precision(const TextScan& s, const std::vector<std::string>& w, QueryText& out) {
  for (const std::string& word : w) {
    if (auto p = parse_precision(word); p && !p->is_baseline) {
      out.precision = std::string(p->name);
      return;
    }
  }
  if (s.contains_word("int8") || n_bit(s, '8')) {
    out.precision = "INT8";
  } else if (s.contains_word("nf4") || n_bit(s, '4') || s.contains_word("q4")) {
    out.precision = "NF4";
  }
}

}  // namespace

QueryText read_query_text(std::string_view text) {
  const TextScan s(text);
  QueryText out;
  out.params_b = read_size(s);
  const auto w = words(text);
  // A mixture of experts names both sizes in one word ("Mixtral-8x7B", "Qwen3-30B-A3B").
  for (const std::string& word : w) {
    if (auto size = model_size_from_name(word); size && size->active_b) {
      out.params_b = size->total_b;
      out.active_params_b = size->active_b;
      break;
    }
  }
  read_device(w, out);
  read_precision(s, w, out);
  // The first rule that finds a number decides, even when the number is too large to read (as the
  // published parser did); such a number is kept in words for parse_query_text to refuse.
  const auto read_mention = [&out](const char* what, const std::optional<Mention>& m, std::optional<int>& field) {
    if (!m) return;
    field = small_int(m->digits, m->scale);
    if (!field && !out.unreadable) out.unreadable = fmt::format("{} {}{}", what, shortened_input(m->digits, 32), m->scale > 1 ? "k" : "");
  };
  read_mention("batch", read_batch(s), out.batch);
  auto context = context_after_keyword(s);
  if (!context) context = context_before_keyword(s);
  read_mention("context", context, out.context);
  return out;
}

Result<QueryText> parse_query_text(std::string_view text, std::string_view field) {
  if (text.size() > max_query_text_bytes) {
    return unexpected(ErrorCode::invalid_argument,
                      fmt::format("{} is {} bytes long; a question may have at most {} (e.g. \"13B on A100 int8 "
                                  "batch 32 ctx 8k\")",
                                  field, text.size(), max_query_text_bytes));
  }
  QueryText out = read_query_text(text);
  if (out.unreadable) {
    return unexpected(ErrorCode::invalid_argument,
                      fmt::format("{} asks for {}, more than can be read (batch at most {}, context at most {})", field,
                                  *out.unreadable, kMaxBatch, kMaxContext));
  }
  if (out.batch) {
    auto batch = check_batch_size(*out.batch, fmt::format("the batch {} asks for", field));
    if (!batch) return batch.error();
  }
  if (out.context) {
    auto context = check_context_length(*out.context, fmt::format("the context {} asks for", field));
    if (!context) return context.error();
  }
  return out;
}

}  // namespace ecocompute::data
