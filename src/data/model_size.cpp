// Model-size parsing and checking.
#include "data/model_size.hpp"

#include <cmath>
#include <algorithm>
#include <cstdlib>
#include <vector>
#include <string>

#include <fmt/format.h>

#include "data/text_scan.hpp"

namespace ecocompute::data {

namespace {

// Mixture-of-experts models whose split is published: total and active parameters, billions.
struct KnownMoe {
  std::string_view marker;  ///< squashed, lower case: letters and digits of the name
  double total_b;
  double active_b;
};
constexpr KnownMoe kKnownMoe[] = {{"mixtral8x7b", 46.7, 12.9},  {"mixtral8x22b", 141.0, 39.0}, {"qwen15moea27b", 14.3, 2.7},
                                  {"qwen330ba3b", 30.5, 3.3},   {"deepseekv3", 671.0, 37.0},  {"deepseekr1", 671.0, 37.0}};

// Mixtral's split, for an "E×S B" name not in the table: of an S B expert-sized model, 19 % is shared
// (attention, embeddings) and 81 % is one expert; two experts are routed per token.
constexpr double kSharedShare = 0.19;
constexpr int kRoutedExperts = 2;

bool letter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

// "E x S B" (digits, optional spaces, x, optional spaces, a number, optional spaces, b, not a letter).
std::optional<ModelSize> experts_times_size(const TextScan& s) {
  for (std::size_t at = 0; at < s.size(); ++at) {
    if (!s.digit_run_start(at)) continue;
    const std::size_t experts_end = s.skip_digits(at);
    const std::size_t x = s.skip_spaces(experts_end);
    if (!s.has(x, "x")) continue;
    const auto size = s.number(s.skip_spaces(x + 1));
    if (!size) continue;
    const std::size_t unit = s.skip_spaces(size->end);
    if (!s.has(unit, "b") || letter(s.text()[unit + 1])) continue;
    const double experts = std::strtod(s.text().substr(at, experts_end - at).c_str(), nullptr);
    const double expert_b = std::strtod(std::string(size->digits).c_str(), nullptr);
    return ModelSize{expert_b * (kSharedShare + (1 - kSharedShare) * experts),
                     expert_b * (kSharedShare + (1 - kSharedShare) * std::min(experts, double{kRoutedExperts}))};
  }
  return std::nullopt;
}

// Every "<number><b|m>" not part of a longer word, in order, each with whether an "A" (active) marks it
// ("-A3B" in "Qwen3-30B-A3B"). A number preceded by a digit or '.' is part of another ("Qwen2.5").
struct SizeMention {
  double value_b;
  bool active;
};
std::vector<SizeMention> size_mentions(const TextScan& s) {
  std::vector<SizeMention> out;
  std::size_t consumed = 0;  // mentions do not overlap, and the character before one is its own
  for (std::size_t at = 1; at + 1 < s.size(); ++at) {
    if (!s.digit_run_start(at) || at - 1 < consumed || s.text()[at - 1] == '.') continue;
    const auto n = s.number(at);
    const std::size_t unit = s.skip_spaces(n->end);
    const char u = s.text()[unit];
    if ((u != 'b' && u != 'm') || letter(s.text()[unit + 1])) continue;
    const double value = std::strtod(std::string(n->digits).c_str(), nullptr);
    const bool active = s.text()[at - 1] == 'a' && (at < 3 || !letter(s.text()[at - 2]));
    out.push_back({u == 'm' ? value / 1000.0 : value, active});
    consumed = unit + 1;
  }
  return out;
}

}  // namespace

std::optional<ModelSize> model_size_from_name(std::string_view model_name) {
  std::string squashed;
  for (char c : model_name) {
    if (letter(c) || (c >= '0' && c <= '9')) squashed += static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  }
  for (const KnownMoe& moe : kKnownMoe) {
    if (squashed.find(moe.marker) != std::string::npos) return ModelSize{moe.total_b, moe.active_b};
  }
  const TextScan s(model_name);
  if (auto moe = experts_times_size(s)) return moe;
  std::optional<double> total, active;
  for (const SizeMention& m : size_mentions(s)) (m.active ? active : total) = m.value_b;
  if (total) return ModelSize{*total, active};
  if (active) return ModelSize{*active, std::nullopt};
  return std::nullopt;
}

std::optional<double> params_b_from_model_name(std::string_view model_name) {
  if (auto size = model_size_from_name(model_name)) return size->total_b;
  return std::nullopt;
}

Result<double> check_params_b(double params_b, std::string_view what) {
  if (!std::isfinite(params_b) || params_b < kMinParamsB || params_b > kMaxParamsB) {
    return unexpected(ErrorCode::invalid_argument,
                      fmt::format("{} must be a model size between {:g} and {:g} billion parameters (1 million to "
                                  "10 trillion), got {:g}",
                                  what, kMinParamsB, kMaxParamsB, params_b));
  }
  return params_b;
}

Result<int> check_batch_size(long long batch, std::string_view what) {
  if (batch < 1 || batch > kMaxBatch) {
    return unexpected(ErrorCode::invalid_argument,
                      fmt::format("{} must be a batch size from 1 to {}, got {}", what, kMaxBatch, batch));
  }
  return static_cast<int>(batch);
}

Result<int> check_context_length(long long context, std::string_view what) {
  if (context < 1 || context > kMaxContext) {
    return unexpected(ErrorCode::invalid_argument,
                      fmt::format("{} must be a context length from 1 to {} tokens, got {}", what, kMaxContext, context));
  }
  return static_cast<int>(context);
}

}  // namespace ecocompute::data
