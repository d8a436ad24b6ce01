// Estimator: answers from a measured anchor, a curve of the same architecture, or (said so) another
// architecture's curve; the band grows with every step away from the evidence; never a silent
// extrapolation, never a borrowed or modelled figure labelled measured.
#include "data/estimator.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "data/batch_model.hpp"
#include "data/batch_scaling.hpp"
#include "data/gpu_spec.hpp"
#include "data/model_size.hpp"
#include "data/query_text.hpp"
#include "data/session_energy.hpp"
#include "report/throttled_trials.hpp"
#include "util/precision.hpp"
#include "util/statistics.hpp"

namespace ecocompute::data {
namespace {

// Allowances (standard uncertainties, percentage points) for answering from evidence of another kind:
// another architecture's curve (the published service's own allowance) and another GPU of the same
// architecture (half of it: same kernels and memory type, another card and board power).
constexpr double kBorrowArchSigma = 10.0;
constexpr double kBorrowGpuSigma = 5.0;

std::string signed_pct(double v) { return fmt::format("{:+.1f} %", v); }

// The checked question.
struct Question {
  double n = 0;
  std::string arch;
  std::optional<GpuSpec> gpu;  // when a GPU was named
  PrecisionInfo precision;
  std::string engine;
  int batch = 1;
  int context = defaults::context;
  bool allow_borrow = false;
  std::string model;
};

Result<Question> resolve(EstimateRequest r) {
  if (!r.q.empty()) {
    auto parsed = parse_query_text(r.q);
    if (!parsed) return parsed.error();
    const QueryText& t = *parsed;
    if (t.params_b) r.params_b = t.params_b;
    if (t.gpu) {
      r.gpu = *t.gpu;
      r.arch.clear();
    } else if (t.arch) {
      r.arch = *t.arch;
      r.gpu.clear();
    }
    if (t.precision) r.precision = *t.precision;
    if (t.batch) r.batch = *t.batch;
    if (t.context) r.context = *t.context;
  }
  if (!r.params_b && !r.model.empty()) {
    r.params_b = params_b_from_model_name(r.model);
    if (!r.params_b) {
      return unexpected(ErrorCode::invalid_argument, "cannot read a size from model name '" + r.model + "'; give params_b");
    }
  }
  if (!r.params_b) return unexpected(ErrorCode::invalid_argument, "params_b (model size in billions, or a model name with a size) is required");
  auto size = check_params_b(*r.params_b, "params_b");
  if (!size) return size.error();
  if (r.batch < 1) return unexpected(ErrorCode::invalid_argument, "batch must be ≥ 1");
  if (r.context < 1) return unexpected(ErrorCode::invalid_argument, "ctx must be ≥ 1");
  auto precision = parse_precision(r.precision);
  if (!precision) return precision.error();
  if (precision->is_baseline) {
    return unexpected(ErrorCode::invalid_argument,
                      "precision " + std::string(precision->name) + " is the baseline; ask about a quantized one");
  }
  Question q;
  q.n = *size;
  q.precision = *precision;
  q.batch = r.batch;
  q.context = r.context;
  q.allow_borrow = r.allow_borrow;
  q.model = r.model;
  if (!r.gpu.empty()) {
    auto gpu = find_gpu(r.gpu);
    if (!gpu) return gpu.error();
    q.gpu = *gpu;
    q.arch = gpu->arch;
  }
  if (!r.arch.empty()) {
    auto arch = parse_architecture(r.arch);
    if (!arch) return arch.error();
    if (q.gpu && *arch != q.arch) {
      return unexpected(ErrorCode::invalid_argument,
                        fmt::format("gpu {} is {}, not {}: give one of gpu or arch", q.gpu->name, q.arch, *arch));
    }
    q.arch = *arch;
  }
  if (q.arch.empty()) return unexpected(ErrorCode::invalid_argument, "arch or gpu is required");
  q.engine = r.engine.empty() ? std::string(precision->default_engine) : r.engine;
  return q;
}

// Whether a row is a measurement of this key at this batch size.
bool measured_row_of(const DataRow& r, const CurveKey& key, int batch) {
  return r.basis == Basis::measured && r.batch_size == batch && r.gpu_arch == key.gpu_arch && r.engine == key.engine &&
         r.precision == key.precision;
}

// The sizes (and batches) at which the question's key is measured on its own architecture, in words,
// when that key has no curve ("8.03 B (batch 1, 2, 4, 8)"); empty when it has a curve or no rows.
std::string sizes_without_curve(const Question& q, const Evidence& evidence) {
  const CurveKey key{q.arch, q.engine, std::string(q.precision.name)};
  if (evidence.curves.find(key) != nullptr) return "";
  std::map<double, std::set<int>> batches;
  for (const DataRow& r : evidence.rows) {
    if (measured_row_of(r, key, r.batch_size)) batches[r.params_b].insert(r.batch_size);
  }
  std::vector<std::string> parts;
  for (const auto& [size, at] : batches) parts.push_back(fmt::format("{:g} B (batch {})", size, fmt::join(at, ", ")));
  return fmt::format("{}", fmt::join(parts, "; "));
}

// The curve that answers, and whether it belongs to another architecture.
struct CurveChoice {
  const Curve* curve = nullptr;
  bool borrowed_arch = false;
  bool default_borrow_used = false;
};

std::string measured_architectures(const Evidence& evidence, const Question& q) {
  std::string out;
  for (const Curve* c : evidence.curves.for_precision(q.engine, std::string(q.precision.name))) {
    out += (out.empty() ? "" : ", ") + c->key.gpu_arch;
  }
  return out;
}

Result<CurveChoice> choose_curve(const Question& q, const Evidence& evidence) {
  const std::string precision(q.precision.name);
  if (const Curve* own = evidence.curves.find(CurveKey{q.arch, q.engine, precision})) return CurveChoice{own, false, false};
  if (auto borrow = default_borrow(q.arch)) {
    if (const Curve* c = evidence.curves.find(CurveKey{*borrow, q.engine, precision})) return CurveChoice{c, true, true};
  }
  const std::string measured = measured_architectures(evidence, q);
  const std::string sizes = sizes_without_curve(q, evidence);
  if (measured.empty() && sizes.empty()) {
    return unexpected(ErrorCode::not_found,
                      fmt::format("{} with {} is not measured on any architecture: no curve to answer from; measure it "
                                  "(ecocompute measure, or the MCP tool plan_measurement)",
                                  precision, q.engine));
  }
  if (q.allow_borrow) {
    for (const std::string& arch : architectures_nearest_to(q.arch)) {
      if (const Curve* c = evidence.curves.find(CurveKey{arch, q.engine, precision})) return CurveChoice{c, true, false};
    }
  }
  if (!sizes.empty()) {
    // Cells without a curve answer their own size and batch (answer_from_cells); any other question
    // has nothing to be read from.
    return unexpected(ErrorCode::not_found,
                      fmt::format("{} with {} on {} is measured at {} only, too few sizes for a curve: nothing to read "
                                  "{:g} B at batch {} from{}; measure it (ecocompute measure, or the MCP tool "
                                  "plan_measurement)",
                                  precision, q.engine, q.arch, sizes, q.n, q.batch,
                                  measured.empty() ? "" : fmt::format(" (curves on {}: ask with allow_borrow)", measured)));
  }
  return unexpected(ErrorCode::not_found,
                    fmt::format("{} with {} is not measured for {} (measured: {}); ask with allow_borrow to read the "
                                "nearest architecture's curve, labelled borrowed, or measure it",
                                precision, q.engine, q.arch, measured));
}

// GPUs the curve's sessions measured on.
std::vector<std::string> curve_gpus(const Curve& curve, const Evidence& evidence) {
  std::set<std::string> gpus;
  for (const std::string& id : curve.session_ids) {
    if (auto g = session_gpu(evidence, id); !g.empty()) gpus.insert(g);
  }
  return {gpus.begin(), gpus.end()};
}

bool gpu_among(const GpuSpec& asked, const std::vector<std::string>& gpus) {
  return std::any_of(gpus.begin(), gpus.end(), [&](const std::string& g) {
    auto spec = find_gpu(g);
    return spec ? spec->name == asked.name : g == asked.name;
  });
}

std::string joined(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& s : items) out += (out.empty() ? "" : ", ") + s;
  return out;
}

// What the curve's evidence is, in words: "RTX 4090, session rtx4090_2026-08-19".
std::string provenance(const Curve& curve, const Evidence& evidence) {
  if (curve.source == "published") return "the published curve parameters (sessions pooled)";
  std::vector<std::string> labels;
  for (const std::string& id : curve.session_ids) labels.push_back(session_label(evidence, id));
  return fmt::format("{}, session{} {}", joined(curve_gpus(curve, evidence)), labels.size() == 1 ? "" : "s", joined(labels));
}

// The distinct labels (sorted) of these sessions and the distinct GPUs they ran on.
struct NamedSessions {
  std::vector<std::string> labels;
  std::vector<std::string> gpus;
};

NamedSessions named_sessions(const std::vector<std::string>& ids, const Evidence& evidence) {
  NamedSessions out;
  std::set<std::string> gpus;
  for (const std::string& id : ids) {
    out.labels.push_back(session_label(evidence, id));
    if (auto g = session_gpu(evidence, id); !g.empty()) gpus.insert(g);
  }
  std::sort(out.labels.begin(), out.labels.end());
  out.labels.erase(std::unique(out.labels.begin(), out.labels.end()), out.labels.end());
  out.gpus.assign(gpus.begin(), gpus.end());
  return out;
}

// The basis of ΔE at batch 1 from the curve (before any batch / context model).
// `points`: the anchors the answer used; for a curve without sessions of its own (the published
// parameters) their sessions say which GPUs the figure was measured on.
FigureBasis curve_basis(const Question& q, const CurveChoice& choice, const FitPoint* anchor,
                        const std::vector<const FitPoint*>& at_size, const std::vector<FitPoint>& points,
                        const Evidence& evidence) {
  const Curve& c = *choice.curve;
  FigureBasis b;
  for (const std::string& id : c.session_ids) b.sessions.push_back(session_label(evidence, id));
  auto gpus = curve_gpus(c, evidence);
  // A measured figure is the anchor's: its own sessions and GPUs, whichever session the curve is fitted to.
  if (c.session_ids.empty() || anchor != nullptr) {
    std::vector<const FitPoint*> sources = at_size;
    if (anchor == nullptr) {
      for (const FitPoint& p : points) sources.push_back(&p);
    }
    std::vector<std::string> ids;
    for (const FitPoint* p : sources) ids.push_back(p->session_id);
    NamedSessions named = named_sessions(ids, evidence);
    b.sessions = std::move(named.labels);
    gpus = std::move(named.gpus);
  }
  b.gpu = joined(gpus);
  b.arch = c.key.gpu_arch;
  const std::string where = provenance(c, evidence);
  if (anchor != nullptr) {
    b.basis = Basis::measured;
    b.label = fmt::format("measured at {:g} B on {}, session{} {}", anchor->params_b, b.gpu,
                          b.sessions.size() == 1 ? "" : "s", joined(b.sessions));
  } else if (c.fit.covers(q.n)) {
    b.basis = Basis::interpolated;
    b.label = fmt::format("interpolated on the {} curve ({}; measured {:g}–{:g} B)", c.key.gpu_arch, where,
                          c.fit.range_min_b, c.fit.range_max_b);
  } else {
    b.basis = Basis::extrapolated;
    b.label = fmt::format("extrapolated beyond the measured {:g}–{:g} B of the {} curve ({})", c.fit.range_min_b,
                          c.fit.range_max_b, c.key.gpu_arch, where);
  }
  if (choice.borrowed_arch) {
    b.borrowed_from = fmt::format("the {} curve ({})", c.key.gpu_arch, where);
    b = b.at_most(Basis::borrowed, fmt::format("borrowed: {} has no {} curve with {}", q.arch, q.precision.name, q.engine));
  } else if (q.gpu && !gpus.empty() && (!gpu_among(*q.gpu, gpus) || (anchor != nullptr && gpus.size() > 1))) {
    // Not measured on the GPU asked about, or a mean that mixes it with other GPUs.
    b.borrowed_from = fmt::format("{} (same architecture, {})", b.gpu, c.key.gpu_arch);
    b = b.at_most(Basis::borrowed, fmt::format("borrowed: measured on {}, not on the {} asked about", b.gpu, q.gpu->name));
  }
  return b;
}

// The measured batch-1 points of a key, one per (session, size): the anchors of a curve without points.
std::vector<FitPoint> measured_points(const CurveKey& key, const Evidence& evidence) {
  std::vector<DataRow> rows;
  for (const DataRow& r : evidence.rows) {
    if (measured_row_of(r, key, 1)) rows.push_back(r);
  }
  return summarize_points(rows);
}

// ΔE measured at a batch > 1: the cells' mean, their own CI (the widest of them; never the batch-1
// anchor's or the curve's band), their disagreement when several sessions measured the batch, and
// where they were measured.
struct MeasuredBatch {
  double delta_pct = 0.0;
  double own_half_width = 0.0;
  double spread_half_width = 0.0;
  NamedSessions where;
};

MeasuredBatch measured_batch(const std::vector<const DataRow*>& rows, const Evidence& evidence) {
  MeasuredBatch m;
  std::vector<double> deltas;
  std::vector<std::string> ids;
  for (const DataRow* r : rows) {
    deltas.push_back(r->delta_pct());
    if (r->delta_ci95_low_pct && r->delta_ci95_high_pct) {
      m.own_half_width = std::max(m.own_half_width, (*r->delta_ci95_high_pct - *r->delta_ci95_low_pct) / 2);
    } else if (r->delta_sd_pct && r->n_trials >= 2) {
      m.own_half_width = std::max(m.own_half_width, student_t_critical(0.95, static_cast<std::size_t>(r->n_trials - 1)) *
                                                        *r->delta_sd_pct / std::sqrt(r->n_trials));
    }
    ids.push_back(r->session_id);
  }
  m.delta_pct = summarize(deltas).mean;
  const auto [low, high] = std::minmax_element(deltas.begin(), deltas.end());
  m.spread_half_width = kZ95 * (*high - *low) / 2;
  m.where = named_sessions(ids, evidence);
  return m;
}

// The session of the item whose ΔE is nearest `mean`: which of several sessions behind a figure
// gives its absolute energy.
template <class Item, class DeltaOf>
std::string session_nearest(const std::vector<const Item*>& items, double mean, DeltaOf delta_of) {
  const auto nearest = std::min_element(items.begin(), items.end(), [&](const Item* a, const Item* b) {
    return std::abs(delta_of(*a) - mean) < std::abs(delta_of(*b) - mean);
  });
  return (*nearest)->session_id;
}

// Rows of `key` measured at the question's size and `batch`.
std::vector<const DataRow*> cells_at(const Question& q, const CurveKey& key, int batch, const Evidence& evidence) {
  std::vector<const DataRow*> out;
  for (const DataRow& r : evidence.rows) {
    if (measured_row_of(r, key, batch) && same_model_size(r.params_b, q.n)) out.push_back(&r);
  }
  return out;
}

// The batch sizes at which `key` is measured at the question's size, in any session.
std::set<int> measured_batches(const Question& q, const CurveKey& key, const Evidence& evidence) {
  std::set<int> batches;
  for (const DataRow& r : evidence.rows) {
    if (measured_row_of(r, key, r.batch_size) && same_model_size(r.params_b, q.n)) batches.insert(r.batch_size);
  }
  return batches;
}

// The two batches measured at this size that bracket the asked one (nearest below and above), with
// their rows, from `rows_at(batch)`; nothing when either side is not measured.
struct BatchBracket {
  int low = 0, high = 0;
  std::vector<const DataRow*> low_rows, high_rows;
};

std::optional<BatchBracket> bracket_batch(const Question& q, const CurveKey& key, const Evidence& evidence,
                                          const std::function<std::vector<const DataRow*>(int)>& rows_at) {
  const std::set<int> batches = measured_batches(q, key, evidence);
  const auto above = batches.upper_bound(q.batch);
  if (above == batches.end() || above == batches.begin()) return std::nullopt;
  const auto below = std::prev(above);
  if (*below >= q.batch) return std::nullopt;
  BatchBracket b{*below, *above, rows_at(*below), rows_at(*above)};
  if (b.low_rows.empty() || b.high_rows.empty()) return std::nullopt;
  return b;
}

// ΔE at a batch between two measured ones, linear in log2(batch) as the serving break-even is. The
// band keeps both cells' own CIs and their sessions' spread, and half the gap between the two cells as
// the batch term: what ΔE does between them is not measured (at 8 B Q4_K_M goes from −38 % at batch 1
// to +8 % at batch 4, and a llama-server sweep crosses zero twice). Returns ΔE; fills the band, basis and
// notes.
double interpolate_batch(const Question& q, const BatchBracket& b, const Evidence& evidence, EstimateResponse& out) {
  const MeasuredBatch lo = measured_batch(b.low_rows, evidence);
  const MeasuredBatch hi = measured_batch(b.high_rows, evidence);
  const double t = (std::log2(q.batch) - std::log2(b.low)) / (std::log2(b.high) - std::log2(b.low));
  const double delta = lo.delta_pct + t * (hi.delta_pct - lo.delta_pct);
  out.band.within_session = std::max(lo.own_half_width, hi.own_half_width);
  out.ci_kind = "measured batch CIs";
  if (const double spread = std::max(lo.spread_half_width, hi.spread_half_width); spread > 0) {
    out.band.between_sessions = std::max(out.band.between_sessions.value_or(0.0), spread);
  }
  // ΔE between the two is not measured (at 8 B the sign flips between batch 8 and 16), so the band
  // reaches both measured values, also from a batch nearer one of them.
  out.band.batch_model = std::max(t, 1 - t) * std::abs(hi.delta_pct - lo.delta_pct);
  std::vector<std::string> ids;
  for (const auto* rows : {&b.low_rows, &b.high_rows}) {
    for (const DataRow* r : *rows) ids.push_back(r->session_id);
  }
  const NamedSessions where = named_sessions(ids, evidence);
  FigureBasis& basis = out.delta_basis;
  const bool borrowed = basis.basis == Basis::borrowed;
  basis.sessions = where.labels;
  basis.gpu = joined(where.gpus);
  basis.label = fmt::format("interpolated between batch {} ({:+.1f} %) and batch {} ({:+.1f} %) measured at {:g} B on {}, "
                            "session{} {}",
                            b.low, lo.delta_pct, b.high, hi.delta_pct, b.low_rows.front()->params_b, basis.gpu,
                            where.labels.size() == 1 ? "" : "s", joined(where.labels));
  if (!borrowed) basis.basis = Basis::interpolated;
  out.notes.push_back(fmt::format("batch {} is not measured at this size: ΔE is read between the measured batches {} and {} "
                                  "(linear in log2 batch); the band reaches both measured values, ±{:.1f} pts, since ΔE "
                                  "between them is not measured",
                                  q.batch, b.low, b.high, out.band.batch_model));
  return delta;
}

// ΔE at a batch or context nobody measured here, modelled from the batch-1 value `batch_one`: the
// basis becomes modelled, the band gains the model's term, and a note says so.
ModelledDelta model_from_batch_one(const Question& q, double batch_one, EstimateResponse& out) {
  const ModelledDelta m = modelled_delta(batch_one, q.batch, q.context);
  out.band.batch_model = kZ95 * m.sigma_pct;
  out.modelled = true;
  out.delta_basis = out.delta_basis.at_most(
      Basis::modelled, fmt::format("batch {} / context {} not measured: modelled from batch 1 (savings × {:.3f})", q.batch,
                                   q.context, m.factor));
  out.delta_basis.model = "batch/context savings factor 1/(1 + (batch−1)/8) · 1/(1 + 0.12·log2(ctx/2048))";
  out.notes.push_back(fmt::format("batch {} / context {} is outside the measured baseline (batch 1, context ≤ {}): ΔE is modelled "
                                  "(savings shrink toward zero, × {:.3f}), not measured; the band widens by ±{:.1f} pts",
                                  q.batch, q.context, kBaselineContext, m.factor, out.band.batch_model));
  return m;
}

// A modelled batch beyond the measured ones at this size: the model knows nothing of the nearest
// measured batch (at 8 B, Q4_K_M +7.6 % at batch 4 while the model from batch 1 gives −21 % at 8), so
// the batch term is widened to reach that cell's ΔE. Returns whether it widened.
bool widen_to_nearest_batch(const Question& q, const CurveKey& key, double modelled, const Evidence& evidence,
                            const std::function<std::vector<const DataRow*>(int)>& rows_at, EstimateResponse& out) {
  std::optional<int> nearest;
  for (int batch : measured_batches(q, key, evidence)) {
    if (batch == 1) continue;
    const double distance = std::abs(std::log2(batch) - std::log2(q.batch));
    if (!nearest || distance < std::abs(std::log2(*nearest) - std::log2(q.batch))) nearest = batch;
  }
  if (!nearest) return false;
  const std::vector<const DataRow*> rows = rows_at(*nearest);
  if (rows.empty()) return false;
  const double measured = measured_batch(rows, evidence).delta_pct;
  if (std::abs(modelled - measured) <= out.band.batch_model) return false;
  out.band.batch_model = std::abs(modelled - measured);
  out.notes.push_back(fmt::format("batch {} was measured at this size ({:+.1f} %), and the model from batch 1 gives {:+.1f} % "
                                  "at batch {}: the band reaches the measured batch (±{:.1f} pts)",
                                  *nearest, measured, modelled, q.batch, out.band.batch_model));
  return true;
}

// A measured point's own 95 % half-width of ΔE (Student t over its trials), if it has one.
std::optional<double> own_half_width(const FitPoint& p) {
  if (!p.se_pct || p.n < 2) return std::nullopt;
  return student_t_critical(0.95, static_cast<std::size_t>(p.n - 1)) * *p.se_pct;
}

// The widest own half-width among points, or none when any point lacks its own CI.
std::optional<double> widest_own_half_width(const std::vector<const FitPoint*>& points) {
  double widest = 0;
  for (const FitPoint* p : points) {
    const auto h = own_half_width(*p);
    if (!h) return std::nullopt;
    widest = std::max(widest, *h);
  }
  return widest;
}

double extrapolation_distance(const CurveFit& fit, double n) {
  if (n < fit.range_min_b) return std::log(fit.range_min_b / n);
  if (n > fit.range_max_b) return std::log(n / fit.range_max_b);
  return 0;
}

std::string confidence_of(const EstimateResponse& out, Basis evidence_kind, bool single_session, bool borrowed_arch,
                          bool borrowed_gpu, std::optional<double> factor) {
  const BandTerms& b = out.band;
  std::string c;
  if (evidence_kind == Basis::measured && out.ci_kind == "anchor CI" &&
      (!b.between_sessions || *b.between_sessions <= 2 * b.within_session.value_or(0))) {
    c = "high";
  } else if ((evidence_kind == Basis::measured || evidence_kind == Basis::interpolated) && b.half_width > 0 && b.half_width < 10) {
    c = "medium";
  } else {
    c = "low";
  }
  auto cap = [&](const char* at_most) {
    if (c == "high" || (c == "medium" && std::string(at_most) == "low")) c = at_most;
  };
  if (single_session || borrowed_gpu) cap("medium");
  if (borrowed_arch || evidence_kind == Basis::extrapolated) cap("low");
  if (factor) cap(*factor < 0.5 ? "low" : "medium");
  return c;
}

Json echo(const Question& q, const Evidence& evidence) {
  return Json{{"params_b", q.n},
              {"arch", q.arch},
              {"gpu", q.gpu ? q.gpu->name : std::string()},
              {"precision", std::string(q.precision.name)},
              {"batch", q.batch},
              {"ctx", q.context},
              {"engine", q.engine},
              {"model", q.model},
              {"allow_borrow", q.allow_borrow},
              {"curve_source", to_string(evidence.curve_source)}};
}

// The absolute energy per token, from the FP16 baseline of the session behind ΔE.
// `measured_here`: ΔE was measured at this size (and batch) in the curve's own architecture.
std::optional<EnergyEstimate> absolute_energy(const Question& q, const Curve& curve, const EstimateResponse& out,
                                              bool measured_here, bool measured_at_batch,
                                              const std::optional<std::string>& anchor_session, const Evidence& evidence) {
  if (!out.delta_pct) return std::nullopt;
  // The baseline of the session that measured ΔE at this size, else of the curve's session, else
  // the architecture's FP16 reference session.
  std::optional<std::string> fallback;
  if (curve.source == "fit" && curve.session_ids.size() == 1) {
    fallback = curve.session_ids.front();
  } else {
    fallback = fp16_reference_session(evidence.rows, evidence.sessions, curve.key.gpu_arch, curve.key.engine);
  }
  const int batch = measured_at_batch ? q.batch : 1;
  std::optional<std::string> session;
  std::optional<SessionEnergy> fp16;
  for (const auto& candidate : {anchor_session, fallback}) {
    if (!candidate) continue;
    fp16 = session_fp16_energy(evidence.rows, SessionRows{*candidate, curve.key.engine, curve.key.precision, batch}, q.n);
    if (fp16) {
      session = candidate;
      break;
    }
  }
  if (!fp16) return std::nullopt;
  const SessionRows which{*session, curve.key.engine, curve.key.precision, batch};
  EnergyEstimate e;
  e.session_id = *session;
  const std::string label = session_label(evidence, *session);
  e.fp16_basis.basis = fp16->basis;
  e.fp16_basis.sessions = {label};
  e.fp16_basis.gpu = fp16->gpu;
  e.fp16_basis.arch = curve.key.gpu_arch;
  const std::string where = fp16->basis != Basis::measured ? "in size"
                            : batch > 1                     ? fmt::format("at this size and batch {}", batch)
                                                            : "at this size";
  e.fp16_basis.label = fmt::format("FP16 {} {} on {} (session {})", fp16->basis == Basis::measured ? "measured" : to_string(fp16->basis),
                                   where, fp16->gpu, label);
  e.fp16_mj_per_token = fp16->mj_per_token;
  // The same borrowing as ΔE: another architecture's or another GPU's baseline is not this GPU's.
  if (!out.delta_basis.borrowed_from.empty()) {
    e.fp16_basis.borrowed_from = out.delta_basis.borrowed_from;
    e.fp16_basis = e.fp16_basis.at_most(Basis::borrowed, "borrowed from " + out.delta_basis.borrowed_from);
  }
  const auto quantized = measured_here ? session_quantized_energy(evidence.rows, which, q.n) : std::nullopt;
  if (quantized && fp16->basis == Basis::measured) {
    e.mj_per_token = quantized->mj_per_token;
    e.basis = out.delta_basis;
    if (e.basis.sessions.size() > 1) {
      // ΔE is the mean of several sessions; the energy is this one session's own measurement.
      e.basis.sessions = {label};
      e.basis.gpu = fp16->gpu;
      e.basis.label = fmt::format("measured at this size in session {}, one of the {} sessions behind ΔE", label,
                                  out.delta_basis.sessions.size());
    }
    e.method = fmt::format("{} of {} in session {}; FP16: {}", quantized->method, curve.key.precision, label, fp16->method);
  } else {
    e.mj_per_token = fp16->mj_per_token * (1 + *out.delta_pct / 100);
    e.basis = out.delta_basis.at_most(e.fp16_basis.basis, "FP16 baseline " + std::string(to_string(fp16->basis)));
    // A product is not a measurement of the energy, even of two measured factors.
    e.basis = e.basis.at_most(Basis::interpolated, "computed as FP16 × (1 + ΔE/100), not measured");
    const auto& ds = out.delta_basis.sessions;
    if (std::find(ds.begin(), ds.end(), label) == ds.end()) {
      // The ΔE is not this session's own: its energy is another session's effect on this baseline.
      e.basis.borrowed_from = fmt::format("ΔE of {} applied to the FP16 baseline of session {}",
                                          ds.empty() ? out.delta_basis.label : joined(ds), label);
      e.basis = e.basis.at_most(Basis::borrowed, "ΔE and FP16 baseline from different sessions");
    }
    e.method = fmt::format("FP16 {} in session {} × (1 + ΔE/100)", fp16->method, label);
  }
  double amort = 1, amort_low = 1, amort_high = 1;
  if (q.batch > 1 && !measured_at_batch) {
    const BatchScaling a = batch_scaling(evidence.rows, curve.key.gpu_arch, curve.key.engine, q.n, q.batch);
    amort = a.value;
    amort_low = a.low;
    amort_high = a.high;
    e.basis = scaled_basis(e.basis, a, q.batch);
    e.fp16_basis = scaled_basis(e.fp16_basis, a, q.batch);
    e.batch_factor = a.value;
    e.method += fmt::format("; × {:.3f} FP16 batch-{} scaling ({})", a.value, q.batch, to_string(a.basis));
  }
  e.mj_per_token *= amort;
  e.fp16_mj_per_token *= amort;
  double spread = 0;
  if (const SessionSpread* s = find_spread(evidence.fp16_spreads, CurveKey{curve.key.gpu_arch, curve.key.engine, "FP16"})) {
    spread = s->tau;
  }
  if (out.ci_low_pct) {
    const double base = e.mj_per_token / amort / (1 + *out.delta_pct / 100);
    e.low_mj_per_token = base * (1 + *out.ci_low_pct / 100) * std::exp(-kZ95 * spread) * amort_low;
    e.high_mj_per_token = base * (1 + *out.ci_high_pct / 100) * std::exp(kZ95 * spread) * amort_high;
  }
  return e;
}

// Notes naming the throttled trials counted behind a measured figure: at 14.8 B on the H200 F16 ran
// at the card's power limit, and ΔE there is against that F16.
void note_throttled(EstimateResponse& out, const CurveKey& key, int batch, double n, const Evidence& evidence) {
  for (const DataRow& r : evidence.rows) {
    const bool behind_figure = measured_row_of(r, key, batch) && same_model_size(r.params_b, n);
    const std::size_t at = r.note.find(report::kThrottledTrialsCounted);
    if (behind_figure && at != std::string::npos) {
      out.notes.push_back(fmt::format("session {}: {} The figure is against the baseline as the throttled card ran it.",
                                      session_label(evidence, r.session_id), r.note.substr(at)));
    }
  }
}

// The band's half-width from its terms, and the CI around `delta`.
void close_band(EstimateResponse& out, double delta) {
  const BandTerms& b = out.band;
  const double within = b.within_session.value_or(0), between = b.between_sessions.value_or(0);
  out.band.half_width = std::sqrt(within * within + between * between + b.extrapolation * b.extrapolation +
                                  b.borrowing * b.borrowing + b.batch_model * b.batch_model);
  if (out.band.half_width > 0) {
    out.ci_low_pct = std::max(delta - out.band.half_width, -100.0);
    out.ci_high_pct = delta + out.band.half_width;
  } else {
    out.notes.push_back("nothing bounds this figure (no residual degrees of freedom, no replicates): no CI");
  }
}

void write_verdict(EstimateResponse& out, const Question& q, double delta) {
  const std::string ci_text =
      out.ci_low_pct ? fmt::format(" (95 % CI {} … {})", signed_pct(*out.ci_low_pct), signed_pct(*out.ci_high_pct)) : "";
  out.verdict = fmt::format("{} {} {:.1f} % energy per token{} vs FP16 for a {:g} B model on {} with {}: {} — {}.",
                            q.precision.name, delta < 0 ? "saves" : "costs", std::abs(delta), ci_text, q.n,
                            q.gpu ? q.gpu->name : q.arch, q.engine, to_string(out.basis), out.delta_basis.label);
  if (out.modelled || out.basis == Basis::borrowed || out.basis == Basis::extrapolated) {
    out.verdict += " Not a measurement of this configuration: measure it to know.";
  }
}

// The measured quality cost of the precision, borrowed when measured on another GPU, in the verdict.
void attach_quality(EstimateResponse& out, const Question& q, const Evidence& evidence) {
  const std::string precision(q.precision.name);
  out.quality_cost = find_quality_cost(evidence, q.engine, precision, q.n);
  if (!out.quality_cost) {
    out.notes.push_back("no measured quality cost for " + precision + " with " + q.engine);
    return;
  }
  // Perplexity measured on another GPU (or architecture) than the one asked about is that GPU's.
  FigureBasis& qb = out.quality_cost->basis;
  const auto measured_on = find_gpu(qb.gpu);
  const bool other = q.gpu ? !(measured_on && measured_on->name == q.gpu->name) : qb.arch != q.arch;
  if (other && qb.borrowed_from.empty()) {
    qb.borrowed_from = fmt::format("{} ({})", qb.gpu, qb.arch);
    qb = qb.at_most(Basis::borrowed, fmt::format("borrowed: measured on {}, not on the {} asked about", qb.gpu,
                                                 q.gpu ? q.gpu->name : q.arch));
  }
  out.verdict += " Quality: " + out.quality_cost->note + ".";
}

// A key with no curve of its own architecture (measured at one size: llama-server behind
// measure-endpoint, at each concurrency) still has its measured cells. At a measured size they answer:
// measured at a measured batch, modelled from the batch-1 cell otherwise. Nothing when the size has
// no cell.
std::optional<EstimateResponse> answer_from_cells(const Question& q, const Evidence& evidence) {
  const std::string precision(q.precision.name);
  const CurveKey key{q.arch, q.engine, precision};
  if (evidence.curves.find(key) != nullptr) return std::nullopt;
  const bool context_measured = q.context <= kBaselineContext;
  const auto rows_at = [&](int batch) { return cells_at(q, key, batch, evidence); };
  std::vector<const DataRow*> rows = context_measured ? rows_at(q.batch) : std::vector<const DataRow*>{};
  const bool measured = !rows.empty();
  const std::optional<BatchBracket> bracket =
      !measured && context_measured ? bracket_batch(q, key, evidence, rows_at) : std::nullopt;
  if (bracket) {
    rows = bracket->low_rows;
    rows.insert(rows.end(), bracket->high_rows.begin(), bracket->high_rows.end());
  } else if (!measured) {
    rows = rows_at(1);  // the batch / context model starts from batch 1
  }
  if (rows.empty()) return std::nullopt;
  const int cell_batch = measured ? q.batch : 1;

  EstimateResponse out;
  out.engine = q.engine;
  out.input = echo(q, evidence);
  out.weight_gb = weight_gb(q.n, q.precision);
  out.weight_gb_fp16 = weight_gb(q.n, *parse_precision("FP16"));
  out.arch_used = q.arch;
  for (const DataRow* r : rows) {
    out.anchors.push_back(Anchor{r->params_b, r->delta_pct(), r->n_trials, r->model, session_label(evidence, r->session_id),
                                 session_gpu(evidence, r->session_id)});
  }
  const MeasuredBatch m = measured_batch(rows, evidence);
  double delta = m.delta_pct;
  const bool single_session = m.where.labels.size() == 1;
  FigureBasis& b = out.delta_basis;
  b.basis = Basis::measured;
  b.sessions = m.where.labels;
  b.gpu = joined(m.where.gpus);
  b.arch = q.arch;
  if (bracket) {
    delta = interpolate_batch(q, *bracket, evidence, out);
  } else {
    out.band.within_session = m.own_half_width;
    out.ci_kind = "measured cell CI";
    if (!single_session) out.band.between_sessions = m.spread_half_width;
    b.label = fmt::format("measured at {:g} B and batch {} on {}, session{} {} ({} row{})", rows.front()->params_b,
                          cell_batch, b.gpu, b.sessions.size() == 1 ? "" : "s", joined(b.sessions), rows.size(),
                          rows.size() == 1 ? "" : "s");
  }
  out.band.between_sessions_note =
      single_session ? fmt::format("one session measured {} {} on {} at {:g} B: the spread between sessions is unknown, "
                                   "so the band is the session's own",
                                   precision, q.engine, q.arch, rows.front()->params_b)
                     : fmt::format("{} sessions measured these cells at {:g} B: the value is their mean and the band "
                                   "covers their spread",
                                   m.where.labels.size(), rows.front()->params_b);
  out.notes.push_back(out.band.between_sessions_note);
  out.notes.push_back(fmt::format("no curve: {} with {} on {} is measured at {} only; this size is answered from its "
                                  "measured cells, and no other size can be read off",
                                  precision, q.engine, q.arch, sizes_without_curve(q, evidence)));
  const bool borrowed_gpu = q.gpu && (!gpu_among(*q.gpu, m.where.gpus) || m.where.gpus.size() > 1);
  if (borrowed_gpu) {
    b.borrowed_from = fmt::format("{} (same architecture, {})", b.gpu, q.arch);
    b = b.at_most(Basis::borrowed, fmt::format("borrowed: measured on {}, not on the {} asked about", b.gpu, q.gpu->name));
    out.band.borrowing = kZ95 * kBorrowGpuSigma;
    out.notes.push_back(fmt::format("measured on {}, not on the {} asked about (same architecture); the band widens by "
                                    "±{:.1f} pts",
                                    b.gpu, q.gpu->name, out.band.borrowing));
  }
  std::optional<double> model_factor;
  if (!measured && !bracket) {
    const ModelledDelta modelled = model_from_batch_one(q, delta, out);
    delta = modelled.delta_pct;
    model_factor = modelled.factor;
    widen_to_nearest_batch(q, key, delta, evidence, rows_at, out);
  }
  out.delta_pct = delta;
  out.basis = b.basis;
  if (out.basis == Basis::measured) note_throttled(out, key, cell_batch, q.n, evidence);
  close_band(out, delta);
  out.recommendation = recommend(out.ci_low_pct, out.ci_high_pct);
  const Basis evidence_kind = measured ? Basis::measured : bracket ? Basis::interpolated : Basis::modelled;
  out.confidence = confidence_of(out, evidence_kind, single_session, false, borrowed_gpu, model_factor);
  write_verdict(out, q, delta);
  attach_quality(out, q, evidence);

  Curve cells;
  cells.key = key;
  cells.source = "cells";
  for (const DataRow* r : rows) {
    if (std::find(cells.session_ids.begin(), cells.session_ids.end(), r->session_id) == cells.session_ids.end()) {
      cells.session_ids.push_back(r->session_id);
    }
  }
  const std::optional<std::string> own_session =
      cells.session_ids.size() == 1 ? std::optional(cells.session_ids.front()) : std::nullopt;
  out.energy_estimate = absolute_energy(q, cells, out, measured, measured && q.batch > 1, own_session, evidence);
  return out;
}

}  // namespace

std::string recommend(std::optional<double> ci_low_pct, std::optional<double> ci_high_pct) {
  if (!ci_low_pct || !ci_high_pct) return "depends";
  if (*ci_high_pct < 0) return "quantize";
  if (*ci_low_pct > 0) return "do_not_quantize";
  return "depends";
}

std::optional<QualityCost> find_quality_cost(const Evidence& evidence, const std::string& engine,
                                             const std::string& precision, double params_b) {
  const DataRow* best = nullptr;
  double best_distance = 0;
  for (const DataRow& r : evidence.rows) {
    if (r.engine != engine || r.precision != precision || r.basis != Basis::measured) continue;
    if (!r.delta_perplexity_pct()) continue;
    const double distance = std::abs(std::log(r.params_b / params_b));
    if (best == nullptr || distance < best_distance) {
      best = &r;
      best_distance = distance;
    }
  }
  if (best == nullptr) return std::nullopt;
  QualityCost q;
  q.delta_perplexity_pct = *best->delta_perplexity_pct();
  q.kld = best->kld;
  q.measured_at_b = best->params_b;
  q.model = best->model;
  q.basis.sessions = {session_label(evidence, best->session_id)};
  q.basis.gpu = best->gpu;
  q.basis.arch = best->gpu_arch;
  if (same_model_size(best->params_b, params_b)) {
    q.basis.basis = Basis::measured;
    q.basis.label = fmt::format("measured on {} ({}, session {})", best->model, best->gpu, q.basis.sessions.front());
    q.note = fmt::format("perplexity {:+.1f} % vs FP16, measured on {} ({})", q.delta_perplexity_pct, best->model, best->gpu);
  } else {
    q.basis.basis = Basis::borrowed;
    q.basis.borrowed_from = fmt::format("{} ({:g} B), the nearest measured size", best->model, best->params_b);
    q.basis.label = "borrowed from " + q.basis.borrowed_from;
    q.note = fmt::format("perplexity {:+.1f} % vs FP16 measured on {} ({:g} B), the nearest measured size, not at {:g} B",
                         q.delta_perplexity_pct, best->model, best->params_b, params_b);
  }
  return q;
}

Result<EstimateResponse> estimate(const EstimateRequest& request, const Evidence& evidence) {
  auto question = resolve(request);
  if (!question) return question.error();
  const Question& q = *question;
  if (auto cells = answer_from_cells(q, evidence)) return std::move(*cells);
  auto choice = choose_curve(q, evidence);
  if (!choice) return choice.error();
  const Curve& curve = *choice->curve;
  const std::string precision(q.precision.name);

  EstimateResponse out;
  out.engine = q.engine;
  out.input = echo(q, evidence);
  out.weight_gb = weight_gb(q.n, q.precision);
  out.weight_gb_fp16 = weight_gb(q.n, *parse_precision("FP16"));
  out.arch_used = curve.key.gpu_arch;
  out.curve = curve;
  out.curve->fit.points.clear();
  out.crossover_b = curve.fit.crossover_b;
  // The published curve parameters carry no points: their anchors are the measured rows of the key.
  const std::vector<FitPoint> points = curve.fit.points.empty() ? measured_points(curve.key, evidence) : curve.fit.points;
  for (const FitPoint& p : points) {
    out.anchors.push_back(Anchor{p.params_b, p.delta_pct, p.n, p.model, session_label(evidence, p.session_id),
                                 session_gpu(evidence, p.session_id)});
  }

  // ΔE at batch 1 and its within-session band. Several sessions at the size (pooled published
  // curves): their mean, with their disagreement in the band, as the published service does.
  FitPoint merged;
  const FitPoint* anchor = nullptr;
  std::vector<const FitPoint*> exact;
  for (const FitPoint& p : points) {
    if (same_model_size(p.params_b, q.n)) exact.push_back(&p);
  }
  // A size measured in a session the curve is not fitted to (sessions are not pooled into one fit) is
  // still a measurement of this size: it anchors the answer, with its own session named.
  const std::vector<FitPoint> other_sessions = exact.empty() && !curve.fit.points.empty()
                                                   ? measured_points(curve.key, evidence)
                                                   : std::vector<FitPoint>{};
  for (const FitPoint& p : other_sessions) {
    if (same_model_size(p.params_b, q.n)) exact.push_back(&p);
  }
  if (exact.size() == 1) anchor = exact.front();
  // Several of our sessions measured the size: each one's own CI says how sure that card is, so the
  // widest of them is the within-session term and their disagreement is the between-session term.
  // (A published pooled curve keeps its confidence band, as the published service does.)
  std::optional<double> widest_session_ci;
  if (exact.size() > 1 && curve.source == "fit") widest_session_ci = widest_own_half_width(exact);
  if (exact.size() > 1) {
    merged = *exact.front();
    double sum = 0, low = merged.delta_pct, high = merged.delta_pct;
    merged.n = 0;
    for (const FitPoint* p : exact) {
      sum += p->delta_pct;
      low = std::min(low, p->delta_pct);
      high = std::max(high, p->delta_pct);
      merged.n += p->n;
    }
    merged.delta_pct = sum / static_cast<double>(exact.size());
    merged.se_pct.reset();
    anchor = &merged;
    out.band.between_sessions = kZ95 * (high - low) / 2;
    if (q.batch > 1) {
      out.notes.push_back(fmt::format("{} sessions measured {:g} B at batch 1 and disagree by {:.1f} pts: the batch-1 value is their mean, "
                                      "and their spread stands in for the spread between cards at batch {}",
                                      exact.size(), q.n, high - low, q.batch));
    } else {
      out.notes.push_back(fmt::format("{} sessions measured {:g} B and disagree by {:.1f} pts: the value is their mean and the band "
                                      "covers the spread",
                                      exact.size(), q.n, high - low));
    }
  }
  if (choice->borrowed_arch) anchor = nullptr;  // another architecture's point is no anchor here
  const CurveValue value = curve.fit.at(q.n);
  double delta = anchor != nullptr ? anchor->delta_pct : value.delta_pct;
  if (anchor == &merged && widest_session_ci) {
    out.band.within_session = *widest_session_ci;
    out.ci_kind = "session CIs and their spread";
  } else if (const auto own = anchor != nullptr ? own_half_width(*anchor) : std::nullopt) {
    out.band.within_session = *own;
    out.ci_kind = "anchor CI";
  } else if (value.ci_low_pct) {
    out.band.within_session = *value.ci_high_pct - value.delta_pct;
    out.ci_kind = "confidence band";
    if (anchor != nullptr) out.notes.push_back("single measured anchor: its within-session width is the curve's confidence band");
  } else if (curve.fit.resid_std_pct > 0) {
    out.band.within_session = kZ95 * curve.fit.resid_std_pct;
    out.ci_kind = "resid_std";
  }
  out.delta_basis = curve_basis(q, *choice, anchor, exact, points, evidence);
  const Basis evidence_kind = anchor != nullptr ? Basis::measured : curve.fit.covers(q.n) ? Basis::interpolated : Basis::extrapolated;
  const bool borrowed_gpu = !choice->borrowed_arch && out.delta_basis.basis == Basis::borrowed;

  // Batch and context: measured where the session measured that batch, else the model.
  bool measured_at_batch = false;
  std::optional<std::string> batch_session;  // the batch cells' session nearest their mean
  bool interpolated_batch = false;
  std::optional<double> model_factor;
  if (batch_or_context_modelled(q.batch, q.context)) {
    // Every session that measured the key at this size and batch, not only the curve's: a card that
    // measured batch 16 alone (no batch-1 cell there) still measured batch 16.
    const auto rows_at = [&](int batch) { return cells_at(q, curve.key, batch, evidence); };
    const auto rows = q.context <= kBaselineContext ? rows_at(q.batch) : std::vector<const DataRow*>{};
    if (!rows.empty() && !choice->borrowed_arch) {
      const MeasuredBatch m = measured_batch(rows, evidence);
      delta = m.delta_pct;
      measured_at_batch = true;
      batch_session = session_nearest(rows, m.delta_pct, [](const DataRow& r) { return r.delta_pct(); });
      out.band.within_session = m.own_half_width;
      out.ci_kind = "measured batch CI";
      if (m.spread_half_width > 0) {
        out.band.between_sessions = std::max(out.band.between_sessions.value_or(0.0), m.spread_half_width);
      }
      const std::string rows_text = fmt::format("{} row{}", rows.size(), rows.size() == 1 ? "" : "s");
      if (out.delta_basis.basis == Basis::borrowed) {
        out.delta_basis.label += fmt::format("; measured at batch {} ({})", q.batch, rows_text);
      } else {
        // The figure is the batch cells': their sessions and GPUs, not those of the batch-1 anchors.
        out.delta_basis.basis = Basis::measured;
        out.delta_basis.sessions = m.where.labels;
        out.delta_basis.gpu = joined(m.where.gpus);
        out.delta_basis.label = fmt::format("measured at {:g} B and batch {} on {}, session{} {} ({})", rows.front()->params_b,
                                            q.batch, out.delta_basis.gpu, m.where.labels.size() == 1 ? "" : "s",
                                            joined(m.where.labels), rows_text);
      }
    } else if (auto bracket = q.context <= kBaselineContext && !choice->borrowed_arch
                                  ? bracket_batch(q, curve.key, evidence, rows_at)
                                  : std::nullopt) {
      delta = interpolate_batch(q, *bracket, evidence, out);
      interpolated_batch = true;
    } else {
      const ModelledDelta m = model_from_batch_one(q, delta, out);
      delta = m.delta_pct;
      model_factor = m.factor;
      if (!choice->borrowed_arch) widen_to_nearest_batch(q, curve.key, delta, evidence, rows_at, out);
    }
  }
  out.delta_pct = delta;
  out.basis = out.delta_basis.basis;
  if (out.basis == Basis::measured) note_throttled(out, curve.key, measured_at_batch ? q.batch : 1, q.n, evidence);

  // Between sessions: the random-effects spread of every session that measured this key.
  bool single_session = false;
  if (curve.source == "fit" && curve.session_ids.size() == 1) {
    if (const SessionSpread* s = find_spread(evidence.delta_spreads, curve.key)) {
      out.band.between_sessions = kZ95 * s->tau;
      out.band.between_sessions_note = fmt::format(
          "{} sessions measured {} {} on {} at {} shared size{}: between-session SD τ = {:.1f} pts (DerSimonian–Laird)",
          s->session_ids.size(), curve.key.precision, curve.key.engine, curve.key.gpu_arch, s->shared_sizes,
          s->shared_sizes == 1 ? "" : "s", s->tau);
    } else {
      single_session = true;
      out.band.between_sessions_note = fmt::format("no two sessions measured {} {} on {} at a shared size: the spread between "
                                                   "sessions is unknown, so the band is the session's own",
                                                   curve.key.precision, curve.key.engine, curve.key.gpu_arch);
    }
  } else if (curve.source == "fit" && anchor != nullptr && exact.size() == 1 && !measured_at_batch) {
    // One session measured this size: its CI says how sure that card is, not what another card of the
    // model would give. The spread seen where several cards measured one size stands in for it.
    if (const SessionSpread* s = find_spread(evidence.delta_spreads, curve.key)) {
      out.band.between_sessions = kZ95 * s->tau;
      out.ci_kind = "anchor CI and between-session spread";
      out.band.between_sessions_note = fmt::format(
          "one session measured {:g} B; {} sessions measured {} {} on {} at {} shared size{}: between-session SD τ = {:.1f} "
          "pts (DerSimonian–Laird), in the band for the card another session would use",
          q.n, s->session_ids.size(), curve.key.precision, curve.key.engine, curve.key.gpu_arch, s->shared_sizes,
          s->shared_sizes == 1 ? "" : "s", s->tau);
    } else {
      single_session = true;
      out.band.between_sessions_note = fmt::format(
          "one session measured {:g} B, and no two sessions measured {} {} on {} at a shared size: the spread between "
          "cards is unknown, so the band is the session's own",
          q.n, curve.key.precision, curve.key.engine, curve.key.gpu_arch);
    }
  } else {
    out.band.between_sessions_note = "the curve pools sessions: its residual carries their spread";
  }
  out.notes.push_back(out.band.between_sessions_note);

  // Distance from the evidence: extrapolation in size (none at a measured size, whichever session
  // measured it), borrowing across GPUs or architectures.
  if (const double d = anchor != nullptr ? 0.0 : extrapolation_distance(curve.fit, q.n); d > 0) {
    out.band.extrapolation = kZ95 * 1.2 * (std::max(curve.fit.resid_std_pct, 2.0) + 4.0) * d;
    out.notes.push_back(fmt::format("{:g} B is outside the measured range {:g}–{:g} B: extrapolated; the band widens by ±{:.1f} pts "
                                    "(grows with the log-distance)",
                                    q.n, curve.fit.range_min_b, curve.fit.range_max_b, out.band.extrapolation));
  }
  if (choice->borrowed_arch) {
    out.band.borrowing = kZ95 * kBorrowArchSigma;
    out.notes.push_back(fmt::format("no {} curve with {} for {}; {} the {} curve ({}); the band widens by ±{:.1f} pts", precision,
                                    q.engine, q.arch, choice->default_borrow_used ? "borrowed, as the published service does," : "borrowed, as asked,",
                                    curve.key.gpu_arch, provenance(curve, evidence), out.band.borrowing));
  } else if (borrowed_gpu) {
    out.band.borrowing = kZ95 * kBorrowGpuSigma;
    out.notes.push_back(fmt::format("measured on {}, not on the {} asked about (same architecture); the band widens by ±{:.1f} pts",
                                    out.delta_basis.gpu, q.gpu->name, out.band.borrowing));
  }
  close_band(out, delta);
  if (curve.source == "fit") {
    out.notes.push_back("curve fitted to " + (curve.session_ids.size() == 1 ? "session " : std::string()) + curve.session_label + " (" +
                        std::string(to_string(curve.fit.weighting)) + ")" + (curve.session_ids.size() == 1 ? "; sessions are not pooled" : ""));
  }
  out.recommendation = recommend(out.ci_low_pct, out.ci_high_pct);
  out.confidence = confidence_of(out, evidence_kind, single_session, choice->borrowed_arch, borrowed_gpu, model_factor);
  write_verdict(out, q, delta);
  attach_quality(out, q, evidence);
  const bool measured_here = (anchor != nullptr && !out.modelled && !interpolated_batch) || measured_at_batch;
  std::optional<std::string> anchor_session;
  if (anchor != nullptr && exact.size() == 1 && !choice->borrowed_arch) anchor_session = anchor->session_id;
  // Several sessions behind ΔE: the energy is one of them, the one whose ΔE is nearest their mean.
  if (anchor == &merged && curve.source == "fit" && !choice->borrowed_arch) {
    anchor_session = session_nearest(exact, merged.delta_pct, [](const FitPoint& p) { return p.delta_pct; });
  }
  if (measured_at_batch && !choice->borrowed_arch) anchor_session = batch_session;
  out.energy_estimate = absolute_energy(q, curve, out, measured_here, measured_at_batch, anchor_session, evidence);
  return out;
}

}  // namespace ecocompute::data
