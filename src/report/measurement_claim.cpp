// The measurement rule: basis, source, notes, and (for the curves) a GPU.
#include "report/measurement_claim.hpp"

#include <algorithm>
#include <array>
#include <cctype>

#include <fmt/format.h>

namespace ecocompute::report {
namespace {

constexpr std::string_view kGpuCounter = "direct-nvml";

// Words the published examples use to mark hand-written values ("ILLUSTRATIVE synthetic values …
// Numbers are not from a real run"). "synthetic" alone is not one: our synthetic-weight models are
// measured for real, and only their quality is meaningless.
constexpr std::array<std::string_view, 4> kNotRealMarkers{"illustrative", "synthetic values", "not a real measurement",
                                                          "not from a real run"};

std::string lower(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::tolower(c); });
  return out;
}

std::string shortened(const std::string& text) {
  constexpr std::size_t kMax = 80;
  return text.size() <= kMax ? text : text.substr(0, kMax) + "…";
}

// The first note that marks the values as not measured, as "<field> says \"…\"".
std::optional<std::string> not_real_marker(const EnergyReport& r) {
  const std::pair<const char*, const std::optional<std::string>*> notes[] = {
      {"measurement_source", &r.measurement_source},
      {"results.note", &r.results.note},
      {"quality.note", r.quality ? &r.quality->note : nullptr},
  };
  for (const auto& [field, text] : notes) {
    if (text == nullptr || !*text) continue;
    const std::string folded = lower(**text);
    for (std::string_view marker : kNotRealMarkers) {
      if (folded.find(marker) != std::string::npos) return fmt::format("{} says \"{}\"", field, shortened(**text));
    }
  }
  return std::nullopt;
}

bool is_cpu_run(const EnergyReport& r) { return lower(r.system_under_test.gpu_arch) == "none"; }

}  // namespace

bool reads_energy(std::string_view source) noexcept { return source.starts_with(kGpuCounter) || source == "rapl"; }

std::optional<std::string> why_not_measured(const EnergyReport& r) {
  if (r.results.basis != ResultBasis::measured) {
    return fmt::format("results.basis is \"{}\": its figures are not measured", to_string(r.results.basis));
  }
  if (auto marker = not_real_marker(r)) return "the report marks its values as not a real measurement: " + *marker;
  if (!r.measurement_source) return "measurement_source is absent: the report does not say what read its energy";
  if (*r.measurement_source == "none") return "measurement_source is \"none\": no energy counter read its windows";
  if (!reads_energy(*r.measurement_source)) {
    return fmt::format("measurement_source \"{}\" is not an energy counter (direct-nvml or rapl)",
                       shortened(*r.measurement_source));
  }
  return std::nullopt;
}

std::optional<std::string> why_not_gpu_measured(const EnergyReport& r) {
  if (is_cpu_run(r)) {
    std::string reason = "a CPU run (system_under_test.gpu_arch \"none\"): not a GPU energy measurement";
    if (auto also = why_not_measured(r)) reason += "; also, " + *also;
    return reason;
  }
  if (auto why = why_not_measured(r)) return why;
  if (!r.measurement_source->starts_with(kGpuCounter)) {
    return fmt::format("measurement_source \"{}\" read the CPU package, not the GPU", *r.measurement_source);
  }
  return std::nullopt;
}

}  // namespace ecocompute::report
