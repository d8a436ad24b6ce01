// A strict reader of the Prometheus text exposition format (0.0.4), enough for tests: each line is
// blank, a `# HELP`/`# TYPE` comment, or `name{label="value",…} number`.
#pragma once

#include <cstdlib>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

namespace ecocompute::testing {

struct PrometheusText {
  std::map<std::string, double> samples;  ///< "name{labels}" (as written) → value
  std::vector<std::string> problems;      ///< lines that do not parse, with their number

  /// Sums every sample of `name` whose label text contains `label_part` (empty: every sample).
  [[nodiscard]] double sum(const std::string& name, const std::string& label_part = "") const {
    double total = 0.0;
    for (const auto& [series, value] : samples) {
      const std::string series_name = series.substr(0, series.find('{'));
      if (series_name == name && series.find(label_part) != std::string::npos) total += value;
    }
    return total;
  }
};

inline PrometheusText parse_prometheus_text(const std::string& text) {
  static const std::regex sample(R"(^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{([a-zA-Z_][a-zA-Z0-9_]*="(\\.|[^"\\])*",?)*\})? ([-+0-9.eE]+|\+Inf|-Inf|NaN)$)");
  static const std::regex comment(R"(^# (HELP|TYPE) [a-zA-Z_:][a-zA-Z0-9_:]* .+$)");
  PrometheusText out;
  std::istringstream lines(text);
  std::string line;
  int number = 0;
  while (std::getline(lines, line)) {
    ++number;
    if (line.empty()) continue;
    std::smatch match;
    if (std::regex_match(line, comment)) continue;
    if (!std::regex_match(line, match, sample)) {
      out.problems.push_back(std::to_string(number) + ": " + line);
      continue;
    }
    const std::string value = match[5].str();
    out.samples[line.substr(0, line.rfind(' '))] = std::strtod(value.c_str(), nullptr);
  }
  return out;
}

}  // namespace ecocompute::testing
