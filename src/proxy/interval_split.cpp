#include "proxy/interval_split.hpp"

#include <algorithm>
#include <cmath>
#include <utility>

namespace ecocompute::proxy {

double RequestActivity::prefill_end_s(double now_s) const {
  if (!output_times_s.empty()) return output_times_s.front();
  return end_or(now_s);
}

double PrefillWeightRule::weight(std::size_t decoding) const {
  return coefficient * std::pow(static_cast<double>(std::max<std::size_t>(decoding, 1)), exponent);
}

namespace {

// Length of [a0, a1) ∩ [b0, b1).
double overlap_s(double a0, double a1, double b0, double b1) { return std::max(0.0, std::min(a1, b1) - std::max(a0, b0)); }

// Share of [from, to) inside [begin, end); a zero-length span counts wholly in the interval holding it.
double share_in(double from, double to, double begin_s, double end_s) {
  if (to <= from) return (from >= begin_s && from < end_s) ? 1.0 : 0.0;
  return overlap_s(from, to, begin_s, end_s) / (to - from);
}

}  // namespace

IntervalTokens tokens_in_interval(const RequestActivity& request, double begin_s, double end_s, double now_s) {
  const double finish = request.end_or(now_s);
  if (!request.streamed) {
    // No chunk shows when the prompt was done: it is taken as done in the time streamed requests took to
    // their first chunk, from its arrival, and the output spread over the lifetime. Spreading the prompt
    // over the lifetime put its weight, at the whole batch's w(B), into decode steps: on the H200 at 16
    // streams an unstreamed answer was charged 1.8 times a streamed one doing the same work (docs/proxy.md).
    const double prompt_end = std::min(request.start_s + request.prompt_phase_s, finish);
    const double completion =
        request.end_s ? request.completion_tokens : request.decode_rate_per_s * std::max(0.0, finish - prompt_end);
    return {request.prompt_tokens * share_in(request.start_s, prompt_end, begin_s, end_s),
            completion * share_in(request.start_s, finish, begin_s, end_s)};
  }
  IntervalTokens tokens;
  tokens.prompt = request.prompt_tokens * share_in(request.start_s, request.prefill_end_s(now_s), begin_s, end_s);
  const auto& times = request.output_times_s;
  const auto first = std::lower_bound(times.begin(), times.end(), begin_s);
  const auto last = std::lower_bound(first, times.end(), end_s);
  tokens.decode = static_cast<double>(last - first) * request.output_scale;
  return tokens;
}

bool tokens_are_fixed(const RequestActivity& request) {
  return request.end_s.has_value() || (request.streamed && !request.output_times_s.empty());
}

void TokenSums::add(const IntervalTokens& tokens) {
  prompt += tokens.prompt;
  decode += tokens.decode;
  decoding += tokens.decode > 0.0 ? 1 : 0;
  ++requests;
  ever_added += tokens.prompt + tokens.decode;
}

void TokenSums::remove(const IntervalTokens& tokens) {
  prompt -= tokens.prompt;
  decode -= tokens.decode;
  decoding -= tokens.decode > 0.0 ? 1 : 0;
  --requests;
}

bool spans(const RequestActivity& request, double begin_s, double end_s, double now_s) {
  return request.start_s <= begin_s && request.end_or(now_s) >= end_s;
}

bool overlaps(const RequestActivity& request, double begin_s, double end_s) {
  if (request.start_s >= end_s) return false;
  if (!request.end_s) return true;
  // A request that began and ended at one instant belongs to the interval holding that instant.
  return *request.end_s > begin_s || (*request.end_s == request.start_s && request.start_s >= begin_s);
}

double busy_fraction(double begin_s, double end_s, const std::vector<const RequestActivity*>& requests, double now_s) {
  if (requests.empty()) return 0.0;
  if (end_s <= begin_s) return 1.0;
  // Under load some request spans the whole interval: no need to merge the spans.
  for (const RequestActivity* request : requests) {
    if (spans(*request, begin_s, end_s, now_s)) return 1.0;
  }
  std::vector<std::pair<double, double>> spans;
  for (const RequestActivity* request : requests) {
    const double from = std::max(begin_s, request->start_s);
    const double to = std::min(end_s, request->end_or(now_s));
    if (to > from) spans.emplace_back(from, to);
  }
  // A request that began and ended at one instant holds no time: the interval is then idle but for it.
  std::sort(spans.begin(), spans.end());
  double busy = 0.0, covered_to = begin_s;
  for (const auto& [from, to] : spans) {
    busy += std::max(0.0, to - std::max(from, covered_to));
    covered_to = std::max(covered_to, to);
  }
  return std::min(1.0, busy / (end_s - begin_s));
}

namespace {

// The tokens each request processed in the interval (into `tokens`), and the sum of their weights.
struct Weighing {
  double prompt_weight = 0.0;
  double total = 0.0;
};

Weighing weigh(double begin_s, double end_s, const std::vector<const RequestActivity*>& requests, double now_s,
               const PrefillWeightRule& rule, std::vector<IntervalTokens>& tokens) {
  tokens.clear();
  std::size_t decoding = 0;
  for (const RequestActivity* request : requests) {
    tokens.push_back(tokens_in_interval(*request, begin_s, end_s, now_s));
    if (tokens.back().decode > 0.0) ++decoding;
  }
  Weighing out;
  out.prompt_weight = rule.weight(decoding);
  for (const IntervalTokens& t : tokens) out.total += out.prompt_weight * t.prompt + t.decode;
  return out;
}

// One request's part of the interval's busy energy. Requests in flight that processed nothing here still
// hold the server (queued, KV cache): when none processed a token, they share it equally.
double share_of_busy(double busy_j, const Weighing& weighing, const IntervalTokens& mine, std::size_t requests) {
  if (weighing.total <= 0.0) return busy_j / static_cast<double>(requests);
  return busy_j * (weighing.prompt_weight * mine.prompt + mine.decode) / weighing.total;
}

}  // namespace

double share_from_sums(double busy_j, const TokenSums& sums, const IntervalTokens& mine, const PrefillWeightRule& rule) {
  if (sums.requests <= 0) return 0.0;
  Weighing weighing;
  weighing.prompt_weight = rule.weight(static_cast<std::size_t>(std::max<std::ptrdiff_t>(sums.decoding, 0)));
  weighing.total = weighing.prompt_weight * sums.prompt + sums.decode;
  // The sums are kept by adding and taking away: a total of rounding residue is no total.
  if (weighing.total <= 1e-12 * std::max(weighing.prompt_weight, 1.0) * sums.ever_added) weighing.total = 0.0;
  return share_of_busy(busy_j, weighing, mine, static_cast<std::size_t>(sums.requests));
}

IntervalShares split_interval(double joules, double begin_s, double end_s,
                              const std::vector<const RequestActivity*>& requests, double now_s,
                              const PrefillWeightRule& rule) {
  IntervalShares out;
  out.shares.assign(requests.size(), 0.0);
  if (requests.empty()) {
    out.idle_j = joules;
    return out;
  }
  std::vector<IntervalTokens> tokens;
  tokens.reserve(requests.size());
  const Weighing weighing = weigh(begin_s, end_s, requests, now_s, rule, tokens);
  const double busy_j = joules * busy_fraction(begin_s, end_s, requests, now_s);
  out.idle_j = joules - busy_j;
  for (std::size_t i = 0; i < out.shares.size(); ++i) {
    out.shares[i] = share_of_busy(busy_j, weighing, tokens[i], requests.size());
  }
  return out;
}

double share_in_interval(double joules, double begin_s, double end_s, const std::vector<const RequestActivity*>& requests,
                         std::size_t which, double now_s, const PrefillWeightRule& rule,
                         std::vector<IntervalTokens>& tokens) {
  if (which >= requests.size()) return 0.0;
  const Weighing weighing = weigh(begin_s, end_s, requests, now_s, rule, tokens);
  const double busy_j = joules * busy_fraction(begin_s, end_s, requests, now_s);
  return share_of_busy(busy_j, weighing, tokens[which], requests.size());
}

}  // namespace ecocompute::proxy
