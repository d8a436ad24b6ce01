// Windows over several GPUs: begun and ended GPU by GPU in one order, each edge read on the
// controlling thread right after the previous GPU's (one NVML read, milliseconds apart).
#include "meter/multi_gpu_meter.hpp"

#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "meter/gpu_selection.hpp"
#include "util/check.hpp"

namespace ecocompute::meter {
namespace {

template <typename T, typename Get>
std::optional<T> sum_if_all(const std::vector<Measurement>& parts, Get get) {
  T total{0.0};
  for (const Measurement& m : parts) {
    const auto& value = get(m);
    if (!value) return std::nullopt;
    total = total + *value;
  }
  return total;
}

Telemetry worst_case(const std::vector<Measurement>& parts, bool at_begin) {
  Telemetry out;
  std::set<std::string> names;
  bool all_limits = true, all_averages = true;
  Watts limits{0.0}, averages{0.0};
  for (const Measurement& m : parts) {
    const Telemetry& t = at_begin ? m.at_begin : m.at_end;
    if (t.temperature_c) out.temperature_c = std::max(out.temperature_c.value_or(t.temperature_c.value()), *t.temperature_c);
    if (t.sm_clock_mhz) out.sm_clock_mhz = std::min(out.sm_clock_mhz.value_or(*t.sm_clock_mhz), *t.sm_clock_mhz);
    if (t.memory_clock_mhz) {
      out.memory_clock_mhz = std::min(out.memory_clock_mhz.value_or(*t.memory_clock_mhz), *t.memory_clock_mhz);
    }
    if (t.throttle_reasons) out.throttle_reasons = out.throttle_reasons.value_or(0) | *t.throttle_reasons;
    names.insert(t.throttle_reason_names.begin(), t.throttle_reason_names.end());
    if (t.pstate) out.pstate = std::max(out.pstate.value_or(*t.pstate), *t.pstate);
    all_limits = all_limits && t.power_limit.has_value();
    if (t.power_limit) limits = limits + *t.power_limit;
    all_averages = all_averages && t.power_average_1s.has_value();
    if (t.power_average_1s) averages = averages + *t.power_average_1s;
  }
  if (all_limits) out.power_limit = limits;
  if (all_averages) out.power_average_1s = averages;
  out.throttle_reason_names.assign(names.begin(), names.end());
  return out;
}

}  // namespace

Measurement combine_measurements(std::vector<Measurement> parts, const std::string& device) {
  ECO_CHECK(!parts.empty(), "combine_measurements needs at least one measurement");
  Measurement out;
  out.label = parts.front().label;
  out.source = parts.front().source;
  out.device = device;
  out.status = WindowStatus::valid;
  for (const Measurement& m : parts) {
    if (m.status == WindowStatus::valid) continue;
    out.status = m.status;
    out.invalid_reason = fmt::format("{}: {}", m.device, m.invalid_reason);
    break;
  }
  out.edge_method = EdgeMethod::corrected;
  for (const Measurement& m : parts) {
    out.duration = Seconds{std::max(out.duration.value, m.duration.value)};
    if (m.edge_method != EdgeMethod::corrected) out.edge_method = EdgeMethod::counter;
    if (m.counter_update_period) {
      out.counter_update_period = Seconds{std::max(out.counter_update_period.value_or(Seconds{0.0}).value,
                                                   m.counter_update_period->value)};
    }
    out.dropped_reads += m.dropped_reads;
    if (!m.edge_correction_skipped.empty() && out.edge_correction_skipped.empty()) {
      out.edge_correction_skipped = fmt::format("{}: {}", m.device, m.edge_correction_skipped);
    }
  }
  out.achieved_sample_rate_hz = parts.front().achieved_sample_rate_hz;
  for (const Measurement& m : parts) out.achieved_sample_rate_hz = std::min(out.achieved_sample_rate_hz, m.achieved_sample_rate_hz);
  // The split's slowest GPU shows whether the host held the work back: the least busy one.
  for (const Measurement& m : parts) {
    if (!m.gpu_busy_pct) continue;
    if (!out.gpu_busy_pct || *m.gpu_busy_pct < *out.gpu_busy_pct) out.gpu_busy_pct = m.gpu_busy_pct;
    out.gpu_busy_samples += m.gpu_busy_samples;
  }
  if (out.status == WindowStatus::valid) {
    out.energy = sum_if_all<Joules>(parts, [](const Measurement& m) -> const std::optional<Joules>& { return m.energy; });
    out.edge_uncertainty =
        sum_if_all<Joules>(parts, [](const Measurement& m) -> const std::optional<Joules>& { return m.edge_uncertainty; });
    out.counter_energy =
        sum_if_all<Joules>(parts, [](const Measurement& m) -> const std::optional<Joules>& { return m.counter_energy; });
    out.edge_correction =
        sum_if_all<Joules>(parts, [](const Measurement& m) -> const std::optional<Joules>& { return m.edge_correction; });
    out.trace_energy =
        sum_if_all<Joules>(parts, [](const Measurement& m) -> const std::optional<Joules>& { return m.trace_energy; });
    const std::optional<Joules> counter = out.counter_energy ? out.counter_energy : out.energy;
    if (out.trace_energy && counter && counter->value > 0.0) {
      out.trace_vs_counter_pct = (out.trace_energy->value - counter->value) / counter->value * 100.0;
    }
  }
  out.at_begin = worst_case(parts, true);
  out.at_end = worst_case(parts, false);
  out.per_device = std::move(parts);
  return out;
}

MultiGpuMeter::MultiGpuMeter(std::vector<std::unique_ptr<Meter>> meters) : meters_(std::move(meters)) {
  ECO_CHECK(meters_.size() >= 2, "a MultiGpuMeter needs at least two meters");
  for (const auto& meter : meters_) ECO_CHECK(meter != nullptr && meter->measures_energy(), "every GPU's meter must measure energy");
}

std::string MultiGpuMeter::device() const {
  std::string out = fmt::format("{} GPUs: ", meters_.size());
  for (std::size_t i = 0; i < meters_.size(); ++i) out += (i == 0 ? "" : "; ") + meters_[i]->device();
  return out;
}

std::vector<std::string> MultiGpuMeter::devices() const {
  std::vector<std::string> out;
  for (const auto& meter : meters_) out.push_back(meter->device());
  return out;
}

Window MultiGpuMeter::do_begin(std::string label) {
  std::vector<Window> windows;
  windows.reserve(meters_.size());
  for (const auto& meter : meters_) windows.push_back(meter->begin(label));
  const std::lock_guard lock(mutex_);
  const std::uint64_t id = next_id_++;
  open_.emplace(id, std::move(windows));
  return make_window(std::move(label), id);
}

Result<Measurement> MultiGpuMeter::do_end(Window& window) {
  std::vector<Window> windows;
  {
    const std::lock_guard lock(mutex_);
    auto it = open_.find(window.id());
    if (it == open_.end()) return unexpected(ErrorCode::internal, "window '" + window.label() + "' is not open on this meter");
    windows = std::move(it->second);
    open_.erase(it);
  }
  std::vector<Measurement> parts;
  std::optional<Error> first_error;
  for (std::size_t i = 0; i < windows.size(); ++i) {
    auto m = meters_[i]->end(std::move(windows[i]));
    if (!m) {
      if (!first_error) first_error = Error{m.error().code(), meters_[i]->device() + ": " + m.error().message()};
      continue;
    }
    parts.push_back(std::move(*m));
  }
  if (first_error) return *first_error;
  return combine_measurements(std::move(parts), device());
}

Result<std::unique_ptr<Meter>> open_gpus_meter(std::shared_ptr<NvmlLibrary> nvml, const std::vector<std::string>& uuids,
                                               std::shared_ptr<Clock> clock, const NvmlMeterOptions& options,
                                               const std::function<Result<void>(const GpuDevice&)>& check) {
  if (uuids.empty()) return unexpected(ErrorCode::invalid_argument, "--gpus: no GPU given");
  std::vector<std::unique_ptr<Meter>> meters;
  std::set<std::string> seen;
  for (const std::string& uuid : uuids) {
    if (!seen.insert(uuid).second) return unexpected(ErrorCode::invalid_argument, "--gpus: " + uuid + " is listed twice");
    auto spec = parse_gpu_spec(uuid);
    if (!spec) return spec.error();
    if (spec->kind != GpuSpec::Kind::uuid) {
      return unexpected(ErrorCode::invalid_argument, "--gpus: '" + uuid + "' is not a GPU UUID (GPU-…)");
    }
    auto gpu = select_gpu(*nvml, *spec);
    if (!gpu) return unexpected(Error{gpu.error().code(), "--gpus: " + uuid + " cannot be measured", gpu.error()});
    if (check) {
      if (auto checked = check(*gpu); !checked) return checked.error();
    }
    meters.push_back(std::make_unique<NvmlMeter>(nvml, *gpu, clock, options));
  }
  if (meters.size() == 1) return std::move(meters.front());
  return std::unique_ptr<Meter>(std::make_unique<MultiGpuMeter>(std::move(meters)));
}

}  // namespace ecocompute::meter
