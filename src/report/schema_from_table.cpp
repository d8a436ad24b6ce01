// Writes the table's required lists and bounds into the 1.2 rules, walking each field's path through
// the schema's properties, items and references.
#include "report/schema_from_table.hpp"

#include <cmath>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "report/energy_field_list.hpp"

namespace ecocompute::report {
namespace {

class SchemaEditor {
 public:
  explicit SchemaEditor(Json& schema) : definitions_(schema.at("definitions")) {}

  // The object a path's members live in: "" is the 1.2 report itself; "trials[].decode" the window.
  Json& section(const std::string& path) {
    Json* node = &resolve(definitions_.at("report_1_2"));
    std::size_t from = 0;
    while (!path.empty() && from <= path.size()) {
      const std::size_t dot = path.find('.', from);
      std::string key = path.substr(from, dot == std::string::npos ? std::string::npos : dot - from);
      node = &member(*node, key, path);
      if (dot == std::string::npos) break;
      from = dot + 1;
    }
    return *node;
  }

  // A member of a section: its own node, or the node its reference or list items lead to.
  Json& member(Json& section, std::string key, const std::string& path) {
    const bool list = key.ends_with("[]");
    if (list) key.resize(key.size() - 2);
    if (!section.contains("properties") || !section["properties"].contains(key)) {
      throw std::logic_error("the 1.2 schema has no place for " + path);
    }
    Json* node = &resolve(section["properties"][key]);
    if (list) node = &resolve(node->at("items"));
    return *node;
  }

  Json& leaf(Json& section, const std::string& key, const std::string& path) {
    if (!section.contains("properties") || !section["properties"].contains(key)) {
      throw std::logic_error("the 1.2 schema has no place for " + path);
    }
    return section["properties"][key];
  }

 private:
  Json& resolve(Json& node) {
    Json* at = &node;
    while (at->is_object() && at->contains("$ref")) {
      const std::string ref = at->at("$ref").get<std::string>();
      at = &definitions_.at(ref.substr(ref.rfind('/') + 1));
    }
    return *at;
  }

  Json& definitions_;
};

// Whole bounds are written as whole numbers, as a person writes them in the schema.
Json number(double v) {
  if (std::trunc(v) == v && std::abs(v) < 9e15) return static_cast<std::int64_t>(v);
  return v;
}

void write_bounds(Json& node, const std::optional<FieldBounds>& bounds, const std::string& path) {
  if (node.contains("$ref")) {
    if (bounds) throw std::logic_error(path + " is bounded but refers to a shared definition");
    return;
  }
  for (const char* key : {"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"}) node.erase(key);
  if (!bounds) return;
  if (std::isfinite(bounds->low)) node[bounds->low_open ? "exclusiveMinimum" : "minimum"] = number(bounds->low);
  if (std::isfinite(bounds->high)) node[bounds->high_open ? "exclusiveMaximum" : "maximum"] = number(bounds->high);
}

}  // namespace

Json energy_schema_from_table(std::string_view schema_text) {
  Json schema = Json::parse(schema_text);
  SchemaEditor editor(schema);
  // Each section's required members, in the table's order; sections are the paths with members.
  std::map<std::string, std::vector<std::string>> required;
  std::map<std::string, bool> sections;
  for (const EnergyFieldInfo& f : energy_report_fields()) {
    const std::size_t dot = f.path.rfind('.');
    const std::string parent = dot == std::string::npos ? "" : f.path.substr(0, dot);
    const std::string key = dot == std::string::npos ? f.path : f.path.substr(dot + 1);
    sections[parent] = true;
    if (f.in_every_1_2) required[parent].push_back(key);
    write_bounds(editor.leaf(editor.section(parent), key, f.path), f.bounds, f.path);
  }
  for (const auto& [path, unused] : sections) {
    Json& node = editor.section(path);
    const auto it = required.find(path);
    if (it == required.end()) node.erase("required");
    else node["required"] = it->second;
  }
  return schema;
}

}  // namespace ecocompute::report
