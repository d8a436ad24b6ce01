// Splitting one counter interval's energy over the requests in flight in it, by the tokens each
// processed in it (prompt tokens weighted against decode tokens by the measured rule, docs/proxy.md).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

namespace ecocompute::proxy {

/// What the proxy knows of one request's progress, on the steady clock (seconds).
struct RequestActivity {
  std::uint64_t id = 0;
  double start_s = 0.0;
  /// When the last byte of the answer passed; absent while in flight.
  std::optional<double> end_s;
  /// Streamed: when each output chunk passed (one decode token each until `output_scale` says otherwise).
  std::vector<double> output_times_s;
  bool streamed = false;
  /// Prompt tokens: the server's usage once known, else an estimate from the request's size.
  double prompt_tokens = 0.0;
  /// Completion tokens: the server's usage once known (non-streamed answers spread them over the request).
  double completion_tokens = 0.0;
  /// Streamed: completion tokens per output chunk (the usage's count over the chunks seen; 1 before).
  double output_scale = 1.0;
  /// Not streamed: how long its prompt phase is taken to last from its arrival (no chunk shows it): the
  /// streamed requests' time to first chunk when it arrived (EnergyLedger), 0 without any.
  double prompt_phase_s = 0.0;
  /// Not streamed, in flight: output tokens per second taken for it until its usage arrives (the streamed
  /// requests' rate when an answer beside it ends, EnergyLedger), so that the answers ending beside it do
  /// not take its share; 0 without any. Its usage replaces it once the answer has ended.
  double decode_rate_per_s = 0.0;

  /// End of the prompt phase of a streamed request: the first output chunk (or the end, or `now_s`).
  [[nodiscard]] double prefill_end_s(double now_s) const;
  [[nodiscard]] double end_or(double now_s) const { return end_s.value_or(now_s); }
};

/// Weight of one prompt token, in decode tokens of the same interval, when `decoding` requests decode
/// in it: w(B) = coefficient × B^exponent. The defaults are the fit over the shipped H200 reports
/// (scripts/prefill_weight.py): a decode step is shared by the batch, a prompt token is not.
struct PrefillWeightRule {
  double coefficient = 0.1108;
  double exponent = 1.062;
  [[nodiscard]] double weight(std::size_t decoding) const;
};

/// Tokens one request processed inside an interval.
struct IntervalTokens {
  double prompt = 0.0;
  double decode = 0.0;
};

/// Returns the tokens `request` processed in [begin_s, end_s); `now_s` stands for the end of a request
/// still in flight. A streamed request's prompt tokens are spread evenly over its prompt phase and its
/// decode tokens counted where their chunks passed; a non-streamed one's prompt tokens spread evenly over
/// its `prompt_phase_s` from its arrival and its output tokens over its lifetime (the proxy sees no
/// progress inside it).
IntervalTokens tokens_in_interval(const RequestActivity& request, double begin_s, double end_s, double now_s);

/// Returns whether `request` was in flight through the whole of [begin_s, end_s) (`now_s` for the end of one
/// still in flight): the interval then has no idle part.
bool spans(const RequestActivity& request, double begin_s, double end_s, double now_s);

/// Returns whether `request` was in flight during [begin_s, end_s).
bool overlaps(const RequestActivity& request, double begin_s, double end_s);

/// Returns whether `request`'s tokens in an interval that has closed no longer change with the time: it
/// ended, or it streams and its first chunk passed (its prompt phase is known and each chunk is counted
/// where it passed). Its usage, when it ends, and a chunk late for its interval still change them.
bool tokens_are_fixed(const RequestActivity& request);

/// Token sums of one interval over some of the requests in flight in it.
struct TokenSums {
  double prompt = 0.0;
  double decode = 0.0;
  std::ptrdiff_t decoding = 0;  ///< requests with decode tokens in it
  std::ptrdiff_t requests = 0;
  double ever_added = 0.0;  ///< every token added, taken away or not: the scale of the rounding residue
  void add(const IntervalTokens& tokens);
  void remove(const IntervalTokens& tokens);
};

/// One request's part of an interval's busy energy `busy_j` by the rule of split_interval, from the sums over
/// every request in flight in it (kept as they change rather than summed again: equal to split_interval's
/// share but for rounding).
double share_from_sums(double busy_j, const TokenSums& sums, const IntervalTokens& mine, const PrefillWeightRule& rule);

/// One interval's energy, split.
struct IntervalShares {
  std::vector<double> shares;  ///< per request, in the order given
  double idle_j = 0.0;         ///< the part of the interval with no request in flight
};

/// Splits `joules` of the interval [begin_s, end_s) over `requests` (those in flight in it). The part of
/// the interval when no request was in flight is idle (at the interval's mean power: the counter gives
/// no finer time); the rest goes to the requests, each joules × weight / Σ weights, weight = w(B) ×
/// prompt tokens + decode tokens, B the requests that decoded in the interval. When none processed a
/// token there (all waiting), they share it equally. Shares and idle always add up to `joules`.
IntervalShares split_interval(double joules, double begin_s, double end_s,
                              const std::vector<const RequestActivity*>& requests, double now_s,
                              const PrefillWeightRule& rule);

/// The share of `requests[which]` in split_interval's split of the same interval, without working out the
/// others' shares (the same sums in the same order: the same number). `tokens` is working room whose
/// capacity the caller keeps between calls, so that an answer's provisional energy allocates nothing.
double share_in_interval(double joules, double begin_s, double end_s, const std::vector<const RequestActivity*>& requests,
                         std::size_t which, double now_s, const PrefillWeightRule& rule,
                         std::vector<IntervalTokens>& tokens);

/// The share of [begin_s, end_s) during which at least one of `requests` was in flight.
double busy_fraction(double begin_s, double end_s, const std::vector<const RequestActivity*>& requests, double now_s);

}  // namespace ecocompute::proxy
