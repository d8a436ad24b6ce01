// `meter --csv`: one row per window, with the column names CodeCarbon's emissions.csv uses for the
// figures both tools have (duration in s, power in W, energy in kWh), so the same notebooks read both.
#include <fmt/format.h>

#include "experiment/metered_command.hpp"

namespace ecocompute::experiment {
namespace {

constexpr double kJoulesPerKwh = 3.6e6;

std::string number(const std::optional<double>& v, const char* format) {
  return v ? fmt::format(fmt::runtime(format), *v) : std::string();
}

// A CSV field: quoted when it holds a comma, a quote or a line break.
std::string field(const std::string& text) {
  if (text.find_first_of(",\"\n\r") == std::string::npos) return text;
  std::string out = "\"";
  for (char c : text) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

}  // namespace

std::string format_metered_csv(const MeteredRun& run) {
  const bool gpu = run.source.starts_with("nvml");
  // ram_power and ram_energy (CodeCarbon's names) come last, so the columns before keep their places.
  std::string out =
      "window,duration,gpu_power,cpu_power,gpu_energy,cpu_energy,energy_consumed,energy_uncertainty_kwh,tokens,"
      "joules_per_token,tokens_per_kwh,source,device,status,ram_power,ram_energy\n";
  for (const MeteredWindow& w : run.windows) {
    const meter::Measurement* m = w.measurement ? &*w.measurement : nullptr;
    const bool measured = w.failure.empty() && m != nullptr && m->energy.has_value();
    // Joules of the GPU (or RAPL-only) reading, and of the host's CPU and DRAM read beside a GPU counter.
    std::optional<double> main_j, cpu_j, ram_j;
    if (measured) {
      main_j = m->energy->value;
      if (!gpu) cpu_j = main_j;  // a RAPL-only run's energy is the CPU's
      if (gpu && m->cpu_energy) cpu_j = m->cpu_energy->value;
      if (m->dram_energy) ram_j = m->dram_energy->value;
    }
    const auto kwh_of = [](std::optional<double> j) { return j ? std::optional(*j / kJoulesPerKwh) : std::nullopt; };
    const auto watts_of = [&](std::optional<double> j) {
      return j && m->duration.value > 0 ? std::optional(*j / m->duration.value) : std::nullopt;
    };
    const std::optional<double> kwh = kwh_of(main_j);
    const std::optional<double> consumed =
        main_j ? kwh_of(*main_j + (gpu ? cpu_j.value_or(0.0) : 0.0) + ram_j.value_or(0.0)) : std::nullopt;
    const std::optional<double> jpt = w.joules_per_token();
    out += fmt::format(
        "{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}\n", field(w.label),
        number(m != nullptr ? std::optional(m->duration.value) : std::nullopt, "{:.3f}"),
        number(gpu ? watts_of(main_j) : std::nullopt, "{:.2f}"), number(watts_of(cpu_j), "{:.2f}"),
        number(gpu ? kwh : std::nullopt, "{:.9f}"), number(kwh_of(cpu_j), "{:.9f}"), number(consumed, "{:.9f}"),
        number(measured && m->edge_uncertainty ? std::optional(m->edge_uncertainty->value / kJoulesPerKwh) : std::nullopt,
               "{:.9f}"),
        w.tokens ? std::to_string(*w.tokens) : std::string(), number(jpt, "{:.6f}"),
        number(jpt && *jpt > 0 ? std::optional(kJoulesPerKwh / *jpt) : std::nullopt, "{:.0f}"), field(run.source),
        field(run.device), field(measured ? std::string("measured") : w.failure.empty() ? "no energy" : w.failure),
        number(watts_of(ram_j), "{:.2f}"), number(kwh_of(ram_j), "{:.9f}"));
  }
  return out;
}

}  // namespace ecocompute::experiment
