// The field table's ranges and required members, as `validate` (the 1.2 schema, compiled with them) and
// the upload check (any version) apply them: each figure of the golden reports set outside its range is
// refused by both, naming the field, its value and the range; each member every 1.2 report needs is
// refused when it is missing.
#include "report/figure_ranges.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "report/energy_field_list.hpp"
#include "report/energy_schema.hpp"
#include "report/upload_rules.hpp"
#include "golden_reports.hpp"
#include "support/golden.hpp"

namespace ecocompute::report {
namespace {

// A golden 1.2 report of each scenario, as written.
std::vector<OrderedJson> golden_documents() {
  std::vector<OrderedJson> out;
  for (const char* name : {"energy/energy-Q8_0.json", "energy/energy-Q8_0-c4-server.json"}) {
    out.push_back(to_json(testing::read_golden_report(name)));
  }
  return out;
}

// Every member of `node` as (JSON pointer, table path with list indices as "[]").
void members(const OrderedJson& node, const std::string& pointer, const std::string& path,
             std::vector<std::pair<std::string, std::string>>& out) {
  if (node.is_object()) {
    for (const auto& [key, child] : node.items()) {
      const std::string child_path = path.empty() ? key : path + "." + key;
      out.emplace_back(pointer + "/" + key, child_path);
      members(child, pointer + "/" + key, child_path, out);
    }
  } else if (node.is_array()) {
    for (std::size_t i = 0; i < node.size(); ++i) members(node[i], pointer + "/" + std::to_string(i), path + "[]", out);
  }
}

// Values just outside a range: below it and above it, where the range has that end.
std::vector<double> outside(const FieldBounds& b) {
  std::vector<double> values;
  if (std::isfinite(b.low)) values.push_back(b.low_open ? b.low : b.low - 1);
  if (std::isfinite(b.high)) values.push_back(b.high_open ? b.high : b.high + std::max(1.0, std::abs(b.high)));
  return values;
}

// "/trials/0/decode/energy_j" → "trials[0].decode.energy_j", as the upload check names a figure.
std::string dotted(const std::string& pointer) {
  std::string out;
  std::size_t from = 1;
  while (from <= pointer.size()) {
    const std::size_t slash = pointer.find('/', from);
    const std::string token = pointer.substr(from, slash == std::string::npos ? std::string::npos : slash - from);
    if (token.find_first_not_of("0123456789") == std::string::npos) out += "[" + token + "]";
    else out += (out.empty() ? "" : ".") + token;
    if (slash == std::string::npos) break;
    from = slash + 1;
  }
  return out;
}

bool has(const std::string& text, const std::string& fragment) { return text.find(fragment) != std::string::npos; }

TEST(FigureRanges, EveryFigureOutsideItsRangeIsRefusedByValidateAndTheUploadCheck) {
  std::set<std::string> tested;
  for (const OrderedJson& golden : golden_documents()) {
    ASSERT_TRUE(validate_energy_json(golden).empty());
    std::vector<std::pair<std::string, std::string>> all;
    members(golden, "", "", all);
    for (const auto& [pointer, path] : all) {
      const EnergyFieldInfo* field = find_energy_report_field(path);
      const OrderedJson::json_pointer at(pointer);
      if (field == nullptr || !field->bounds || !golden.at(at).is_number()) continue;
      bool typed = false;
      for (const double value : outside(*field->bounds)) {
        OrderedJson doc = golden;
        if (field->type.starts_with("whole number")) doc[at] = static_cast<std::int64_t>(value);
        else doc[at] = value;
        const std::string value_text = fmt::format("{:g}", value);
        const std::string range = field->bounds->text();
        const auto problems = validate_energy_json(doc);
        bool named = false;
        for (const SchemaProblem& p : problems) named |= p.pointer == pointer && has(p.message, value_text) && has(p.message, range);
        EXPECT_TRUE(named) << pointer << " = " << value_text << " not refused with " << range << ":\n" << describe(problems);
        // A narrower member cannot hold every value a document can: only what reads back as written is checked.
        auto report = energy_report_from_json(doc, "doc");
        if (!report || to_json(*report).at(at) != doc.at(at)) continue;
        typed = true;
        // Every other figure of a golden report is within its range, so this one is the one named.
        const std::string why = figure_out_of_range(*report).value_or("");
        EXPECT_TRUE(why.starts_with(dotted(pointer) + " " + value_text + " is outside " + range)) << pointer << ": " << why;
      }
      EXPECT_TRUE(typed) << path << ": no value outside its range could be held by the typed report";
      tested.insert(path);
    }
  }
  EXPECT_GE(tested.size(), 70u) << "the golden reports carry fewer bounded figures than they did";
}

TEST(FigureRanges, AnUploadOfAnyVersionIsHeldToTheRanges) {
  EnergyReport published = testing::published_1_1_report();
  ASSERT_EQ(upload_rule_violation(published), std::nullopt);
  published.workload.params_b = 0.0;
  EXPECT_EQ(upload_rule_violation(published).value_or(""), "workload.params_b 0 is outside (0, 100000] billions");
  published = testing::published_1_1_report();
  published.results.total_energy_joules = 2e9;
  EXPECT_EQ(upload_rule_violation(published).value_or(""), "results.total_energy_joules 2e+09 is outside [0, 1e+09] J");
  // A spread takes the range of the figure it describes: a throughput may reach 1e9 tokens/s, an energy 1e7 mJ.
  EnergyReport run = testing::read_golden_report("energy/energy-Q8_0.json");
  ASSERT_TRUE(run.statistics && run.statistics->throughput_tokens_per_s);
  run.statistics->throughput_tokens_per_s->ci95_high = 5e8;
  EXPECT_EQ(figure_out_of_range(run), std::nullopt);
  run.statistics->energy_per_token_mj.ci95_high = 5e8;
  EXPECT_EQ(figure_out_of_range(run).value_or(""),
            "statistics.energy_per_token_mj.ci95_high 5e+08 is outside [-1e+07, 1e+07]");
  run.statistics->energy_per_token_mj.ci95_high = 1e7;
  ASSERT_TRUE(run.trials->at(0).decode);
  run.trials->at(0).decode->energy_j = -1.0;
  EXPECT_EQ(figure_out_of_range(run).value_or(""), "trials[0].decode.energy_j -1 is outside [0, 1e+09] J");
}

TEST(FigureRanges, EveryMemberA12ReportNeedsIsRefusedWhenMissing) {
  std::set<std::string> tested;
  for (const OrderedJson& golden : golden_documents()) {
    std::vector<std::pair<std::string, std::string>> all;
    members(golden, "", "", all);
    for (const auto& [pointer, path] : all) {
      const EnergyFieldInfo* field = find_energy_report_field(path);
      if (field == nullptr || !field->in_every_1_2 || tested.contains(path)) continue;
      const std::size_t slash = pointer.rfind('/');
      const std::string parent = pointer.substr(0, slash);
      const std::string key = pointer.substr(slash + 1);
      OrderedJson doc = golden;
      doc[OrderedJson::json_pointer(parent)].erase(key);
      const auto problems = validate_energy_json(doc);
      bool named = false;
      for (const SchemaProblem& p : problems) named |= p.pointer == parent && has(p.message, "'" + key + "'");
      EXPECT_TRUE(named) << path << " missing was not refused:\n" << describe(problems);
      tested.insert(path);
    }
  }
  // Only the members the table marks are required: a 1.2 report may leave out the others.
  OrderedJson doc = golden_documents().front();
  doc["results"].erase("note");
  doc["measurement"].erase("stopping_rule");
  EXPECT_TRUE(validate_energy_json(doc).empty()) << describe(validate_energy_json(doc));
  EXPECT_GE(tested.size(), 150u);
}

TEST(FigureRanges, RangesPrintAndResolveAsDeclared) {
  EXPECT_EQ((FieldBounds{0, 1e5, true}).text(), "(0, 100000]");
  EXPECT_EQ((FieldBounds{0, 1, true, true}).text(), "(0, 1)");
  EXPECT_EQ(bounds::unbounded_non_negative.text(), "[0, inf)");
  EXPECT_FALSE((FieldBounds{0, 1e5, true}).contains(0));
  EXPECT_TRUE((FieldBounds{0, 1e5, true}).contains(1e5));
  EXPECT_EQ(bounds::in_parent.under(std::nullopt), std::nullopt);
  EXPECT_EQ(bounds::in_parent_signed.under(bounds::mj_per_token)->text(), "[-1e+07, 1e+07]");
}

}  // namespace
}  // namespace ecocompute::report
