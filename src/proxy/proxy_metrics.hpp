// ProxyMetrics: the proxy's Prometheus text exposition (/metrics): the ledger's energy accounts, and
// per model the settled requests' J per request and J per output token histograms.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "proxy/energy_ledger.hpp"

namespace ecocompute::proxy {

/// A Prometheus histogram: cumulative counts at each upper bound, and the sum.
struct Histogram {
  explicit Histogram(std::vector<double> bounds) : upper_bounds(std::move(bounds)), counts(upper_bounds.size(), 0) {}
  void observe(double value);
  std::vector<double> upper_bounds;
  std::vector<std::uint64_t> counts;  ///< per bucket, not cumulative (+Inf is `count`)
  std::uint64_t count = 0;
  double sum = 0.0;
};

/// Thread-safe.
class ProxyMetrics {
 public:
  /// Records a request whose energy is final (the ledger's settled callback).
  void record_settled(const SettledRequest& request);
  /// Counts an answer by model and HTTP status class ("2xx", "5xx", "upstream_error").
  void count_answer(const std::string& model, const std::string& outcome);
  /// Returns the exposition text (version 0.0.4) with `totals` as the energy accounts.
  [[nodiscard]] std::string render(const LedgerTotals& totals) const;

  /// Upper bounds of the J-per-request and J-per-output-token histograms.
  static std::vector<double> request_bounds();
  static std::vector<double> output_token_bounds();

 private:
  struct ModelSeries {
    Histogram request_joules{request_bounds()};
    Histogram output_token_joules{output_token_bounds()};
    double prompt_tokens = 0.0;
    double completion_tokens = 0.0;
  };
  mutable std::mutex mutex_;
  std::map<std::string, ModelSeries> models_;
  std::map<std::pair<std::string, std::string>, std::uint64_t> answers_;
};

/// Escapes a label value for the exposition format (backslash, quote, newline).
std::string escape_label(const std::string& value);

}  // namespace ecocompute::proxy
