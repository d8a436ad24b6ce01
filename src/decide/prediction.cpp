// predict(evidence, query) (see prediction.hpp).
#include "decide/prediction.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include <fmt/format.h>

#include "decide/batch_regime.hpp"
#include "decide/place_basis.hpp"
#include "decide/prediction_labels.hpp"

namespace ecocompute::decide {
namespace {

// The GPU an answer is for (an architecture asked about is answered for the card that measured it).
std::string gpu_for(const Query& q, const FamilyFit* family, const std::string& key) {
  if (q.gpu) return q.gpu->name;
  std::map<std::string, int> places;
  if (family != nullptr) {
    for (const Location* l : family->places_of(key)) {
      if (l->point.arch == q.arch) ++places[l->point.gpu];
    }
  }
  const auto most = std::max_element(places.begin(), places.end(), [](const auto& a, const auto& b) { return a.second < b.second; });
  if (most != places.end()) return most->first;
  auto representative = data::representative_gpu(q.arch);
  return representative ? representative->name : std::string();
}

std::vector<std::string> measured_architectures(const FamilyFit& family, const std::string& key) {
  std::vector<std::string> out;
  for (const Location* l : family.places_of(key)) {
    if (std::find(out.begin(), out.end(), l->point.arch) == out.end()) out.push_back(l->point.arch);
  }
  std::sort(out.begin(), out.end());
  return out;
}

// An architecture none of whose cards measured the format is answered only where the published
// service borrows (hopper → ampere) or the question allows a borrow, and only with a measured spread
// between architectures.
Result<void> check_borrow(const Query& q, const std::string& precision, const PlaceBasis& b, const OutcomeModel& model,
                          const std::vector<std::string>& archs) {
  const std::string measured = fmt::format("{}", fmt::join(archs, ", "));
  if (b.other_architecture) {
    const auto lender = data::default_borrow(q.arch);
    const bool published_borrow = lender && std::find(archs.begin(), archs.end(), *lender) != archs.end();
    if (!published_borrow && !q.allow_borrow) {
      return unexpected(ErrorCode::not_found,
                        fmt::format("{} with {} is not measured for {} (measured: {}); ask with allow_borrow to answer from the "
                                    "architectures measured, labelled borrowed, or measure it",
                                    precision, q.engine, q.arch, measured));
    }
    if (!model.measured(Unmeasured::architecture_spread)) {
      return unexpected(ErrorCode::not_found,
                        fmt::format("{} with {} is not measured for {} (measured: {}), and no format was measured on two "
                                    "architectures: the spread between architectures is unknown; measure it",
                                    precision, q.engine, q.arch, measured));
    }
  }
  if (b.other_gpu && !model.measured(Unmeasured::gpu_spread)) {
    return unexpected(ErrorCode::not_found,
                      fmt::format("{} with {} is measured on {} but not on the GPU asked about, and no format was measured on two "
                                  "GPUs of one architecture: the spread between GPUs is unknown; measure it",
                                  precision, q.engine, q.arch));
  }
  return {};
}

struct Outcome {
  LatentPrediction latent;
  PlaceBasis basis;
  ModelPoint point;
  const FamilyFit* family = nullptr;
};

Result<Outcome> predict_outcome(const OutcomeModel& model, const Query& q, const std::string& precision, const std::string& gpu) {
  Outcome o;
  o.point = point_of(CellPlace{q.engine, precision, q.arch, gpu, compute_params_b(q), q.batch, q.context});
  o.family = model.family_of(q.engine);
  if (o.family == nullptr || (o.basis = place_basis(o.point, *o.family)).basis == data::Basis::unavailable) {
    return unexpected(ErrorCode::not_found,
                      fmt::format("{} with {} is not measured on any architecture: nothing to answer from; measure it (ecocompute "
                                  "measure, or the MCP tool plan_measurement)",
                                  precision, q.engine));
  }
  if (auto ok = check_borrow(q, precision, o.basis, model, measured_architectures(*o.family, o.point.key)); !ok) return ok.error();
  auto latent = model.predict(o.point);
  if (!latent && o.point.context > 0 && !model.priors().contains(EffectKind::context_slope)) {
    return unexpected(ErrorCode::not_found,
                      fmt::format("context {}: nothing in the evidence was measured beyond context {}, so nothing says what a longer "
                                  "context does; measure it (ecocompute measure --prompt-lengths {})",
                                  q.context, kBaselineContext, q.context));
  }
  if (!latent) {
    return unexpected(ErrorCode::not_found,
                      fmt::format("{} with {} at batch {}: no engine was measured at this batch in its kernel regime ({}) nor at "
                                  "two batches of any regime, so nothing says what the batch does here; measure it",
                                  precision, q.engine, q.batch, regime_text(q.engine, precision, q.arch, o.point.regime)));
  }
  o.latent = *latent;
  return o;
}

// The architectures whose measurements answer, named only where the basis is told in full: a grid ranks
// on kinds and reads no names, so there it is the one asked.
std::string arch_used_of(const Outcome& o, const Query& q, BasisDetail detail) {
  return detail == BasisDetail::full ? used_architectures(*o.family, o.basis, o.point, q.arch) : q.arch;
}

Figure figure_of(const Outcome& o, const std::function<double(double)>& to_value) {
  return figure_from_log(o.latent.mean, o.latent.mean_var, o.latent.card_var, o.latent.log_variance_sd, to_value);
}

// Where the asked size stands against the format's measured ones, with the class the same question
// has at the nearest of them: what the interval's factor is read between near a measured size. That
// class costs a second judgement of the place, made only where a factor could be read from it (nearer
// than its class's reach) or, without a calibration, for `calibrate`'s folds alone.
SizePlace size_place_of(const Outcome& o, const Figure& delta, const Evidence& evidence) {
  SizePlace s;
  if (!lacks_size(o.basis.extent) || !(o.basis.size_distance > 0)) return s;
  s.distance = o.basis.size_distance;
  const IntervalCalibration* calibration = evidence.calibration.get();
  if (calibration == nullptr ? !evidence.judge_nearest_size_class
                             : !(s.distance < calibration->size_reach(delta.basis.basis, delta.extent))) {
    return s;
  }
  ModelPoint at = o.point;
  at.log_size = o.basis.nearest_log_size;
  const PlaceBasis there = place_basis(at, *o.family);
  s.nearest_class = std::pair{basis_kind(there, at), there.extent};
  s.nearest_params_b = o.basis.nearest_params_b;
  return s;
}

// The format's own energy: F16 energy × the ratio, their log variances added.
Figure energy_figure(const Figure& fp16, const Figure& delta) {
  const double delta_sd = delta.log_sd * delta.interval_factor();
  const double var_fp16 = fp16.log_sd * fp16.log_sd, var_delta = delta_sd * delta_sd;
  const double total = var_fp16 + var_delta;
  const double s = total > 0 ? (var_fp16 * fp16.log_variance_sd + var_delta * delta.log_variance_sd) / total : 0.0;
  const double card = fp16.card_sd * fp16.card_sd + delta.card_sd * delta.card_sd;
  Figure f = figure_from_log(fp16.log_mean + delta.log_mean, total - card, card, s, energy_of_log);
  f.basis = worse_figure(delta.basis, fp16.basis);
  return f;
}

}  // namespace

std::string answer_gpu(const Evidence& evidence, const Query& q) {
  const bool baseline = q.precision.is_baseline;
  const std::string precision = baseline ? "F16" : std::string(q.precision.name);
  const OutcomeModel& main = baseline ? evidence.model->fp16 : evidence.model->ratio;
  return gpu_for(q, main.family_of(q.engine), model_key(q.engine, precision));
}

namespace {

data::FigureBasis basis_of(const Outcome& o, const Query& q, const Evidence& evidence, const std::string& what, BasisDetail detail) {
  if (detail == BasisDetail::full) return describe_basis(*o.family, o.basis, o.point, q, evidence, what);
  data::FigureBasis kind;
  kind.basis = basis_kind(o.basis, o.point);
  return kind;
}

// F16's figure at the question's engine, size, batch and context on `gpu`, with its basis.
F16Part f16_part(const Evidence& evidence, const Query& q, const std::string& gpu, BasisDetail detail) {
  auto fp16 = predict_outcome(evidence.model->fp16, q, "F16", gpu);
  if (!fp16) return F16Part{fp16.error(), ""};
  Figure figure = figure_of(*fp16, energy_of_log);
  figure.basis = basis_of(*fp16, q, evidence, "F16 energy", detail);
  return F16Part{std::move(figure), arch_used_of(*fp16, q, detail)};
}

// What F16's figure depends on, as bytes: the names with their lengths, the numbers as they are held.
std::string f16_key(const Query& q, const std::string& gpu) {
  std::string key;
  key.reserve(96);
  for (const std::string* name : {&q.engine, &q.arch, &gpu}) {
    const std::size_t length = name->size();
    key.append(reinterpret_cast<const char*>(&length), sizeof length).append(*name);
  }
  const double sizes[] = {q.params_b, q.active_params_b.value_or(0.0)};
  const int places[] = {q.batch, q.context, q.allow_borrow ? 1 : 0};
  key.append(reinterpret_cast<const char*>(sizes), sizeof sizes).append(reinterpret_cast<const char*>(places), sizeof places);
  return key;
}

}  // namespace

Result<Prediction> predict(const Evidence& evidence, const Query& q, KeptF16* kept_f16, BasisDetail detail) {
  if (q.batch < 1) return unexpected(ErrorCode::invalid_argument, "batch must be ≥ 1");
  if (q.context < 1) return unexpected(ErrorCode::invalid_argument, "ctx must be ≥ 1");
  const DecisionModel& model = *evidence.model;
  Prediction out;
  out.query = q;
  const bool baseline = q.precision.is_baseline;
  const std::string precision = baseline ? "F16" : std::string(q.precision.name);
  const OutcomeModel& main = baseline ? model.fp16 : model.ratio;
  out.gpu = gpu_for(q, main.family_of(q.engine), model_key(q.engine, precision));
  auto ratio = baseline ? Result<Outcome>(unexpected(ErrorCode::not_found, "")) : predict_outcome(model.ratio, q, precision, out.gpu);
  if (!baseline && !ratio) return ratio.error();
  const auto work = [&] { return f16_part(evidence, q, out.gpu, detail); };
  const F16Part fp16 = kept_f16 == nullptr ? work() : kept_f16->get(f16_key(q, out.gpu), work);
  if (baseline && !fp16.figure) return fp16.figure.error();
  if (ratio) {
    out.delta = figure_of(*ratio, delta_of_log);
    out.delta->basis = basis_of(*ratio, q, evidence, "ΔE", detail);
    out.delta->extent = ratio->basis.extent;
    out.delta->size_place = size_place_of(*ratio, *out.delta, evidence);
    if (evidence.calibration) calibrate_interval(*out.delta, *evidence.calibration, delta_of_log);
    out.arch_used = arch_used_of(*ratio, q, detail);
  }
  if (fp16.figure) {
    out.fp16_energy = *fp16.figure;
    if (out.arch_used.empty()) out.arch_used = fp16.arch_used;
  } else {
    out.notes.push_back("no F16 energy to carry ΔE to an energy per token: " + fp16.figure.error().message());
  }
  if (baseline) out.energy = out.fp16_energy;
  if (out.delta && out.fp16_energy) out.energy = energy_figure(*out.fp16_energy, *out.delta);
  const data::GpuSpec* spec = q.gpu ? &*q.gpu : nullptr;
  auto named = spec == nullptr ? data::find_gpu(out.gpu) : Result<data::GpuSpec>(*spec);
  out.memory = memory_fit(out.gpu, named ? named->memory_gb : 0.0, ModelParams{q.params_b, compute_params_b(q)}, q.precision, q.batch,
                          q.context, detail);
  if (const std::string note = memory_note(out.memory, precision); !note.empty()) out.notes.push_back(note);
  out.modelled = out.delta ? out.delta->basis.basis == data::Basis::modelled : out.fp16_energy->basis.basis == data::Basis::modelled;
  return out;
}

void to_json(Json& j, const Prediction& p) {
  j = Json{{"gpu", p.gpu},
           {"arch_used", p.arch_used},
           {"delta_pct", p.delta ? Json(*p.delta) : Json(nullptr)},
           {"fp16_energy_mj_per_token", p.fp16_energy ? Json(*p.fp16_energy) : Json(nullptr)},
           {"energy_mj_per_token", p.energy ? Json(*p.energy) : Json(nullptr)},
           {"memory", p.memory},
           {"modelled", p.modelled},
           {"notes", p.notes}};
}

}  // namespace ecocompute::decide
