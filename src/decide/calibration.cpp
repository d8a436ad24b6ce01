// Calibration folds (see calibration.hpp).
#include "decide/calibration.hpp"

#include <algorithm>
#include <cmath>
#include <set>

#include <fmt/format.h>

#include "util/statistics.hpp"

namespace ecocompute::decide {
namespace {

constexpr double kNominal = 0.95;
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

// The cell's own 95 % measurement half-width, ΔE points: a new measurement carries it too.
double noise_pct(const Cell& held_out) { return kZ95 * std::sqrt(held_out.within_var) * (100 + delta_pct_of(held_out.value)); }

// Whether the measured ΔE of a held-out cell lies in the answer's interval, each side widened in
// quadrature by the cell's own 95 % measurement half-width.
bool covers(const HeldOutAnswer& a, const Cell& held_out) {
  const double truth = delta_pct_of(held_out.value);
  const double noise = noise_pct(held_out);
  const double low = a.delta_pct - std::hypot(a.delta_pct - a.low_pct, noise);
  const double high = a.delta_pct + std::hypot(a.high_pct - a.delta_pct, noise);
  return truth >= low && truth <= high;
}

// The answer's interval on the model's log scale, where it is symmetric: its mean and half-width.
std::pair<double, double> log_interval(const HeldOutAnswer& a) {
  const double low = std::log1p(a.low_pct / 100), high = std::log1p(a.high_pct / 100);
  return {std::log1p(a.delta_pct / 100), (high - low) / 2};
}

double width_scaled(const HeldOutAnswer& a, double factor) {
  const auto [mean, half] = log_interval(a);
  return 100 * (std::exp(mean + factor * half) - std::exp(mean - factor * half));
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
    const auto [mean, half] = log_interval(*answer);
    out.cells.push_back({.group = group,
                         .session = cell.session_id,
                         .place = cell.place,
                         .measured_pct = delta_pct_of(cell.value),
                         .answer = *answer,
                         .covered = inside,
                         .score = coverage_score(mean, half, delta_pct_of(cell.value), noise_pct(cell))});
  }
  ++out.folds;
  return {};
}

using ClassKey = std::pair<data::Basis, Extent>;
using CellId = std::pair<std::string, std::string>;  // session, place

CellId id_of(const HeldOutCell& c) {
  return {c.session, fmt::format("{}|{}|{}|{}|{:.9g}|{}|{}", c.place.engine, c.place.precision, c.place.arch, c.place.gpu, c.place.params_b,
                                 c.place.batch, c.place.context)};
}

// The scores of every held-out answer, by class, but those of `left_out` cells.
std::map<ClassKey, std::vector<ClassScore>> scores_without(const std::map<ClassKey, std::vector<std::pair<CellId, ClassScore>>>& by_class,
                                                           const std::set<CellId>& left_out) {
  std::map<ClassKey, std::vector<ClassScore>> out;
  for (const auto& [key, list] : by_class) {
    for (const auto& [id, score] : list) {
      if (!left_out.contains(id)) out[key].push_back(score);
    }
  }
  return out;
}

// Scales each held-out answer by the factor an answer gets (IntervalCalibration::answer_factor) from
// the classes computed on every other held-out answer but those of the cells its own fold held out
// (in any mode): the answer then comes from a factor that never saw the measurements it is judged
// against.
void calibrate_out_of_fold(CalibrationReport& report, double nominal) {
  std::map<ClassKey, std::vector<std::pair<CellId, ClassScore>>> by_class;
  for (const ModeCalibration& m : report.modes) {
    for (const HeldOutCell& c : m.cells) {
      by_class[{c.answer.basis, c.answer.extent}].push_back({id_of(c), ClassScore{c.score, c.answer.size_place.distance}});
    }
  }
  for (ModeCalibration& m : report.modes) {
    std::map<std::string, std::set<CellId>> fold_cells;
    for (const HeldOutCell& c : m.cells) fold_cells[c.group].insert(id_of(c));
    std::map<std::string, IntervalCalibration> of_fold;
    for (HeldOutCell& c : m.cells) {
      auto [it, added] = of_fold.try_emplace(c.group);
      if (added) it->second.classes = class_factors(scores_without(by_class, fold_cells[c.group]), nominal);
      const double factor = it->second.answer_factor(c.answer.basis, c.answer.extent, c.answer.size_place).factor;
      c.calibrated_covered = c.score <= factor;
      c.calibrated_width = width_scaled(c.answer, factor);
      for (BasisCoverage* b : {&m.calibrated[c.answer.basis], &report.all_calibrated[c.answer.basis]}) {
        ++b->n;
        b->covered += c.calibrated_covered ? 1 : 0;
        b->widths.push_back(c.calibrated_width);
      }
    }
  }
  report.factors = class_factors(scores_without(by_class, {}), nominal);
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
                        {"basis", data::to_string(c.answer.basis)}, {"extent", to_string(c.answer.extent)},
                        {"log_size_distance", c.answer.size_place.distance}, {"covered", c.covered},
                        {"score", std::isfinite(c.score) ? Json(c.score) : Json(nullptr)}, {"calibrated_covered", c.calibrated_covered},
                        {"calibrated_width_pct", c.calibrated_width}});
  }
  return list;
}

Json bases_json(const std::map<data::Basis, BasisCoverage>& by_basis) {
  Json j = Json::object();
  for (const auto& [basis, b] : by_basis) j[std::string(data::to_string(basis))] = coverage_json(b);
  return j;
}

std::string bases_text(const std::map<data::Basis, BasisCoverage>& by_basis, const std::map<data::Basis, BasisCoverage>& calibrated) {
  std::string out;
  for (data::Basis basis : kBases) {
    const auto it = by_basis.find(basis);
    if (it == by_basis.end()) continue;
    const BasisCoverage& b = it->second;
    const auto c = calibrated.find(basis);
    out += fmt::format("  {:<13} n {:>4}   model: coverage {:>5.1f} %, median width {:>7.1f} pts", data::to_string(basis), b.n,
                       100 * b.coverage(), b.median_width());
    if (c != calibrated.end()) {
      out += fmt::format("   calibrated: {:>5.1f} %, {:>7.1f} pts", 100 * c->second.coverage(), c->second.median_width());
    }
    out += b.n >= 20 ? "\n" : "   (fewer than 20 cells)\n";
  }
  return out;
}

std::string factors_text(const std::vector<ClassFactor>& factors) {
  std::string out = "factor of the model's half-width per class (basis, what the asked place lacks), from every held-out answer:\n";
  for (const ClassFactor& f : factors) {
    out += fmt::format("  {:<13} {:<21} n {:>4}   {}{}\n", data::to_string(f.basis), to_string(f.extent), f.n,
                       f.factor ? fmt::format("× {:.3f}", *f.factor) : std::string("none (fewer than 19 answers): the model's own"),
                       f.nearest_size_distance ? fmt::format(", nearest held-out size {:.3f} in ln N from a measured one", *f.nearest_size_distance)
                                               : std::string());
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
  calibrate_out_of_fold(report, kNominal);
  return report;
}

void to_json(Json& j, const CalibrationReport& report) {
  Json modes = Json::object();
  for (const ModeCalibration& m : report.modes) {
    modes[std::string(to_string(m.mode))] = Json{{"folds", m.folds},
                                                 {"refused", m.refused},
                                                 {"bases", bases_json(m.by_basis)},
                                                 {"calibrated_bases", bases_json(m.calibrated)},
                                                 {"cells", cells_json(m.cells)}};
  }
  IntervalCalibration factors;
  factors.classes = report.factors;
  j = Json{{"nominal", kNominal},
           {"modes", std::move(modes)},
           {"bases", bases_json(report.all)},
           {"calibrated_bases", bases_json(report.all_calibrated)},
           {"factors", Json(factors)["classes"]}};
}

std::string to_text(const CalibrationReport& report) {
  std::string out =
      "coverage of the nominal 95 % interval of ΔE, held-out cells by basis of the answer (model: its own interval; calibrated: "
      "scaled by its class's factor, computed without the cells of its fold):\n";
  for (const ModeCalibration& m : report.modes) {
    out += fmt::format("leave one {} out ({} folds, {} held-out cells refused):\n", to_string(m.mode), m.folds, m.refused);
    out += bases_text(m.by_basis, m.calibrated);
  }
  out += "all hold-outs together:\n" + bases_text(report.all, report.all_calibrated);
  out += factors_text(report.factors);
  return out;
}

}  // namespace ecocompute::decide
