// Fitting, conditioning and storing the decision model (see decision_model.hpp).
#include "decide/decision_model.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "util/file_io.hpp"

namespace ecocompute::decide {
namespace {

std::string cells_text(const std::vector<Cell>& cells) {
  std::vector<std::string> lines;
  for (const Cell& c : cells) {
    const CellPlace& p = c.place;
    lines.push_back(fmt::format("{}|{}|{}|{}|{}|{:.17g}|{}|{}|{:.17g}|{:.17g}", c.session_id, p.engine, p.precision, p.arch, p.gpu,
                                p.params_b, p.batch, p.context, c.value, c.within_var));
  }
  std::sort(lines.begin(), lines.end());
  std::string out;
  for (const std::string& l : lines) out += l + "\n";
  return out;
}

}  // namespace

DecisionModel DecisionModel::fit(const std::vector<data::DataRow>& rows, const DecisionModel* warm, bool with_energy) {
  DecisionModel m;
  m.ratio = OutcomeModel::fit(ratio_cells(rows), warm != nullptr ? &warm->ratio : nullptr);
  if (with_energy) m.fp16 = OutcomeModel::fit(fp16_cells(rows), warm != nullptr ? &warm->fp16 : nullptr);
  m.digest = evidence_digest(rows);
  return m;
}

DecisionModel DecisionModel::without_session(const std::string& session_id) const {
  DecisionModel m;
  m.ratio = ratio.without_session(session_id);
  m.fp16 = fp16.without_session(session_id);
  m.digest = digest + " without " + session_id;
  return m;
}

std::string evidence_digest(const std::vector<data::DataRow>& rows) {
  return sha256_hex(fmt::format("model {}\n", kModelVersion) + cells_text(ratio_cells(rows)) + "F16\n" + cells_text(fp16_cells(rows)));
}

void to_json(Json& j, const DecisionModel& m) {
  j = Json{{"version", kModelVersion}, {"layout", kStoredLayout}, {"digest", m.digest}, {"ratio", m.ratio}, {"fp16", m.fp16}};
}

Result<DecisionModel> DecisionModel::from_json(const Json& j) {
  const auto number = [&j](const char* key) {
    const auto it = j.is_object() ? j.find(key) : j.end();
    return it != j.end() && it->is_number_integer() ? it->get<int>() : 0;
  };
  if (number("version") != kModelVersion || number("layout") != kStoredLayout) {
    return unexpected(ErrorCode::invalid_argument, "stored model is of another version");
  }
  auto ratio = OutcomeModel::from_json(j.at("ratio"));
  if (!ratio) return ratio.error();
  auto fp16 = OutcomeModel::from_json(j.at("fp16"));
  if (!fp16) return fp16.error();
  DecisionModel m;
  m.ratio = std::move(*ratio);
  m.fp16 = std::move(*fp16);
  const auto digest = j.find("digest");
  if (digest != j.end() && digest->is_string()) m.digest = digest->get<std::string>();
  return m;
}

}  // namespace ecocompute::decide
