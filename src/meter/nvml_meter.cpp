// NvmlMeter: counter at the edges, a sampler thread for the power buffer and the update period.
#include "meter/nvml_meter.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "util/log.hpp"

namespace ecocompute::meter {
namespace {
// The counter's update period is measured (DESIGN.md §2 saw ~100 ms on H200); until it is known, a
// window whose counter did not move is called stuck only if it is longer than 3 × this bound.
constexpr Seconds unknown_period_bound{1.0};
constexpr std::size_t max_counter_readings = 4096;
}  // namespace

NvmlMeter::NvmlMeter(std::shared_ptr<NvmlLibrary> nvml, GpuDevice gpu, std::shared_ptr<Clock> clock,
                     NvmlMeterOptions options)
    : nvml_(std::move(nvml)), gpu_(std::move(gpu)), clock_(std::move(clock)), options_(options) {
  if (options_.start_sampler) sampler_ = std::thread([this] { run_sampler(); });
}

NvmlMeter::~NvmlMeter() {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  stop_cv_.notify_all();
  if (sampler_.joinable()) sampler_.join();
}

void NvmlMeter::run_sampler() {
  auto last_drain = std::chrono::steady_clock::now() - options_.drain_interval;
  while (true) {
    bool measuring_period = false;
    {
      std::lock_guard lock(mutex_);
      measuring_period = changes_seen_ < options_.period_changes_wanted;
    }
    const auto now = std::chrono::steady_clock::now();
    const bool drain_due = now - last_drain >= options_.drain_interval;
    if (measuring_period || options_.correct_edges || drain_due) poll_counter();
    if (drain_due) {
      drain_trace();
      last_drain = now;
    }
    std::unique_lock lock(mutex_);
    const auto wait = options_.correct_edges ? options_.edge_poll
                      : measuring_period     ? options_.counter_poll
                                             : std::chrono::duration_cast<std::chrono::milliseconds>(options_.drain_interval);
    if (stop_cv_.wait_for(lock, wait, [this] { return stop_; })) return;
  }
}

void NvmlMeter::poll_counter() {
  const std::uint64_t before_us = clock_->wall_us();
  auto energy = nvml_->total_energy_mj(gpu_.handle);
  const Seconds now = clock_->now();
  const std::uint64_t after_us = clock_->wall_us();
  std::lock_guard lock(mutex_);
  if (!energy) {
    ++dropped_reads_;
    return;
  }
  if (options_.correct_edges) observe_counter(*energy, before_us, after_us);
  // Only readings that differ from the previous kept one are stored: each marks a change. Once
  // enough changes are seen, polling slows to the drain interval and its coarse change times would
  // bias the period, so no more are stored.
  if (changes_seen_ >= options_.period_changes_wanted) return;
  if (readings_.empty() || readings_.back().energy_mj != *energy) {
    if (!readings_.empty()) ++changes_seen_;
    readings_.push_back(CounterReading{now, *energy});
    if (readings_.size() > max_counter_readings) readings_.erase(readings_.begin());
  }
}

void NvmlMeter::observe_counter(std::uint64_t energy_mj, std::uint64_t before_us, std::uint64_t after_us) {
  if (last_value_mj_ && energy_mj > *last_value_mj_) {
    changes_.push_back(CounterChange{last_read_began_us_, after_us, energy_mj});
    if (changes_.size() > options_.max_counter_changes) changes_.erase(changes_.begin());
  } else if (last_value_mj_ && energy_mj < *last_value_mj_) {
    // A reset, or two reads that returned out of order: what was learnt no longer holds.
    changes_.clear();
  }
  last_value_mj_ = energy_mj;
  last_read_began_us_ = before_us;
}

void NvmlMeter::drain_trace() {
  drain_power();
  drain_busy();
}

void NvmlMeter::drain_power() {
  std::uint64_t since = 0;
  {
    std::lock_guard lock(mutex_);
    since = last_sample_us_;
  }
  auto samples = nvml_->power_samples(gpu_.handle, since);
  std::lock_guard lock(mutex_);
  if (!samples || samples->empty()) {
    ++dropped_reads_;
    return;
  }
  for (const auto& [timestamp_us, milliwatts] : *samples) {
    if (timestamp_us <= last_sample_us_) continue;
    trace_.push_back(PowerSample{timestamp_us, Watts{milliwatts / 1e3}});
    last_sample_us_ = timestamp_us;
  }
  if (trace_.size() > options_.max_trace_samples) {
    trace_.erase(trace_.begin(), trace_.begin() + static_cast<std::ptrdiff_t>(trace_.size() - options_.max_trace_samples));
  }
}

void NvmlMeter::drain_busy() {
  std::uint64_t since = 0;
  {
    std::lock_guard lock(mutex_);
    if (!busy_readable_) return;
    since = last_busy_us_;
  }
  auto samples = nvml_->busy_samples(gpu_.handle, since);
  std::lock_guard lock(mutex_);
  if (!samples) {
    // Not every driver keeps utilization samples; energy does not depend on them.
    busy_readable_ = false;
    return;
  }
  for (const auto& [timestamp_us, percent] : *samples) {
    if (timestamp_us <= last_busy_us_) continue;
    busy_trace_.push_back(PowerSample{timestamp_us, Watts{percent}});
    last_busy_us_ = timestamp_us;
  }
  if (busy_trace_.size() > options_.max_trace_samples) {
    busy_trace_.erase(busy_trace_.begin(),
                      busy_trace_.begin() + static_cast<std::ptrdiff_t>(busy_trace_.size() - options_.max_trace_samples));
  }
}

std::optional<Seconds> NvmlMeter::counter_update_period() const {
  std::lock_guard lock(mutex_);
  return meter::counter_update_period(readings_);
}

std::vector<CounterReading> NvmlMeter::counter_readings() const {
  std::lock_guard lock(mutex_);
  return readings_;
}

std::vector<PowerSample> NvmlMeter::trace() const {
  std::lock_guard lock(mutex_);
  return trace_;
}

Telemetry NvmlMeter::read_telemetry() const {
  Telemetry t;
  if (auto v = nvml_->temperature_c(gpu_.handle)) t.temperature_c = static_cast<double>(*v);
  if (auto v = nvml_->clock_mhz(gpu_.handle, nvml::clock_sm)) t.sm_clock_mhz = *v;
  if (auto v = nvml_->clock_mhz(gpu_.handle, nvml::clock_mem)) t.memory_clock_mhz = *v;
  if (auto v = nvml_->enforced_power_limit_mw(gpu_.handle)) t.power_limit = from_milliwatts(*v);
  if (auto v = nvml_->field_value(gpu_.handle, nvml::field_power_average)) t.power_average_1s = Watts{*v / 1e3};
  if (auto v = nvml_->clocks_event_reasons(gpu_.handle)) {
    t.throttle_reasons = *v;
    t.throttle_reason_names = throttle_reason_names(*v);
  }
  if (auto v = nvml_->performance_state(gpu_.handle)) t.pstate = *v;
  return t;
}

NvmlMeter::Edge NvmlMeter::read_edge() {
  // The counter is read first and right after the clock, so the edge time and the counter value
  // belong together; telemetry follows (each NVML read costs ~1–4 ms on H200).
  Edge edge;
  edge.steady = clock_->now();
  edge.wall_us = clock_->wall_us();
  edge.energy_mj = nvml_->total_energy_mj(gpu_.handle);
  if (options_.correct_edges && edge.energy_mj) {
    const std::uint64_t after_us = clock_->wall_us();
    std::lock_guard lock(mutex_);
    observe_counter(*edge.energy_mj, edge.wall_us, after_us);
    edge.change = change_to(changes_, *edge.energy_mj);
  }
  if (auto p = nvml_->power_usage_mw(gpu_.handle)) edge.power = from_milliwatts(*p);
  edge.telemetry = read_telemetry();
  return edge;
}

Window NvmlMeter::do_begin(std::string label) {
  Edge edge = read_edge();
  std::lock_guard lock(mutex_);
  edge.dropped_reads = dropped_reads_;
  const std::uint64_t id = next_window_id_++;
  open_windows_.emplace(id, std::move(edge));
  return make_window(std::move(label), id);
}

Result<Measurement> NvmlMeter::do_end(Window& window) {
  Edge end = read_edge();
  poll_counter();
  drain_trace();

  Edge begin;
  std::vector<PowerSample> trace_copy;
  std::vector<PowerSample> busy_in_window;
  std::uint64_t dropped_now = 0;
  std::optional<Seconds> period;
  {
    std::lock_guard lock(mutex_);
    auto it = open_windows_.find(window.id());
    if (it == open_windows_.end()) {
      return unexpected(ErrorCode::internal, fmt::format("window '{}' was not opened by this meter", window.label()));
    }
    begin = std::move(it->second);
    open_windows_.erase(it);
    trace_copy = trace_;
    busy_in_window = samples_in(busy_trace_, begin.wall_us, end.wall_us);
    dropped_now = dropped_reads_;
    period = meter::counter_update_period(readings_);
  }

  Measurement m;
  m.label = window.label();
  m.source = source();
  m.device = device();
  m.duration = end.steady - begin.steady;
  m.counter_update_period = period;
  m.at_begin = begin.telemetry;
  m.at_end = end.telemetry;
  m.dropped_reads = dropped_now - begin.dropped_reads;

  m.trace = samples_in(trace_copy, begin.wall_us, end.wall_us);
  if (!busy_in_window.empty()) {
    double sum = 0.0;
    for (const PowerSample& s : busy_in_window) sum += s.power.value;
    m.gpu_busy_pct = sum / static_cast<double>(busy_in_window.size());
    m.gpu_busy_samples = busy_in_window.size();
  }
  if (m.duration.value > 0.0) m.achieved_sample_rate_hz = static_cast<double>(m.trace.size()) / m.duration.value;
  // Edges may fall up to two sample spacings from the nearest sample (the driver writes a sample
  // every ~20 ms on H200); the nearest sample's power is held to the edge there.
  const auto spacing = median_sample_spacing(trace_copy);
  const auto tolerance_us = static_cast<std::uint64_t>(spacing ? 2.0 * spacing->value * 1e6 : 0.0);
  m.trace_energy = trace_energy(trace_copy, begin.wall_us, end.wall_us, tolerance_us);

  if (!begin.energy_mj || !end.energy_mj) {
    m.status = WindowStatus::read_failed;
    m.invalid_reason = !begin.energy_mj ? "energy counter at begin: " + begin.energy_mj.error().describe()
                                        : "energy counter at end: " + end.energy_mj.error().describe();
    return m;
  }
  const std::uint64_t e0 = *begin.energy_mj;
  const std::uint64_t e1 = *end.energy_mj;
  if (e1 < e0) {
    m.status = WindowStatus::counter_reset;
    m.invalid_reason = fmt::format("energy counter went backwards from {} mJ to {} mJ (driver reload or GPU reset)",
                                   e0, e1);
    return m;
  }
  const Watts edge_power = std::max(begin.power.value_or(Watts{0.0}), end.power.value_or(Watts{0.0}));
  const Seconds stuck_after = (period ? *period : unknown_period_bound) * 3.0;
  if (e1 == e0 && edge_power.value > 0.0 && m.duration > stuck_after) {
    m.status = WindowStatus::counter_stuck;
    m.invalid_reason = fmt::format("energy counter stayed at {} mJ for {:.3f} s (> 3 update periods of {:.3f} s) "
                                   "while power was {:.1f} W", e0, m.duration.value,
                                   stuck_after.value / 3.0, edge_power.value);
    return m;
  }
  m.status = WindowStatus::valid;
  m.energy = from_millijoules(e1 - e0);
  if (period) {
    // Each edge may lie anywhere inside one counter update: ± P_edge × period per edge.
    m.edge_uncertainty = begin.power.value_or(Watts{0.0}) * *period + end.power.value_or(Watts{0.0}) * *period;
  }
  if (options_.correct_edges) correct_edges(m, begin, end, trace_copy, tolerance_us);
  if (m.trace_energy) m.trace_vs_counter_pct = disagreement_pct(*m.trace_energy, *m.energy);
  return m;
}

void NvmlMeter::correct_edges(Measurement& m, const Edge& begin, const Edge& end,
                              const std::vector<PowerSample>& trace, std::uint64_t tolerance_us) const {
  if (!begin.change || !end.change) {
    m.edge_correction_skipped = fmt::format("the counter update before the {} edge was not seen by polling",
                                            !begin.change ? "begin" : "end");
    return;
  }
  // The counter difference covers update-to-update; each edge lies after its update by the staleness.
  Result<EdgeStaleness> head = edge_staleness(*begin.change, begin.wall_us, begin.power.value_or(Watts{0.0}), trace,
                                              tolerance_us);
  Result<EdgeStaleness> tail = edge_staleness(*end.change, end.wall_us, end.power.value_or(Watts{0.0}), trace,
                                              tolerance_us);
  if (!head || !tail) {
    m.edge_correction_skipped = fmt::format("{} edge: {}", !head ? "begin" : "end",
                                            (!head ? head.error() : tail.error()).message());
    return;
  }
  m.counter_energy = m.energy;
  m.edge_correction = tail->energy - head->energy;
  m.energy = *m.energy + *m.edge_correction;
  m.edge_uncertainty = head->uncertainty + tail->uncertainty;
  m.edge_method = EdgeMethod::corrected;
}

}  // namespace ecocompute::meter
