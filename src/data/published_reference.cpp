// The published checker's reference, from the shipped CSVs or from a curves.json.
#include "data/published_reference.hpp"

#include <cmath>

#include <fmt/format.h>

#include "data/csv_table.hpp"
#include "data/curve_set.hpp"
#include "util/file_io.hpp"

namespace ecocompute::data {
namespace {

namespace fs = std::filesystem;

// The site's borrow table (hongping-zh/quant-energy curves.json, 2026-08): hopper has no
// measurements of its own and is graded against the ampere curves.
const std::vector<std::pair<std::string, std::string>> kSiteBorrow{{"hopper", "ampere"}};

// curves.json states each anchor's ΔE to two decimals; the checker averages those.
double two_decimals(double value) { return std::round(value * 100.0) / 100.0; }

Result<std::vector<std::pair<std::string, PublishedAnchor>>> read_site_anchors(const fs::path& path) {
  auto table = CsvTable::read(path);
  if (!table) return table.error();
  std::vector<std::pair<std::string, PublishedAnchor>> out;  // "arch|precision" → anchor
  for (std::size_t i = 0; i < table->size(); ++i) {
    auto arch = table->text(i, "arch");
    auto precision = table->text(i, "precision");
    auto gpu = table->text(i, "gpu");
    auto model = table->text(i, "model");
    auto size = table->number(i, "params_b");
    auto fp16 = table->number(i, "energy_fp16_j1k");
    auto quant = table->number(i, "energy_quant_j1k");
    auto n = table->number(i, "n_trials");
    if (const Error* e = first_field_error(arch, precision, gpu, model, size, fp16, quant, n)) return *e;
    if (*fp16 <= 0 || *size <= 0 || *n < 1) {
      return unexpected(ErrorCode::invalid_input, table->where(i) + ": sizes, energies and n_trials must be > 0");
    }
    out.emplace_back(*arch + "|" + *precision,
                     PublishedAnchor{*size, two_decimals((*quant - *fp16) / *fp16 * 100.0), static_cast<int>(*n), *gpu,
                                     *model});
  }
  return out;
}

// --- curves.json ------------------------------------------------------------------------------

Result<double> number_at(const Json& object, const char* key, const std::string& where) {
  const auto it = object.find(key);
  if (it == object.end() || !it->is_number() || !std::isfinite(it->get<double>())) {
    return unexpected(ErrorCode::invalid_input, fmt::format("{}.{}: expected a finite number", where, key));
  }
  return it->get<double>();
}

Result<PublishedAnchor> anchor_from_json(const Json& a, const std::string& where) {
  if (!a.is_object()) return unexpected(ErrorCode::invalid_input, where + ": expected an object");
  auto n_b = number_at(a, "N", where);
  if (!n_b) return n_b.error();
  auto delta = number_at(a, "dE", where);
  if (!delta) return delta.error();
  PublishedAnchor anchor{*n_b, *delta, 1, a.value("gpu", ""), a.value("model", "")};
  if (a.contains("n")) {
    auto n = number_at(a, "n", where);
    if (!n) return n.error();
    anchor.n = static_cast<int>(*n);
  }
  return anchor;
}

Result<PublishedCurve> curve_from_json(const std::string& arch, const std::string& precision, const Json& c,
                                       const std::string& where) {
  if (!c.is_object()) return unexpected(ErrorCode::invalid_input, where + ": expected an object");
  PublishedCurve curve{arch, precision, {}, 0.0, {}};
  for (auto [key, target] : {std::pair{"A", &curve.params.a_pct}, std::pair{"S", &curve.params.s_pct},
                             std::pair{"Nstar", &curve.params.n_star_b}, std::pair{"resid_std", &curve.resid_std_pct}}) {
    auto v = number_at(c, key, where);
    if (!v) return v.error();
    *target = *v;
  }
  if (curve.params.n_star_b <= 0 || curve.resid_std_pct < 0) {
    return unexpected(ErrorCode::invalid_input, where + ": Nstar must be > 0 and resid_std ≥ 0");
  }
  const auto anchors = c.find("anchors");
  if (anchors == c.end()) return curve;
  if (!anchors->is_array()) return unexpected(ErrorCode::invalid_input, where + ".anchors: expected an array");
  for (std::size_t i = 0; i < anchors->size(); ++i) {
    auto anchor = anchor_from_json((*anchors)[i], fmt::format("{}.anchors[{}]", where, i));
    if (!anchor) return anchor.error();
    curve.anchors.push_back(std::move(*anchor));
  }
  return curve;
}

}  // namespace

const PublishedCurve* PublishedReference::find(std::string_view gpu_arch, std::string_view precision) const {
  for (const PublishedCurve& c : curves) {
    if (c.gpu_arch == gpu_arch && c.precision == precision) return &c;
  }
  return nullptr;
}

std::optional<std::string> PublishedReference::lender_of(std::string_view gpu_arch) const {
  for (const auto& [borrower, lender] : borrow) {
    if (borrower == gpu_arch) return lender;
  }
  return std::nullopt;
}

Result<PublishedReference> read_published_reference(const fs::path& dir) {
  auto curves = read_published_curves(dir / "published_curves.csv");
  if (!curves) return curves.error();
  auto anchors = read_site_anchors(dir / "site_measured_fit_input.csv");
  if (!anchors) return anchors.error();
  PublishedReference reference{(dir / "published_curves.csv").string() + " with the anchors of " +
                                   (dir / "site_measured_fit_input.csv").string(),
                               {}, kSiteBorrow};
  for (const Curve& c : curves->curves) {
    PublishedCurve curve{c.key.gpu_arch, c.key.precision, c.fit.params, c.fit.resid_std_pct, {}};
    for (const auto& [key, anchor] : *anchors) {
      if (key == c.key.gpu_arch + "|" + c.key.precision) curve.anchors.push_back(anchor);
    }
    reference.curves.push_back(std::move(curve));
  }
  return reference;
}

Result<PublishedReference> published_reference_from_json(const Json& document, std::string_view source_view) {
  const std::string source(source_view);
  if (!document.is_object() || !document.contains("curves") || !document["curves"].is_object()) {
    return unexpected(ErrorCode::invalid_input, source + ": expected an object with \"curves\" (a curves.json)");
  }
  PublishedReference reference{source, {}, {}};
  for (const auto& [arch, by_precision] : document["curves"].items()) {
    if (!by_precision.is_object()) {
      return unexpected(ErrorCode::invalid_input, fmt::format("{}: curves.{}: expected an object", source, arch));
    }
    for (const auto& [precision, c] : by_precision.items()) {
      auto curve = curve_from_json(arch, precision, c, fmt::format("{}: curves.{}.{}", source, arch, precision));
      if (!curve) return curve.error();
      reference.curves.push_back(std::move(*curve));
    }
  }
  if (const auto borrow = document.find("borrow"); borrow != document.end() && borrow->is_object()) {
    for (const auto& [arch, lender] : borrow->items()) {
      if (lender.is_string()) reference.borrow.emplace_back(arch, lender.get<std::string>());
    }
  }
  return reference;
}

Result<PublishedReference> read_published_reference_json(const fs::path& path) {
  auto document = read_json_file(path);
  if (!document) return document.error();
  return published_reference_from_json(Json(*document), path.string());
}

}  // namespace ecocompute::data
