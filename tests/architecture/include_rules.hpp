// The include rules of docs/architecture.md as a checker: reads the "allowed includes" table and
// finds every `#include "<module>/…"` in src/ that the table does not allow.
#pragma once

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace ecocompute::architecture {

/// module → the modules it may include (its own folder is always allowed).
using IncludeTable = std::map<std::string, std::set<std::string>>;

/// Reads the table between `<!-- allowed-includes -->` and `<!-- /allowed-includes -->`: rows
/// "| module | a, b, c |" ("—" for none). Throws std::runtime_error when the markers or rows are missing.
inline IncludeTable read_include_table(const std::filesystem::path& markdown) {
  std::ifstream in(markdown);
  if (!in) throw std::runtime_error("cannot read " + markdown.string());
  IncludeTable table;
  std::string line;
  bool inside = false;
  static const std::regex row(R"(^\|\s*`?([a-z]+)`?\s*\|\s*([^|]*)\|\s*$)");
  while (std::getline(in, line)) {
    if (line.find("<!-- allowed-includes -->") != std::string::npos) { inside = true; continue; }
    if (line.find("<!-- /allowed-includes -->") != std::string::npos) break;
    std::smatch m;
    if (!inside || !std::regex_match(line, m, row) || m[1] == "module") continue;
    std::set<std::string>& allowed = table[m[1]];
    std::stringstream list(m[2].str());
    std::string item;
    while (std::getline(list, item, ',')) {
      item.erase(0, item.find_first_not_of(" `"));
      item.erase(item.find_last_not_of(" `") + 1);
      if (!item.empty() && item != "—" && item != "-") allowed.insert(item);
    }
  }
  if (table.empty()) throw std::runtime_error(markdown.string() + " has no allowed-includes table");
  return table;
}

/// One include that breaks the table: "src/report/x.cpp:12 includes engine/engine.hpp (report may include util)".
struct Violation {
  std::string where;
  std::string message;
};

/// Checks every .hpp/.cpp/.cu under `src` (one folder per module): an include of another module's
/// header must be allowed by `table`; a folder missing from the table is itself a violation.
inline std::vector<Violation> find_include_violations(const std::filesystem::path& src, const IncludeTable& table) {
  std::vector<Violation> out;
  static const std::regex include(R"(^\s*#\s*include\s*"([a-z_]+)/[^"]+")");
  for (const auto& folder : std::filesystem::directory_iterator(src)) {
    if (!folder.is_directory()) continue;
    const std::string module = folder.path().filename().string();
    const auto rules = table.find(module);
    if (rules == table.end()) {
      out.push_back({folder.path().string(), "module '" + module + "' is not in the allowed-includes table"});
      continue;
    }
    for (const auto& entry : std::filesystem::recursive_directory_iterator(folder.path())) {
      const std::string ext = entry.path().extension().string();
      if (!entry.is_regular_file() || (ext != ".hpp" && ext != ".cpp" && ext != ".cu")) continue;
      std::ifstream in(entry.path());
      std::string line;
      for (int number = 1; std::getline(in, line); ++number) {
        std::smatch m;
        if (!std::regex_search(line, m, include)) continue;
        const std::string target = m[1];
        // "ecocompute/…" are generated headers (build info, embedded files) of no module.
        if (target == module || target == "ecocompute" || rules->second.contains(target)) continue;
        std::string allowed;
        for (const std::string& a : rules->second) allowed += (allowed.empty() ? "" : ", ") + a;
        out.push_back({entry.path().string() + ":" + std::to_string(number),
                       "includes " + target + "/… (" + module + " may include " +
                           (allowed.empty() ? "nothing" : allowed) + ")"});
      }
    }
  }
  return out;
}

}  // namespace ecocompute::architecture
