// Selftest: idle without and with a context, steady load, pulse trains at four phases, read cost.
#include "meter/selftest.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <thread>

#include <fmt/format.h>

#include "meter/gpu_selection.hpp"
#include "meter/load_generator.hpp"
#include "meter/nvml_meter.hpp"
#include "meter/open_meter.hpp"
#include "meter/power_trace.hpp"
#include "util/log.hpp"

namespace ecocompute::meter {
namespace {

using steady_clock = std::chrono::steady_clock;

void sleep_for(Seconds s) { std::this_thread::sleep_for(std::chrono::duration<double>(s.value)); }

void note_window(SelftestReport& report, const Measurement& m) {
  if (!m.is_valid()) report.problems.push_back(fmt::format("window '{}': {}: {}", m.label, to_string(m.status), m.invalid_reason));
}

Result<Measurement> idle_window(NvmlMeter& meter, const std::string& label, Seconds duration) {
  Window w = meter.begin(label);
  sleep_for(duration);
  return meter.end(std::move(w));
}

// Pulse k of a train starts at origin + (k + phase) × period and keeps the GPU busy for duty × period.
Result<void> pulse_train(LoadGenerator& load, steady_clock::time_point origin, Seconds period, double duty,
                         double phase, steady_clock::time_point until) {
  const auto period_d = std::chrono::duration_cast<steady_clock::duration>(std::chrono::duration<double>(period.value));
  for (long k = 0;; ++k) {
    const auto start = origin + std::chrono::duration_cast<steady_clock::duration>(period_d * (static_cast<double>(k) + phase));
    if (start + period_d > until) return {};
    if (start < steady_clock::now()) continue;
    std::this_thread::sleep_until(start);
    if (auto r = load.busy_for(period * duty); !r) return r;
  }
}

}  // namespace

std::optional<InstantFieldVerdict> classify_instant_field(const std::vector<PhaseResult>& phases, double threshold_pct) {
  std::vector<double> ratios;
  for (const PhaseResult& p : phases) {
    if (p.counter_power.value > 0.0 && p.instant_field_reads > 0) ratios.push_back(p.instant_field_mean / p.counter_power * 100.0);
  }
  if (ratios.size() < 2) return std::nullopt;
  const auto [lo, hi] = std::minmax_element(ratios.begin(), ratios.end());
  return InstantFieldVerdict{*hi - *lo > threshold_pct, *lo, *hi};
}

std::optional<ReadCost> summarize_read_cost(std::string function, const std::vector<double>& read_times_s) {
  auto med = median(read_times_s);
  auto p99 = quantile(read_times_s, 0.99);
  if (!med || !p99) return std::nullopt;
  return ReadCost{std::move(function), Seconds{*med}, Seconds{*p99}, read_times_s.size()};
}

Result<SelftestReport> run_selftest(const SelftestOptions& options) {
  if (!LoadGenerator::compiled_in()) {
    return unexpected(ErrorCode::unavailable, "selftest needs a CUDA build (configure with -DECOCOMPUTE_CUDA=ON); "
                                              "nothing was measured");
  }
  auto spec = parse_gpu_spec(options.gpu);
  if (!spec) return spec.error();
  auto nvml = NvmlLibrary::open(options.nvml_library);
  if (!nvml) return nvml.error();
  auto gpu = select_gpu(**nvml, *spec);
  if (!gpu) return unexpected(Error{ErrorCode::unavailable, "no GPU to test", gpu.error()});
  if (auto others = other_compute_processes(**nvml, *gpu); others && !others->empty() && !options.allow_shared) {
    return unexpected(ErrorCode::unavailable, fmt::format("GPU {} is used by {} other compute process(es); stop them "
                                                          "or pass --allow-shared", gpu->uuid, others->size()));
  }
  if (auto energy = (*nvml)->total_energy_mj(gpu->handle); !energy) {
    return unexpected(Error{ErrorCode::unavailable, "the GPU has no readable energy counter", energy.error()});
  }

  SelftestReport report;
  report.gpu = gpu->name + " " + gpu->uuid;
  report.driver = (*nvml)->driver_version().value_or(std::string("unknown"));
  NvmlMeter meter(*nvml, *gpu);

  log::info("selftest on {}: idle without a CUDA context ({:.0f} s)", report.gpu, options.idle.value);
  sleep_for(Seconds{1.0});  // the sampler sees a few counter updates before the first window
  auto idle0 = idle_window(meter, "idle_without_context", options.idle);
  if (!idle0) return idle0.error();
  note_window(report, *idle0);
  report.idle_without_context = *idle0;

  auto load = LoadGenerator::open(gpu->uuid);
  if (!load) return load.error();
  log::info("idle with a CUDA context open ({:.0f} s)", options.idle.value);
  sleep_for(Seconds{2.0});
  auto idle1 = idle_window(meter, "idle_with_context", options.idle);
  if (!idle1) return idle1.error();
  note_window(report, *idle1);
  report.idle_with_context = *idle1;

  log::info("steady load ({:.0f} s)", options.steady.value);
  if (auto warm = (*load)->busy_for(Seconds{2.0}); !warm) return warm.error();
  {
    Window w = meter.begin("steady_load");
    auto busy = (*load)->busy_for(options.steady);
    auto m = meter.end(std::move(w));
    if (!busy) return busy.error();
    if (!m) return m.error();
    note_window(report, *m);
    report.steady = *m;
  }

  // Pulse trains share one time origin, so the four phases are shifted against the same (unknown)
  // grid on which the driver updates its power fields. A reader thread polls field 186 meanwhile.
  const auto origin = steady_clock::now() + std::chrono::milliseconds(200);
  for (double phase : {0.0, 0.25, 0.5, 0.75}) {
    log::info("pulse train: period {:.3f} s, duty {:.0f} %, phase {:.2f} ({:.0f} s)", options.pulse_period.value,
              options.pulse_duty * 100.0, phase, options.pulse_window.value);
    std::atomic<bool> stop{false};
    double sum_mw = 0.0;
    std::size_t reads = 0;
    std::thread reader([&] {
      while (!stop.load()) {
        if (auto v = (*nvml)->field_value(gpu->handle, nvml::field_power_instant)) {
          sum_mw += *v;
          ++reads;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
      }
    });
    Window w = meter.begin(fmt::format("pulse_phase_{:.2f}", phase));
    const auto until = steady_clock::now() + std::chrono::duration_cast<steady_clock::duration>(
                                                 std::chrono::duration<double>(options.pulse_window.value));
    auto pulses = pulse_train(**load, origin, options.pulse_period, options.pulse_duty, phase, until);
    auto m = meter.end(std::move(w));
    stop = true;
    reader.join();
    if (!pulses) return pulses.error();
    if (!m) return m.error();
    note_window(report, *m);
    PhaseResult result;
    result.phase_fraction = phase;
    result.counter_power = m->average_power().value_or(Watts{0.0});
    result.instant_field_reads = reads;
    result.instant_field_mean = Watts{reads > 0 ? sum_mw / static_cast<double>(reads) / 1e3 : 0.0};
    result.window = *m;
    report.phases.push_back(result);
  }
  report.instant_field = classify_instant_field(report.phases);

  log::info("NVML read cost ({} reads per function)", options.read_cost_reads);
  auto time_reads = [&](const std::string& name, auto&& read) {
    std::vector<double> times;
    for (int i = 0; i < options.read_cost_reads; ++i) {
      const auto t0 = steady_clock::now();
      read();
      times.push_back(std::chrono::duration<double>(steady_clock::now() - t0).count());
    }
    if (auto cost = summarize_read_cost(name, times)) report.read_costs.push_back(*cost);
  };
  time_reads("nvmlDeviceGetTotalEnergyConsumption", [&] { (void)(*nvml)->total_energy_mj(gpu->handle); });
  time_reads("nvmlDeviceGetPowerUsage", [&] { (void)(*nvml)->power_usage_mw(gpu->handle); });
  time_reads("nvmlDeviceGetFieldValues(186)", [&] { (void)(*nvml)->field_value(gpu->handle, nvml::field_power_instant); });
  time_reads("nvmlDeviceGetSamples(total power)", [&] { (void)(*nvml)->power_samples(gpu->handle, 0); });

  const auto readings = meter.counter_readings();
  report.counter_update_period = meter.counter_update_period();
  report.counter_changes_seen = readings.empty() ? 0 : readings.size() - 1;
  report.trace_sample_spacing = median_sample_spacing(meter.trace());
  if (!report.counter_update_period) report.problems.push_back("the energy counter did not change twice: no update period");
  return report;
}

OrderedJson to_json(const Measurement& m) {
  auto opt = [](const auto& v) { return v ? OrderedJson(v->value) : OrderedJson(); };
  OrderedJson out;
  out["label"] = m.label;
  out["source"] = m.source;
  out["status"] = to_string(m.status);
  out["invalid_reason"] = m.invalid_reason;
  out["duration_s"] = m.duration.value;
  out["energy_j"] = opt(m.energy);
  out["edge_uncertainty_j"] = opt(m.edge_uncertainty);
  out["average_power_w"] = opt(m.average_power());
  out["counter_update_period_s"] = opt(m.counter_update_period);
  out["trace_energy_j"] = opt(m.trace_energy);
  out["trace_vs_counter_pct"] = m.trace_vs_counter_pct ? OrderedJson(*m.trace_vs_counter_pct) : OrderedJson();
  out["trace_samples"] = m.trace.size();
  out["achieved_sample_rate_hz"] = m.achieved_sample_rate_hz;
  out["dropped_reads"] = m.dropped_reads;
  auto telemetry = [&](const Telemetry& t) {
    OrderedJson j;
    j["temperature_c"] = t.temperature_c ? OrderedJson(*t.temperature_c) : OrderedJson();
    j["sm_clock_mhz"] = t.sm_clock_mhz ? OrderedJson(*t.sm_clock_mhz) : OrderedJson();
    j["memory_clock_mhz"] = t.memory_clock_mhz ? OrderedJson(*t.memory_clock_mhz) : OrderedJson();
    j["power_limit_w"] = opt(t.power_limit);
    j["power_average_1s_w"] = opt(t.power_average_1s);
    j["throttle_reasons"] = t.throttle_reason_names;
    j["pstate"] = t.pstate ? OrderedJson(*t.pstate) : OrderedJson();
    return j;
  };
  out["at_begin"] = telemetry(m.at_begin);
  out["at_end"] = telemetry(m.at_end);
  return out;
}

OrderedJson to_json(const SelftestReport& r) {
  auto opt_s = [](const std::optional<Seconds>& v) { return v ? OrderedJson(v->value) : OrderedJson(); };
  auto opt_m = [](const std::optional<Measurement>& m) { return m ? to_json(*m) : OrderedJson(); };
  OrderedJson out;
  out["gpu"] = r.gpu;
  out["nvidia_driver"] = r.driver;
  out["passed"] = r.passed();
  out["problems"] = r.problems;
  out["counter_update_period_s"] = opt_s(r.counter_update_period);
  out["counter_changes_seen"] = r.counter_changes_seen;
  out["trace_sample_spacing_s"] = opt_s(r.trace_sample_spacing);
  out["idle_without_context"] = opt_m(r.idle_without_context);
  out["idle_with_context"] = opt_m(r.idle_with_context);
  out["steady"] = opt_m(r.steady);
  OrderedJson phases = OrderedJson::array();
  for (const PhaseResult& p : r.phases) {
    phases.push_back({{"phase_fraction", p.phase_fraction}, {"counter_power_w", p.counter_power.value},
                      {"instant_field_mean_w", p.instant_field_mean.value}, {"instant_field_reads", p.instant_field_reads},
                      {"window", to_json(p.window)}});
  }
  out["pulse_phases"] = phases;
  if (r.instant_field) {
    out["instant_field"] = {{"part_time", r.instant_field->part_time}, {"min_ratio_pct", r.instant_field->min_ratio_pct},
                            {"max_ratio_pct", r.instant_field->max_ratio_pct}};
  } else {
    out["instant_field"] = nullptr;
  }
  OrderedJson costs = OrderedJson::array();
  for (const ReadCost& c : r.read_costs) {
    costs.push_back({{"function", c.function}, {"median_ms", c.median.value * 1e3}, {"p99_ms", c.p99.value * 1e3}, {"reads", c.reads}});
  }
  out["read_costs"] = costs;
  return out;
}

std::string to_markdown(const SelftestReport& r) {
  auto sec = [](const std::optional<Seconds>& s) { return s ? fmt::format("{:.1f} ms", s->value * 1e3) : std::string("not measured"); };
  auto watts = [](const std::optional<Measurement>& m) {
    if (!m) return std::string("not measured");
    if (!m->is_valid()) return fmt::format("invalid ({}: {})", to_string(m->status), m->invalid_reason);
    const auto p = m->average_power();
    return p ? fmt::format("{:.1f} W over {:.1f} s", p->value, m->duration.value) : std::string("no energy");
  };
  std::string md = fmt::format("# Meter selftest: {}\n\nDriver {}. Verdict: **{}**.\n\n", r.gpu, r.driver,
                               r.passed() ? "pass" : "FAIL");
  for (const std::string& p : r.problems) md += fmt::format("- problem: {}\n", p);
  md += "\n| quantity | value |\n|---|---|\n";
  md += fmt::format("| counter update period (median of {} changes) | {} |\n", r.counter_changes_seen, sec(r.counter_update_period));
  md += fmt::format("| power-trace sample spacing (median) | {} |\n", sec(r.trace_sample_spacing));
  md += fmt::format("| idle without CUDA context | {} |\n", watts(r.idle_without_context));
  md += fmt::format("| idle with CUDA context | {} |\n", watts(r.idle_with_context));
  md += fmt::format("| steady load | {} |\n", watts(r.steady));
  if (r.steady && r.steady->energy) {
    md += fmt::format("| steady: counter energy ± edge uncertainty | {:.1f} J ± {} |\n", r.steady->energy->value,
                      r.steady->edge_uncertainty ? fmt::format("{:.1f} J", r.steady->edge_uncertainty->value) : "n/a");
    md += fmt::format("| steady: trace energy | {} |\n",
                      r.steady->trace_energy ? fmt::format("{:.1f} J", r.steady->trace_energy->value) : "not available");
    md += fmt::format("| steady: trace vs counter (goal ≤ 1 %) | {} |\n",
                      r.steady->trace_vs_counter_pct ? fmt::format("{:+.2f} %", *r.steady->trace_vs_counter_pct) : "n/a");
    md += fmt::format("| steady: achieved trace sample rate | {:.1f} Hz |\n", r.steady->achieved_sample_rate_hz);
  }
  md += "\n## Pulse trains: instant field (186) vs counter\n\n| phase | counter W | mean field 186 W | reads | ratio |\n|---|---|---|---|---|\n";
  for (const PhaseResult& p : r.phases) {
    md += fmt::format("| {:.2f} | {:.1f} | {:.1f} | {} | {:.1f} % |\n", p.phase_fraction, p.counter_power.value,
                      p.instant_field_mean.value, p.instant_field_reads,
                      p.counter_power.value > 0 ? p.instant_field_mean / p.counter_power * 100.0 : 0.0);
  }
  if (r.instant_field) {
    md += fmt::format("\nInstant field: **{}** (ratio to counter {:.1f} – {:.1f} % across phases).\n",
                      r.instant_field->part_time ? "part-time (phase-dependent); never integrate it" : "follows the counter",
                      r.instant_field->min_ratio_pct, r.instant_field->max_ratio_pct);
  }
  md += "\n## NVML read cost\n\n| function | median | p99 | reads |\n|---|---|---|---|\n";
  for (const ReadCost& c : r.read_costs) {
    md += fmt::format("| {} | {:.3f} ms | {:.3f} ms | {} |\n", c.function, c.median.value * 1e3, c.p99.value * 1e3, c.reads);
  }
  return md;
}

}  // namespace ecocompute::meter
