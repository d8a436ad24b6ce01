// Calibration folds (see calibration.hpp).
#include "decide/calibration.hpp"

#include <algorithm>
#include <cmath>
#include <set>

#include <fmt/format.h>

#include "util/statistics.hpp"

namespace ecocompute::decide {
namespace {

constexpr std::array<data::Basis, 5> kBases{data::Basis::measured, data::Basis::interpolated, data::Basis::extrapolated,
                                            data::Basis::borrowed, data::Basis::modelled};

// The group a row belongs to in a mode; empty when the mode never holds it out (batch 1 in the
// batch mode).
std::string group_of(const data::DataRow& r, HoldOut mode) {
  switch (mode) {
    case HoldOut::session: return r.session_id;
    case HoldOut::size: return fmt::format("{}|{}|{:.9g}", r.gpu_arch, r.engine, r.params_b);
    case HoldOut::batch: return r.batch_size > 1 ? fmt::format("{}|{}|{}", r.gpu_arch, r.engine, r.batch_size) : std::string();
  }
  return {};
}

// Whether the measured ΔE of a held-out cell lies in the answer's interval, each side widened in
// quadrature by the cell's own 95 % measurement half-width.
bool covers(const HeldOutAnswer& a, const Cell& held_out) {
  const double truth = delta_pct_of(held_out.value);
  const double noise = kZ95 * std::sqrt(held_out.within_var) * (100 + truth);
  const double low = a.delta_pct - std::hypot(a.delta_pct - a.low_pct, noise);
  const double high = a.delta_pct + std::hypot(a.high_pct - a.delta_pct, noise);
  return truth >= low && truth <= high;
}

Result<void> run_fold(const std::vector<data::DataRow>& rows, const std::vector<data::Session>& sessions,
                      const PredictorFactory& factory, HoldOut mode, const std::string& group, ModeCalibration& out) {
  std::vector<data::DataRow> training, held;
  for (const data::DataRow& r : rows) (group_of(r, mode) == group ? held : training).push_back(r);
  auto predictor = factory(training, sessions);
  if (!predictor) return predictor.error();
  for (const Cell& cell : ratio_cells(held)) {
    if (mode == HoldOut::batch && cell.place.batch <= 1) continue;
    const auto answer = (*predictor)(cell);
    if (!answer || answer->basis == data::Basis::unavailable) {
      ++out.refused;
      continue;
    }
    BasisCoverage& b = out.by_basis[answer->basis];
    const bool inside = covers(*answer, cell);
    ++b.n;
    b.covered += inside ? 1 : 0;
    b.widths.push_back(answer->high_pct - answer->low_pct);
    out.cells.push_back({group, cell.place, delta_pct_of(cell.value), *answer, inside});
  }
  ++out.folds;
  return {};
}

Json coverage_json(const BasisCoverage& b) {
  return Json{{"n", b.n}, {"covered", b.covered}, {"coverage", b.coverage()}, {"median_width_pct", b.median_width()}};
}

Json cells_json(const std::vector<HeldOutCell>& cells) {
  Json list = Json::array();
  for (const HeldOutCell& c : cells) {
    list.push_back(Json{{"held_out", c.group}, {"engine", c.place.engine}, {"precision", c.place.precision},
                        {"gpu", c.place.gpu}, {"params_b", c.place.params_b}, {"batch", c.place.batch}, {"context", c.place.context},
                        {"measured_pct", c.measured_pct}, {"delta_pct", c.answer.delta_pct},
                        {"interval", Json::array({c.answer.low_pct, c.answer.high_pct})},
                        {"basis", data::to_string(c.answer.basis)}, {"covered", c.covered}});
  }
  return list;
}

Json bases_json(const std::map<data::Basis, BasisCoverage>& by_basis) {
  Json j = Json::object();
  for (const auto& [basis, b] : by_basis) j[std::string(data::to_string(basis))] = coverage_json(b);
  return j;
}

std::string bases_text(const std::map<data::Basis, BasisCoverage>& by_basis) {
  std::string out;
  for (data::Basis basis : kBases) {
    const auto it = by_basis.find(basis);
    if (it == by_basis.end()) continue;
    const BasisCoverage& b = it->second;
    out += fmt::format("  {:<13} n {:>4}   coverage {:>5.1f} %   median width {:>7.1f} pts{}\n", data::to_string(basis), b.n,
                       100 * b.coverage(), b.median_width(), b.n >= 20 ? "" : "   (fewer than 20 cells)");
  }
  return out;
}

}  // namespace

std::string_view to_string(HoldOut mode) noexcept {
  switch (mode) {
    case HoldOut::session: return "session";
    case HoldOut::size: return "size";
    case HoldOut::batch: return "batch";
  }
  return "session";
}

Result<HoldOut> parse_hold_out(std::string_view text) {
  for (HoldOut m : {HoldOut::session, HoldOut::size, HoldOut::batch}) {
    if (to_string(m) == text) return m;
  }
  return unexpected(ErrorCode::invalid_argument, fmt::format("unknown hold-out '{}' (session, size or batch)", text));
}

double BasisCoverage::median_width() const {
  if (widths.empty()) return 0.0;
  std::vector<double> sorted = widths;
  std::sort(sorted.begin(), sorted.end());
  const std::size_t mid = sorted.size() / 2;
  return sorted.size() % 2 == 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

Result<CalibrationReport> calibrate(const std::vector<data::DataRow>& rows, const std::vector<data::Session>& sessions,
                                    const PredictorFactory& factory, const std::vector<HoldOut>& modes,
                                    std::size_t every) {
  CalibrationReport report;
  for (HoldOut mode : modes) {
    ModeCalibration m;
    m.mode = mode;
    std::set<std::string> groups;
    for (const data::DataRow& r : rows) {
      if (auto g = group_of(r, mode); !g.empty()) groups.insert(std::move(g));
    }
    std::size_t index = 0;
    for (const std::string& group : groups) {
      if (every > 1 && index++ % every != 0) continue;
      if (auto fold = run_fold(rows, sessions, factory, mode, group, m); !fold) return fold.error();
    }
    for (const auto& [basis, b] : m.by_basis) {
      BasisCoverage& all = report.all[basis];
      all.n += b.n;
      all.covered += b.covered;
      all.widths.insert(all.widths.end(), b.widths.begin(), b.widths.end());
    }
    report.modes.push_back(std::move(m));
  }
  return report;
}

void to_json(Json& j, const CalibrationReport& report) {
  Json modes = Json::object();
  for (const ModeCalibration& m : report.modes) {
    modes[std::string(to_string(m.mode))] =
        Json{{"folds", m.folds}, {"refused", m.refused}, {"bases", bases_json(m.by_basis)}, {"cells", cells_json(m.cells)}};
  }
  j = Json{{"nominal", 0.95}, {"modes", std::move(modes)}, {"bases", bases_json(report.all)}};
}

std::string to_text(const CalibrationReport& report) {
  std::string out = "coverage of the nominal 95 % interval of ΔE, held-out cells by basis of the answer:\n";
  for (const ModeCalibration& m : report.modes) {
    out += fmt::format("leave one {} out ({} folds, {} held-out cells refused):\n", to_string(m.mode), m.folds, m.refused);
    out += bases_text(m.by_basis);
  }
  out += "all hold-outs together:\n" + bases_text(report.all);
  return out;
}

}  // namespace ecocompute::decide
