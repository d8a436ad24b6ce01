// How FP16 energy per token falls with the batch (see batch_scaling.hpp for why and the rules).
#include "data/batch_scaling.hpp"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <map>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "data/batch_model.hpp"
#include "data/model_size.hpp"

namespace ecocompute::data {
namespace {

// A size with no sweep of its own may batch differently from the sizes that have one: the sweeps at
// 1.24 B and 8.03 B on the H200 agree within 4 % at batch 4 and 16, and the range widens by this factor
// on each side on top of their spread.
constexpr double kOtherSizeFactor = 1.25;

// One size's sweep: FP16 energy per token relative to its batch 1, by batch (batch 1 included, at 1).
struct Sweep {
  double params_b = 0;
  std::map<int, double> ratio;
};

// The FP16 baseline of each (size, batch) as the mean over sessions of each session's mean baseline,
// so a session that measured more formats does not weigh more.
std::vector<Sweep> measured_sweeps(const std::vector<DataRow>& rows, const std::string& arch, const std::string& engine) {
  struct Cell {
    double params_b;
    int batch;
    std::map<std::string, std::pair<double, int>> by_session;  // sum, count
  };
  std::vector<Cell> cells;
  for (const DataRow& r : rows) {
    if (r.basis != Basis::measured || r.gpu_arch != arch || r.engine != engine || r.fp16_energy_per_token_mj <= 0) continue;
    auto it = std::find_if(cells.begin(), cells.end(),
                           [&](const Cell& c) { return c.batch == r.batch_size && same_model_size(c.params_b, r.params_b); });
    if (it == cells.end()) it = cells.insert(cells.end(), Cell{r.params_b, r.batch_size, {}});
    auto& [sum, count] = it->by_session[r.session_id];
    sum += r.fp16_energy_per_token_mj;
    ++count;
  }
  const auto mean_of = [](const Cell& c) {
    double total = 0;
    for (const auto& [session, sc] : c.by_session) total += sc.first / sc.second;
    return total / static_cast<double>(c.by_session.size());
  };
  std::vector<Sweep> sweeps;
  for (const Cell& one : cells) {
    if (one.batch != 1) continue;
    Sweep s{one.params_b, {{1, 1.0}}};
    for (const Cell& c : cells) {
      if (c.batch > 1 && same_model_size(c.params_b, one.params_b)) s.ratio[c.batch] = mean_of(c) / mean_of(one);
    }
    if (s.ratio.size() > 1) sweeps.push_back(std::move(s));
  }
  return sweeps;
}

// The ratio at `batch` read off one size's sweep.
BatchScaling read_sweep(const Sweep& s, int batch) {
  BatchScaling out;
  const auto upper = s.ratio.lower_bound(batch);
  if (upper != s.ratio.end() && upper->first == batch) {
    out.value = out.low = out.high = upper->second;
    out.basis = Basis::measured;
    out.label = fmt::format("batch {} measured at {:g} B (× {:.3f} of batch 1)", batch, s.params_b, upper->second);
    return out;
  }
  if (upper != s.ratio.end()) {
    const auto lower = std::prev(upper);
    const double t = std::log(static_cast<double>(batch) / lower->first) / std::log(static_cast<double>(upper->first) / lower->first);
    out.value = std::exp(std::log(lower->second) + t * (std::log(upper->second) - std::log(lower->second)));
    out.low = std::min(lower->second, upper->second);
    out.high = std::max(lower->second, upper->second);
    out.basis = Basis::interpolated;
    out.label = fmt::format("batch {} at {:g} B: between measured batches {} (× {:.3f}) and {} (× {:.3f})", batch, s.params_b,
                            lower->first, lower->second, upper->first, upper->second);
    return out;
  }
  // Beyond the largest measured batch: energy per token cannot fall faster than 1/batch (throughput
  // grows at most with the batch while power does not drop), and is taken not to rise again.
  const auto last = std::prev(s.ratio.end());
  const auto before = std::prev(last);
  const double slope = std::clamp(-std::log(last->second / before->second) / std::log(static_cast<double>(last->first) / before->first), 0.0, 1.0);
  const double span = static_cast<double>(batch) / last->first;
  out.value = last->second * std::pow(span, -slope);
  out.low = last->second / span;
  out.high = last->second;
  out.basis = Basis::extrapolated;
  out.label = fmt::format("batch {} at {:g} B: beyond the largest measured batch {} (× {:.3f}), continuing its slope from batch {} "
                          "(energy ∝ batch^-{:.2f}); range from energy ∝ 1/batch to no further saving",
                          batch, s.params_b, last->first, last->second, before->first, slope);
  return out;
}

}  // namespace

BatchScaling batch_scaling(const std::vector<DataRow>& rows, const std::string& arch, const std::string& engine, double params_b,
                           int batch) {
  if (batch <= 1) return BatchScaling{1, 1, 1, Basis::measured, "batch 1", ""};
  const std::vector<Sweep> sweeps = measured_sweeps(rows, arch, engine);
  const auto here = std::find_if(sweeps.begin(), sweeps.end(), [&](const Sweep& s) { return same_model_size(s.params_b, params_b); });
  if (here != sweeps.end()) return read_sweep(*here, batch);
  if (!sweeps.empty()) {
    // Other sizes' sweeps: their mean ratio, and a range that holds every one of theirs.
    BatchScaling out;
    out.low = 1e300;
    out.high = 0;
    double log_sum = 0;
    std::vector<std::string> sizes;
    for (const Sweep& s : sweeps) {
      const BatchScaling at = read_sweep(s, batch);
      log_sum += std::log(at.value);
      out.low = std::min(out.low, at.low);
      out.high = std::max(out.high, at.high);
      sizes.push_back(fmt::format("{:g} B (× {:.3f}, {})", s.params_b, at.value, to_string(at.basis)));
    }
    out.value = std::exp(log_sum / static_cast<double>(sweeps.size()));
    out.low = std::max(out.low / kOtherSizeFactor, 1.0 / batch);
    out.high = std::min(out.high * kOtherSizeFactor, 1.0);
    out.basis = Basis::borrowed;
    out.label = fmt::format("batch {} not measured at {:g} B: the {} sweep{} of {} with {} at {}, range ×/÷ {:g} for another size",
                            batch, params_b, sweeps.size(), sweeps.size() == 1 ? "" : "s", arch, engine, fmt::join(sizes, ", "),
                            kOtherSizeFactor);
    return out;
  }
  const Amortization a = batch_amortization(batch);
  return BatchScaling{a.value, a.low, a.high, Basis::modelled,
                      fmt::format("batch {} not measured with {} on {}: × {:.3f} for the fixed per-token overhead a batch amortizes",
                                  batch, engine, arch, a.value),
                      batch_amortization_model()};
}

FigureBasis scaled_basis(const FigureBasis& basis, const BatchScaling& scaling, int batch) {
  const Basis floor = scaling.basis == Basis::measured ? Basis::interpolated : scaling.basis;
  FigureBasis out = basis.at_most(floor, fmt::format("FP16 at batch {} relative to batch 1: {}", batch, scaling.label));
  if (!scaling.model.empty()) out.model = scaling.model;
  return out;
}

}  // namespace ecocompute::data
