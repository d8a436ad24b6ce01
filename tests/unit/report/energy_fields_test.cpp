// The field table against what describes energy.json elsewhere: the "Fields" reference in
// docs/energy-json.md is the table's own listing, and the shipped JSON Schema (1.2 rules) has exactly
// the table's fields, with the table's JSON types, required lists and ranges.
#include "report/energy_field_list.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <map>
#include <set>
#include <string>

#include "report/energy_schema.hpp"
#include "report/schema_from_table.hpp"
#include "util/file_io.hpp"
#include "util/json.hpp"

namespace ecocompute::report {
namespace {

namespace fs = std::filesystem;

const fs::path kDoc = fs::path(ECOCOMPUTE_SOURCE_DIR) / "docs" / "energy-json.md";
constexpr std::string_view kBegin = "<!-- fields: generated from src/report/energy_fields.hpp -->\n";
constexpr std::string_view kEnd = "<!-- end of fields -->";

TEST(EnergyFields, TheDocsListTheTable) {
  const std::string doc = read_file(kDoc).value_or("");
  const auto begin = doc.find(kBegin);
  const auto end = doc.find(kEnd);
  ASSERT_NE(begin, std::string::npos) << kDoc << " has no generated field list (" << kBegin << ")";
  ASSERT_NE(end, std::string::npos) << kDoc << " does not close its field list (" << kEnd << ")";
  const std::size_t from = begin + kBegin.size();
  const std::string listed = doc.substr(from, end - from);
  const std::string table = energy_fields_markdown();
  if (const char* update = std::getenv("ECOCOMPUTE_UPDATE_GOLDEN"); update != nullptr && std::string(update) == "1") {
    ASSERT_TRUE(write_file_atomic(kDoc, doc.substr(0, from) + table + doc.substr(end)).has_value());
    return;
  }
  EXPECT_EQ(listed, table) << kDoc << "'s field list differs from the table (ECOCOMPUTE_UPDATE_GOLDEN=1 rewrites it)";
}

// The schema's 1.2 report as path → JSON types, walked through $ref and allOf as the
// validator does; a list's items are "path[]".
struct SchemaField {
  std::set<std::string> types;
};

class SchemaWalk {
 public:
  explicit SchemaWalk(const Json& schema) : definitions_(schema.at("definitions")) {}
  std::map<std::string, SchemaField> walk() {
    visit(definitions_.at("report_1_2"), "");
    return fields_;
  }

 private:
  const Json& resolve(const Json* node) const {
    while (node->is_object() && node->contains("$ref")) {
      const std::string ref = node->at("$ref").get<std::string>();
      node = &definitions_.at(ref.substr(ref.rfind('/') + 1));
    }
    return *node;
  }
  void visit(const Json& raw, const std::string& prefix) {
    const Json& node = resolve(&raw);
    if (!node.is_object()) return;
    for (const char* combined : {"allOf", "anyOf", "oneOf"}) {
      if (node.contains(combined)) for (const Json& part : node.at(combined)) visit(part, prefix);
    }
    if (node.contains("properties")) {
      for (const auto& [key, child] : node.at("properties").items()) {
        SchemaField& field = fields_[prefix + key];
        const Json& resolved = resolve(&child);
        if (resolved.contains("type")) {
          const Json& type = resolved.at("type");
          if (type.is_string()) field.types.insert(type.get<std::string>());
          else for (const Json& t : type) field.types.insert(t.get<std::string>());
        }
        visit(child, prefix + key + ".");
      }
    }
    if (node.contains("items") && !prefix.empty()) visit(node.at("items"), prefix.substr(0, prefix.size() - 1) + "[].");
  }

  const Json& definitions_;
  std::map<std::string, SchemaField> fields_;
};

// The JSON types a field of the table may have in the schema.
std::string json_type(const std::string& table_type) {
  if (table_type.starts_with("string")) return "string";
  if (table_type.starts_with("whole number")) return "integer";
  if (table_type.starts_with("object")) return "object";
  if (table_type.starts_with("array")) return "array";
  return table_type;  // number, boolean
}

TEST(EnergyFields, TheSchemaHasTheTablesFields) {
  const auto schema = SchemaWalk(Json::parse(energy_schema_text())).walk();
  std::set<std::string> table_paths;
  for (const EnergyFieldInfo& f : energy_report_fields()) {
    table_paths.insert(f.path);
    const auto it = schema.find(f.path);
    if (it == schema.end()) {
      ADD_FAILURE() << f.path << " is in the table but not in the 1.2 schema";
      continue;
    }
    // Types only: which fields the 1.2 schema requires is the schema's rule (measure fills optional members).
    if (it->second.types.empty()) continue;  // a choice of schemas (a window or null): its parts are checked
    EXPECT_TRUE(it->second.types.contains(json_type(f.type))) << f.path << ": " << f.type;
  }
  for (const auto& [path, field] : schema) EXPECT_TRUE(table_paths.contains(path)) << path << " is in the schema but not in the table";
}

TEST(EnergyFields, TheEmbeddedSchemaIsTheTablesSchema) {
  const Json embedded = Json::parse(energy_schema_text());
  const Json generated = energy_schema_from_table(energy_schema_text());
  for (const Json& change : Json::diff(embedded, generated)) {
    ADD_FAILURE() << "src/report/embed/energy.schema.json differs from the field table at " << change.at("path")
                  << ": the table has " << change.value("value", Json("nothing"));
  }
}

TEST(EnergyFields, ARangeOrRequirementOfTheSchemaComesFromTheTable) {
  // Taken out of the file, each is written back from the table.
  Json edited = Json::parse(energy_schema_text());
  Json& results = edited["definitions"]["report_1_2"]["properties"]["results"];
  results["properties"]["total_energy_joules"].erase("maximum");
  results["properties"]["total_energy_joules"]["minimum"] = -5;
  results["required"] = Json::array();
  const Json generated = energy_schema_from_table(edited.dump());
  EXPECT_EQ(generated, Json::parse(energy_schema_text()));
  // A field of the table the schema has no place for is a mistake of the build.
  edited["definitions"]["report_1_2"]["properties"]["results"]["properties"].erase("note");
  EXPECT_THROW((void)energy_schema_from_table(edited.dump()), std::logic_error);
}

TEST(EnergyFields, PathsWithIndicesAreFieldsOfTheTable) {
  EXPECT_TRUE(is_energy_report_field("results.total_energy_joules"));
  EXPECT_TRUE(is_energy_report_field("trials[12].decode.energy_per_token_mj"));
  EXPECT_TRUE(is_energy_report_field("trials"));
  EXPECT_FALSE(is_energy_report_field("results.total_energy_j"));
}

}  // namespace
}  // namespace ecocompute::report
