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
  std::string out =
      "window,duration,gpu_power,cpu_power,gpu_energy,cpu_energy,energy_consumed,energy_uncertainty_kwh,tokens,"
      "joules_per_token,tokens_per_kwh,source,device,status\n";
  for (const MeteredWindow& w : run.windows) {
    const meter::Measurement* m = w.measurement ? &*w.measurement : nullptr;
    const bool measured = w.failure.empty() && m != nullptr && m->energy.has_value();
    const std::optional<double> kwh = measured ? std::optional(m->energy->value / kJoulesPerKwh) : std::nullopt;
    const std::optional<double> watts =
        measured && m->average_power() ? std::optional(m->average_power()->value) : std::nullopt;
    const std::optional<double> jpt = w.joules_per_token();
    out += fmt::format(
        "{},{},{},{},{},{},{},{},{},{},{},{},{},{}\n", field(w.label),
        number(m != nullptr ? std::optional(m->duration.value) : std::nullopt, "{:.3f}"),
        number(gpu ? watts : std::nullopt, "{:.2f}"), number(gpu ? std::nullopt : watts, "{:.2f}"),
        number(gpu ? kwh : std::nullopt, "{:.9f}"), number(gpu ? std::nullopt : kwh, "{:.9f}"), number(kwh, "{:.9f}"),
        number(measured && m->edge_uncertainty ? std::optional(m->edge_uncertainty->value / kJoulesPerKwh) : std::nullopt,
               "{:.9f}"),
        w.tokens ? std::to_string(*w.tokens) : std::string(), number(jpt, "{:.6f}"),
        number(jpt && *jpt > 0 ? std::optional(kJoulesPerKwh / *jpt) : std::nullopt, "{:.0f}"), field(run.source),
        field(run.device), field(measured ? std::string("measured") : w.failure.empty() ? "no energy" : w.failure));
  }
  return out;
}

}  // namespace ecocompute::experiment
