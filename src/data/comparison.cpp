// Comparison: pairs two sides' rows by (size, precision, batch) and computes paired differences.
#include "data/comparison.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <tuple>

#include <fmt/format.h>

#include "data/dataset_import.hpp"
#include "data/model_size.hpp"
#include "report/measurement_claim.hpp"
#include "util/statistics.hpp"

namespace ecocompute::data {
namespace {

// (params_b, precision, batch, context): a batch or concurrency level, and a context beyond the baseline,
// is a condition of its own, never pooled.
using RowKey = std::tuple<double, std::string, int, int>;

std::string describe_key(const std::string& model, const RowKey& key) {
  const auto& [params_b, precision, batch, context] = key;
  std::string text = batch == 1 ? fmt::format("{} {:g} B {}", model, params_b, precision)
                                : fmt::format("{} {:g} B {} batch {}", model, params_b, precision, batch);
  if (context > 0) text += fmt::format(" at context {}", context);
  return text;
}

// Mean of one optional field over the rows that have it.
std::optional<double> mean_of(const std::vector<const ComparedRow*>& rows, std::optional<double> ComparedRow::*field) {
  double sum = 0.0;
  int n = 0;
  for (const ComparedRow* r : rows) {
    if (const auto& v = r->*field) {
      sum += *v;
      ++n;
    }
  }
  return n == 0 ? std::nullopt : std::optional<double>(sum / n);
}

// Replicates of one (size, precision, batch) averaged, field by field.
std::map<RowKey, ComparedRow> summarize_side(const std::vector<ComparedRow>& rows) {
  std::map<RowKey, std::vector<const ComparedRow*>> groups;
  for (const ComparedRow& r : rows) groups[{r.params_b, r.precision, r.batch_size, r.context_tokens}].push_back(&r);
  std::map<RowKey, ComparedRow> out;
  for (const auto& [key, members] : groups) {
    ComparedRow s;
    s.model = members.front()->model;
    std::tie(s.params_b, s.precision, s.batch_size, s.context_tokens) = key;
    s.delta_pct = mean_of(members, &ComparedRow::delta_pct);
    s.energy_per_token_mj = mean_of(members, &ComparedRow::energy_per_token_mj);
    s.throughput_tokens_per_s = mean_of(members, &ComparedRow::throughput_tokens_per_s);
    s.delta_perplexity_pct = mean_of(members, &ComparedRow::delta_perplexity_pct);
    s.n_trials = members.size() == 1 ? members.front()->n_trials : static_cast<int>(members.size());
    // A mean over several rows has no one session's CI; a single row keeps its own.
    if (members.size() == 1) s.delta_ci95_half_pct = members.front()->delta_ci95_half_pct;
    out[key] = std::move(s);
  }
  return out;
}

std::vector<std::string> fingerprints(const ComparisonSide& side) {
  std::vector<std::string> out;
  for (const Session& s : side.sessions) {
    if (std::find(out.begin(), out.end(), s.fingerprint) == out.end()) out.push_back(s.fingerprint);
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::optional<double> difference(const std::optional<double>& a, const std::optional<double>& b) {
  if (!a || !b) return std::nullopt;
  return *b - *a;
}

std::optional<double> relative_difference_pct(const std::optional<double>& a, const std::optional<double>& b) {
  if (!a || !b || *a == 0.0) return std::nullopt;
  return (*b - *a) / *a * 100.0;
}

PairedRow pair_of(const ComparedRow& x, const ComparedRow& y) {
  PairedRow p;
  p.params_b = x.params_b;
  p.precision = x.precision;
  p.batch_size = x.batch_size;
  p.context_tokens = x.context_tokens;
  p.model = x.model;
  p.delta_a_pct = x.delta_pct;
  p.delta_b_pct = y.delta_pct;
  p.difference_pp = difference(x.delta_pct, y.delta_pct);
  p.ci95_half_a_pp = x.delta_ci95_half_pct;
  p.ci95_half_b_pp = y.delta_ci95_half_pct;
  if (p.ci95_half_a_pp && p.ci95_half_b_pp) {
    p.within_sessions_pp = std::hypot(*p.ci95_half_a_pp, *p.ci95_half_b_pp);
    if (p.difference_pp) p.beyond_within_sessions = std::fabs(*p.difference_pp) > *p.within_sessions_pp;
  }
  p.n_a = x.n_trials;
  p.n_b = y.n_trials;
  p.energy_a_mj = x.energy_per_token_mj;
  p.energy_b_mj = y.energy_per_token_mj;
  p.energy_difference_pct = relative_difference_pct(x.energy_per_token_mj, y.energy_per_token_mj);
  p.throughput_a = x.throughput_tokens_per_s;
  p.throughput_b = y.throughput_tokens_per_s;
  p.throughput_difference_pct = relative_difference_pct(x.throughput_tokens_per_s, y.throughput_tokens_per_s);
  p.delta_ppl_a_pct = x.delta_perplexity_pct;
  p.delta_ppl_b_pct = y.delta_perplexity_pct;
  return p;
}

ComparedRow compared_row(const DataRow& r) {
  const bool measured = r.basis == Basis::measured;
  return ComparedRow{r.model,
                     r.params_b,
                     r.precision,
                     r.batch_size,
                     r.context_tokens,
                     measured ? std::optional<double>(r.delta_pct()) : std::nullopt,
                     measured ? std::optional<double>(r.energy_per_token_mj) : std::nullopt,
                     r.throughput_tokens_per_s,
                     r.delta_perplexity_pct(),
                     r.n_trials,
                     measured && r.delta_ci95_low_pct && r.delta_ci95_high_pct
                         ? std::optional<double>((*r.delta_ci95_high_pct - *r.delta_ci95_low_pct) / 2.0)
                         : std::nullopt};
}

std::string optional_text(const std::optional<double>& v, const char* format) {
  return v ? fmt::format(fmt::runtime(format), *v) : "—";
}

// The model as a pair's line names it, with its context when beyond the baseline.
std::string model_text(const PairedRow& p) {
  return p.context_tokens > 0 ? fmt::format("{} (context {})", p.model, p.context_tokens) : p.model;
}

}  // namespace

ComparisonSide side_from_batch(const ImportBatch& batch, std::string label) {
  ComparisonSide side{std::move(label), batch.sessions, {}, {}, std::nullopt};
  for (const DataRow& r : batch.rows) side.rows.push_back(compared_row(r));
  return side;
}

ComparisonSide side_from_report(const report::EnergyReport& r, std::string label) {
  ComparisonSide side{label, {report_session(r, label)}, {}, {}, std::nullopt};
  ComparedRow row;
  row.model = r.workload.model_name;
  row.params_b = r.workload.params_b.value_or(0.0);
  row.precision = canonical_precision(r.workload.precision);
  row.batch_size = r.workload.load_level();  // as `data import` stores it
  row.context_tokens = stored_context(r.workload).value_or(kMaxContext);  // as `data import` stores it
  row.throughput_tokens_per_s = r.results.throughput_tokens_per_s;
  const bool synthetic_weights = r.workload.weights == report::WeightsKind::synthetic;
  if (r.quality && !synthetic_weights) row.delta_perplexity_pct = r.quality->delta_vs_fp16_pct;
  if (r.statistics) {
    row.n_trials = static_cast<int>(std::max<std::int64_t>(1, r.statistics->vs_fp16_energy_pct.n_pairs >= 1
                                                                   ? r.statistics->vs_fp16_energy_pct.n_pairs
                                                                   : r.statistics->n_trials));
  }
  if (auto why = report::why_not_measured(r)) {
    side.notes.push_back("energy not compared: " + *why);
  } else {
    row.energy_per_token_mj = r.results.energy_per_token_mj;
    row.delta_pct = r.delta_from_energies();
    if (r.statistics) {
      const report::PairedDelta& delta = r.statistics->vs_fp16_energy_pct;
      if (delta.ci95_low && delta.ci95_high) row.delta_ci95_half_pct = (*delta.ci95_high - *delta.ci95_low) / 2.0;
    }
  }
  side.rows.push_back(std::move(row));
  side.report = r;
  return side;
}

Result<ComparisonSide> load_comparison_side(const std::string& spec, const DatasetStore& store) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::exists(spec, ec)) {
    if (!fs::is_directory(spec, ec) && fs::path(spec).extension() != ".csv") {
      auto report = report::read_energy_report(spec);
      if (!report) return report.error();
      return side_from_report(*report, spec);
    }
    auto batch = read_import_source(spec);
    if (!batch) return batch.error();
    return side_from_batch(*batch, spec);
  }
  auto session = store.find_session(spec);
  if (!session) {
    return Error{ErrorCode::not_found, "'" + spec + "' is neither a file nor a session in the store", session.error()};
  }
  RowQuery query;
  query.session_id = session->id;
  auto rows = store.rows(query);
  if (!rows) return rows.error();
  ImportBatch batch{session->label, {*session}, std::move(*rows), {}};
  return side_from_batch(batch, session->label);
}

Comparison compare(const ComparisonSide& a, const ComparisonSide& b) {
  Comparison c;
  c.label_a = a.label;
  c.label_b = b.label;
  if (!a.sessions.empty()) {
    c.gpu_arch_a = a.sessions.front().gpu_arch;
    c.engine_a = a.sessions.front().engine;
  }
  c.fingerprints_a = fingerprints(a);
  c.fingerprints_b = fingerprints(b);
  c.same_stack = !c.fingerprints_a.empty() && c.fingerprints_a == c.fingerprints_b;
  if (!c.same_stack) {
    c.warnings.push_back(std::string(kDifferentStackWarning) + ": the environment fingerprints differ");
  }
  for (const ComparisonSide* side : {&a, &b}) {
    for (const std::string& note : side->notes) c.warnings.push_back(side->label + ": " + note);
  }
  const auto sa = summarize_side(a.rows);
  const auto sb = summarize_side(b.rows);
  std::vector<double> differences;
  for (const auto& [key, x] : sa) {
    auto it = sb.find(key);
    if (it == sb.end()) {
      c.unmatched.push_back(fmt::format("{} only in {}", describe_key(x.model, key), a.label));
      continue;
    }
    PairedRow p = pair_of(x, it->second);
    if (p.difference_pp) differences.push_back(*p.difference_pp);
    c.pairs.push_back(std::move(p));
  }
  for (const auto& [key, y] : sb) {
    if (!sa.contains(key)) c.unmatched.push_back(fmt::format("{} only in {}", describe_key(y.model, key), b.label));
  }
  if (!differences.empty()) {
    // Paired t interval: mean ± t(n−1) · sd/√n.
    const Summary s = summarize(differences);
    c.mean_difference_pp = s.mean;
    c.sd_difference_pp = s.sd;
    c.ci95_low_pp = s.ci_low;
    c.ci95_high_pp = s.ci_high;
  } else if (!c.pairs.empty()) {
    c.warnings.push_back("ΔE not compared: no matched row has a measured ΔE on both sides");
  }
  if (a.report && b.report) c.in_run = compare_in_run(*a.report, *b.report);
  return c;
}

void to_json(Json& j, const PairedRow& p) {
  j = Json{{"params_b", p.params_b},
           {"precision", p.precision},
           {"batch_size", p.batch_size},
           {"context_tokens", p.context_tokens},
           {"model", p.model},
           {"delta_a_pct", json_or_null(p.delta_a_pct)},
           {"delta_b_pct", json_or_null(p.delta_b_pct)},
           {"difference_pp", json_or_null(p.difference_pp)},
           {"ci95_half_a_pp", json_or_null(p.ci95_half_a_pp)},
           {"ci95_half_b_pp", json_or_null(p.ci95_half_b_pp)},
           {"within_sessions_pp", json_or_null(p.within_sessions_pp)},
           {"beyond_within_sessions", json_or_null(p.beyond_within_sessions)},
           {"between_cards_pp", json_or_null(p.between_cards_pp)},
           {"beyond_between_cards", json_or_null(p.beyond_between_cards)},
           {"n_a", p.n_a},
           {"n_b", p.n_b},
           {"energy_a_mj", json_or_null(p.energy_a_mj)},
           {"energy_b_mj", json_or_null(p.energy_b_mj)},
           {"energy_difference_pct", json_or_null(p.energy_difference_pct)},
           {"throughput_a_tokens_per_s", json_or_null(p.throughput_a)},
           {"throughput_b_tokens_per_s", json_or_null(p.throughput_b)},
           {"throughput_difference_pct", json_or_null(p.throughput_difference_pct)},
           {"delta_ppl_a_pct", json_or_null(p.delta_ppl_a_pct)},
           {"delta_ppl_b_pct", json_or_null(p.delta_ppl_b_pct)}};
}

void to_json(Json& j, const Comparison& c) {
  j = Json{{"a", c.label_a},
           {"b", c.label_b},
           {"fingerprints_a", c.fingerprints_a},
           {"fingerprints_b", c.fingerprints_b},
           {"same_stack", c.same_stack},
           {"warnings", c.warnings},
           {"pairs", c.pairs},
           {"unmatched", c.unmatched},
           {"mean_difference_pp", json_or_null(c.mean_difference_pp)},
           {"sd_difference_pp", json_or_null(c.sd_difference_pp)},
           {"ci95_pp", c.ci95_low_pp ? Json::array({*c.ci95_low_pp, *c.ci95_high_pp}) : Json(nullptr)},
           {"in_run", c.in_run ? Json(*c.in_run) : Json(nullptr)}};
}

std::string to_text(const Comparison& c) {
  std::string out = fmt::format("A: {}\nB: {}\n", c.label_a, c.label_b);
  for (const std::string& w : c.warnings) out += "warning: " + w + "\n";
  // Two precisions of one run share no row: the paired comparison is the answer, not "unmatched".
  if (c.in_run && c.pairs.empty()) return out + to_text(*c.in_run);
  out += fmt::format("{:<40} {:>7} {:<7} {:>5} {:>11} {:>11} {:>10} {:>15} {:>10} {:>10} {:>10} {:>10}\n", "model",
                     "size", "prec", "batch", "ΔE A", "ΔE B", "B−A (pp)", "±A ±B (CI95)", "E B/A−1", "tok/s A", "tok/s B", "B/A−1");
  bool any_beyond = false;
  for (const PairedRow& p : c.pairs) {
    const bool beyond = p.beyond_within_sessions.value_or(false);
    any_beyond = any_beyond || beyond;
    const std::string within = p.ci95_half_a_pp && p.ci95_half_b_pp
                                   ? fmt::format("±{:.2f} ±{:.2f}{}", *p.ci95_half_a_pp, *p.ci95_half_b_pp, beyond ? "*" : " ")
                                   : std::string("—");
    out += fmt::format("{:<40} {:>6g}B {:<7} {:>5} {:>11} {:>11} {:>10} {:>15} {:>10} {:>10} {:>10} {:>10}\n",
                       model_text(p), p.params_b, p.precision, p.batch_size, optional_text(p.delta_a_pct, "{:+.2f} %"),
                       optional_text(p.delta_b_pct, "{:+.2f} %"), optional_text(p.difference_pp, "{:+.2f}"), within,
                       optional_text(p.energy_difference_pct, "{:+.2f}%"),
                       optional_text(p.throughput_a, "{:.1f}"), optional_text(p.throughput_b, "{:.1f}"),
                       optional_text(p.throughput_difference_pct, "{:+.2f}%"));
  }
  if (c.mean_difference_pp) {
    out += fmt::format("mean ΔE difference {:+.2f} pp", *c.mean_difference_pp);
    if (c.ci95_low_pp) out += fmt::format(" (95 % CI {:+.2f} … {:+.2f}, SD {:.2f})", *c.ci95_low_pp, *c.ci95_high_pp, *c.sd_difference_pp);
    out += "\n";
  }
  if (any_beyond) {
    out += "* the sessions differ by more than their own 95 % CIs explain (√(A² + B²)): the between-session spread is "
           "real, and one session's CI understates it\n";
  }
  for (const PairedRow& p : c.pairs) {
    if (!p.between_cards_pp || !p.difference_pp) continue;
    out += fmt::format("{} {:g} B {} batch {}: B − A {:+.2f} pp against ±{:.2f} between two cards (the decision model): {}\n",
                       model_text(p), p.params_b, p.precision, p.batch_size, *p.difference_pp, *p.between_cards_pp,
                       *p.beyond_between_cards ? "more than cards differ by" : "within what cards differ by");
  }
  for (const std::string& u : c.unmatched) out += "unmatched: " + u + "\n";
  return out;
}

}  // namespace ecocompute::data
