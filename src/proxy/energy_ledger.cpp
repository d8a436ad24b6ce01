#include "proxy/energy_ledger.hpp"

#include <algorithm>
#include <limits>
#include <optional>
#include <utility>
#include <vector>

namespace ecocompute::proxy {

namespace {
constexpr double kForever = std::numeric_limits<double>::infinity();
// How many streamed requests stand for the server's current prompt phase and decode rate.
constexpr std::size_t kRecentStreams = 64;

void keep_recent(std::deque<double>& values, double value) {
  values.push_back(value);
  if (values.size() > kRecentStreams) values.pop_front();
}

// The median of the values (0 without any).
double median(std::vector<double> values) {
  if (values.empty()) return 0.0;
  const auto middle = values.begin() + static_cast<std::ptrdiff_t>(values.size() / 2);
  std::nth_element(values.begin(), middle, values.end());
  return *middle;
}

double recent_median(const std::deque<double>& values) { return median({values.begin(), values.end()}); }
}

EnergyLedger::EnergyLedger(PrefillWeightRule rule, SettledCallback on_settled)
    : rule_(rule), on_settled_(std::move(on_settled)) {}

void EnergyLedger::start(double now_s) {
  std::lock_guard lock(mutex_);
  if (!open_begin_s_) open_begin_s_ = now_s;
}

std::uint64_t EnergyLedger::begin_request(std::string model, double now_s, double prompt_tokens_estimate, bool streamed) {
  const std::uint64_t id = next_id_.fetch_add(1, std::memory_order_relaxed);
  queue({id, now_s, std::move(model), prompt_tokens_estimate, streamed});
  return id;
}

void EnergyLedger::record_output(std::uint64_t id, double now_s) { queue({id, now_s, std::nullopt, 0.0, false}); }

void EnergyLedger::queue(QueuedEvent event) {
  std::lock_guard lock(queue_mutex_);
  queued_.push_back(std::move(event));
}

void EnergyLedger::apply_queued() {
  {
    std::lock_guard lock(queue_mutex_);
    applying_.swap(queued_);
  }
  for (QueuedEvent& event : applying_) {
    if (event.model) {
      apply_begin(event);
    } else {
      apply_output(event.id, event.time_s);
    }
  }
  applying_.clear();
}

void EnergyLedger::apply_begin(QueuedEvent& event) {
  TrackedRequest request;
  request.model = std::move(*event.model);
  request.activity.id = event.id;
  request.activity.start_s = event.time_s;
  request.activity.streamed = event.streamed;
  request.activity.prompt_tokens = event.prompt_tokens_estimate;
  // Its decode rate is taken only when an answer beside it ends (finish_request), at the rate of that moment.
  if (!event.streamed) request.activity.prompt_phase_s = current_prompt_phase();
  const auto placed = requests_.emplace(event.id, std::move(request)).first;
  unfixed_.emplace(event.id, &placed->second.activity);
  ++totals_.in_flight;
}

void EnergyLedger::apply_output(std::uint64_t id, double now_s) {
  auto found = requests_.find(id);
  if (found == requests_.end() || found->second.activity.end_s) return;
  TrackedRequest& request = found->second;
  RequestActivity& activity = request.activity;
  const auto add_chunk = [&] {
    auto& times = activity.output_times_s;
    // Times come from one steady clock, but from several threads: keep them sorted for the search.
    times.push_back(times.empty() ? now_s : std::max(now_s, times.back()));
    ++request.output_chunks;
  };
  // A chunk inside the open interval changes no closed one's tokens, unless it is the first (it ends the prompt phase).
  const bool late = open_begin_s_ && now_s < *open_begin_s_;
  if (tokens_are_fixed(activity) && !late) {
    add_chunk();
  } else {
    reweigh(activity, add_chunk);
  }
  if (request.output_chunks == 1 && activity.streamed) {
    keep_recent(first_chunk_s_, std::max(0.0, activity.output_times_s.front() - activity.start_s));
  }
}

std::size_t EnergyLedger::unsettled_after(double time_s) const {
  const auto first = std::partition_point(unsettled_.begin(), unsettled_.end(),
                                          [time_s](const ClosedInterval& interval) { return interval.end_s <= time_s; });
  return static_cast<std::size_t>(first - unsettled_.begin());
}

template <typename Change>
void EnergyLedger::reweigh(RequestActivity& activity, Change change) {
  if (tokens_are_fixed(activity)) add_fixed_tokens(activity, false);
  change();
  if (tokens_are_fixed(activity)) {
    add_fixed_tokens(activity, true);
    unfixed_.erase(activity.id);
  } else {
    unfixed_[activity.id] = &activity;
  }
}

void EnergyLedger::add_fixed_tokens(const RequestActivity& activity, bool add) {
  for (std::size_t k = unsettled_after(activity.start_s); k < unsettled_.size(); ++k) {
    ClosedInterval& interval = unsettled_[k];
    if (!overlaps(activity, interval.begin_s, interval.end_s)) continue;
    const IntervalTokens tokens = tokens_in_interval(activity, interval.begin_s, interval.end_s, interval.end_s);
    if (add) {
      interval.fixed.add(tokens);
    } else {
      interval.fixed.remove(tokens);
    }
    // An answer that ended inside an interval (its end stamped before the interval closed) may have been the
    // one that spanned it: its idle part is then worked out again.
    if (activity.end_s && *activity.end_s < interval.end_s) interval.covered = false;
  }
}

void EnergyLedger::sum_fixed_tokens(ClosedInterval& interval) const {
  for (const auto& [id, request] : requests_) {
    const RequestActivity& activity = request.activity;
    if (!overlaps(activity, interval.begin_s, interval.end_s)) continue;
    if (tokens_are_fixed(activity)) {
      interval.fixed.add(tokens_in_interval(activity, interval.begin_s, interval.end_s, interval.end_s));
    }
    if (spans(activity, interval.begin_s, interval.end_s, interval.end_s)) interval.covered = true;
  }
}

double EnergyLedger::unsettled_share(const RequestActivity& activity, double now_s) const {
  const std::size_t first = unsettled_after(activity.start_s);
  share_sums_.clear();
  for (std::size_t k = first; k < unsettled_.size(); ++k) share_sums_.push_back(unsettled_[k].fixed);
  // The requests whose tokens still change with the time, added as they stand now.
  for (const auto& [id, other] : unfixed_) {
    for (std::size_t k = std::max(first, unsettled_after(other->start_s)); k < unsettled_.size(); ++k) {
      const ClosedInterval& interval = unsettled_[k];
      if (overlaps(*other, interval.begin_s, interval.end_s)) {
        share_sums_[k - first].add(tokens_in_interval(*other, interval.begin_s, interval.end_s, now_s));
      }
    }
  }
  double joules = 0.0;
  for (std::size_t k = first; k < unsettled_.size(); ++k) {
    const ClosedInterval& interval = unsettled_[k];
    if (!overlaps(activity, interval.begin_s, interval.end_s)) continue;
    double busy = 1.0;
    if (!interval.covered) {
      in_flight_during(interval.begin_s, interval.end_s, share_requests_);
      busy = busy_fraction(interval.begin_s, interval.end_s, share_requests_, now_s);
    }
    const IntervalTokens mine = tokens_in_interval(activity, interval.begin_s, interval.end_s, now_s);
    joules += share_from_sums(interval.joules * busy, share_sums_[k - first], mine, rule_);
  }
  return joules;
}

void EnergyLedger::in_flight_during(double begin_s, double end_s, std::vector<const RequestActivity*>& out) const {
  out.clear();
  for (const auto& [id, request] : requests_) {
    if (overlaps(request.activity, begin_s, end_s)) out.push_back(&request.activity);
  }
}

double EnergyLedger::share_of(std::uint64_t id, const ClosedInterval& interval, double now_s) const {
  in_flight_during(interval.begin_s, interval.end_s, share_requests_);
  const auto mine = std::find_if(share_requests_.begin(), share_requests_.end(),
                                 [id](const RequestActivity* request) { return request->id == id; });
  const auto which = static_cast<std::size_t>(mine - share_requests_.begin());
  return share_in_interval(interval.joules, interval.begin_s, interval.end_s, share_requests_, which, now_s, rule_,
                           share_tokens_);
}

// The streams in flight show the server as it is now; the streams that ended show it as it was, which after a
// change of load (C = 1, then 16 streams) is several times off until 64 new streams have ended.
template <typename Measure>
std::optional<double> EnergyLedger::median_over_streams_in_flight(Measure measure) const {
  std::vector<double> values;
  for (const auto& [id, request] : requests_) {
    const RequestActivity& activity = request.activity;
    if (!activity.streamed || activity.end_s || activity.output_times_s.empty()) continue;
    if (const auto value = measure(activity)) values.push_back(*value);
  }
  if (values.empty()) return std::nullopt;
  return median(std::move(values));
}

double EnergyLedger::current_prompt_phase() const {
  const auto now = median_over_streams_in_flight(
      [](const RequestActivity& a) -> std::optional<double> { return a.output_times_s.front() - a.start_s; });
  return now.value_or(recent_median(first_chunk_s_));
}

double EnergyLedger::current_decode_rate() const {
  const auto chunks_per_s = median_over_streams_in_flight([](const RequestActivity& a) -> std::optional<double> {
    const double span_s = a.output_times_s.back() - a.output_times_s.front();
    if (span_s <= 0) return std::nullopt;
    return static_cast<double>(a.output_times_s.size() - 1) / span_s;
  });
  if (!chunks_per_s) return recent_median(decode_rates_);
  return *chunks_per_s * (output_scales_.empty() ? 1.0 : recent_median(output_scales_));
}

ProvisionalEnergy EnergyLedger::finish_request(std::uint64_t id, double now_s, const ReportedUsage& usage) {
  std::lock_guard lock(mutex_);
  apply_queued();
  auto found = requests_.find(id);
  if (found == requests_.end() || found->second.activity.end_s) return {};
  // Taken while this request, if streamed, is still one of the streams in flight; only when an unstreamed
  // request in flight needs it (the median over the streams is work on every answer's end otherwise).
  std::optional<double> decode_rate;
  for (auto& [other_id, other] : unfixed_) {
    if (other->streamed) continue;
    if (!decode_rate) decode_rate = current_decode_rate();
    other->decode_rate_per_s = *decode_rate;
  }
  TrackedRequest& request = found->second;
  RequestActivity& activity = request.activity;
  reweigh(activity, [&] {
    activity.end_s = std::max(now_s, activity.start_s);
    if (usage.prompt_tokens) activity.prompt_tokens = *usage.prompt_tokens;
    const double completion = usage.completion_tokens.value_or(static_cast<double>(request.output_chunks));
    activity.completion_tokens = completion;
    if (activity.streamed && request.output_chunks > 0) {
      activity.output_scale = completion / static_cast<double>(request.output_chunks);
      keep_recent(output_scales_, activity.output_scale);
      const double decoding_s = *activity.end_s - activity.output_times_s.front();
      if (request.output_chunks > 1 && decoding_s > 0) keep_recent(decode_rates_, completion / decoding_s);
    } else if (activity.streamed) {
      // No chunk seen: its tokens are spread like an unstreamed answer's, its prompt over the same phase.
      activity.streamed = false;
      activity.prompt_phase_s = current_prompt_phase();
    }
  });
  --totals_.in_flight;

  ProvisionalEnergy energy;
  energy.counter_read = power_known_;
  energy.prompt_tokens = activity.prompt_tokens;
  energy.completion_tokens = activity.completion_tokens;
  energy.joules = request.settled_j + unsettled_share(activity, now_s);
  if (open_begin_s_ && power_known_ && now_s > *open_begin_s_) {
    const ClosedInterval open{*open_begin_s_, now_s, last_power_w_ * (now_s - *open_begin_s_), {}, false};
    energy.open_interval_estimate_j = share_of(id, open, now_s);
    energy.joules += energy.open_interval_estimate_j;
  }
  settle_ready();
  return energy;
}

void EnergyLedger::close_interval(double end_s, double joules) {
  std::lock_guard lock(mutex_);
  apply_queued();
  if (!open_begin_s_) {
    open_begin_s_ = end_s;
    return;
  }
  const double begin_s = *open_begin_s_;
  if (end_s <= begin_s) end_s = begin_s;
  ClosedInterval interval{begin_s, end_s, joules, {}, false};
  sum_fixed_tokens(interval);
  unsettled_.push_back(interval);
  totals_.counter_j += joules;
  totals_.unsettled_j += joules;
  if (end_s > begin_s) {
    last_power_w_ = joules / (end_s - begin_s);
    power_known_ = true;
  }
  open_begin_s_ = end_s;
  settle_ready();
}

void EnergyLedger::skip_interval(double end_s) {
  std::lock_guard lock(mutex_);
  apply_queued();
  ++totals_.skipped_intervals;
  // Requests in flight across the gap keep what they had; the gap is booked nowhere and counted.
  open_begin_s_ = end_s;
  settle_ready();
}

void EnergyLedger::settle_ready() {
  while (!unsettled_.empty()) {
    const ClosedInterval interval = unsettled_.front();
    std::vector<const RequestActivity*> requests;
    in_flight_during(interval.begin_s, interval.end_s, requests);
    for (const RequestActivity* request : requests) {
      if (!request->end_s) return;  // its token counts are not final yet
    }
    totals_.unsettled_j -= interval.joules;
    const auto split = split_interval(interval.joules, interval.begin_s, interval.end_s, requests, interval.end_s, rule_);
    totals_.idle_j += split.idle_j;
    for (std::size_t i = 0; i < requests.size(); ++i) {
      TrackedRequest& request = requests_.at(requests[i]->id);
      request.settled_j += split.shares[i];
      totals_.attributed_j[request.model] += split.shares[i];
    }
    unsettled_.pop_front();
  }
  if (unsettled_.empty()) totals_.unsettled_j = 0.0;  // no rounding residue once nothing waits
  retire_finished();
}

void EnergyLedger::retire_finished() {
  const double open_begin = open_begin_s_.value_or(kForever);
  for (auto it = requests_.begin(); it != requests_.end();) {
    const RequestActivity& activity = it->second.activity;
    const bool done = activity.end_s && !overlaps(activity, open_begin, kForever) &&
                      (unsettled_.empty() || !overlaps(activity, unsettled_.front().begin_s, kForever));
    if (!done) {
      ++it;
      continue;
    }
    ++totals_.settled_requests;
    if (on_settled_) {
      on_settled_({it->second.model, it->second.settled_j, activity.prompt_tokens, activity.completion_tokens});
    }
    it = requests_.erase(it);
  }
}

LedgerTotals EnergyLedger::totals() {
  std::lock_guard lock(mutex_);
  apply_queued();
  return totals_;
}

}  // namespace ecocompute::proxy
