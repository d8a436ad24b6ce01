// The layering of DESIGN.md §3 as a test: every #include in src/ against the table in
// docs/architecture.md, and the checker itself against a tree that breaks it.
#include "include_rules.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

namespace ecocompute::architecture {
namespace {

namespace fs = std::filesystem;

const fs::path kSource = ECOCOMPUTE_SOURCE_DIR;

TEST(IncludeRules, TableNamesEveryModuleOfDesign) {
  const IncludeTable table = read_include_table(kSource / "docs/architecture.md");
  for (const char* module : {"util", "meter", "engine", "report", "modelgen", "protocol", "quality", "experiment",
                             "data", "server", "mcp", "sweep", "proxy", "cli"}) {
    EXPECT_TRUE(table.contains(module)) << module;
  }
  EXPECT_TRUE(table.at("util").empty());
  EXPECT_EQ(table.at("report"), (std::set<std::string>{"util"}));  // readers of reports link no llama.cpp
  EXPECT_EQ(table.at("data"), (std::set<std::string>{"util", "report"}));
  // A sweep measures through the experiment library only, and reads no dataset (DESIGN.md §3).
  EXPECT_EQ(table.at("sweep"), (std::set<std::string>{"util", "report", "experiment"}));
}

TEST(IncludeRules, EveryIncludeInSrcIsAllowed) {
  const IncludeTable table = read_include_table(kSource / "docs/architecture.md");
  const std::vector<Violation> violations = find_include_violations(kSource / "src", table);
  for (const Violation& v : violations) ADD_FAILURE() << v.where << ": " << v.message;
}

TEST(IncludeRules, TheCheckerFindsAWrongInclude) {
  const fs::path root = fs::temp_directory_path() / ("ecocompute-include-rules-" + std::to_string(::getpid()));
  fs::remove_all(root);
  fs::create_directories(root / "src/report");
  fs::create_directories(root / "src/engine");
  fs::create_directories(root / "src/stray");
  std::ofstream(root / "src/report/r.cpp") << "#include \"report/r.hpp\"\n#include \"util/log.hpp\"\n"
                                           << "  #  include \"engine/engine.hpp\"\n#include <vector>\n";
  std::ofstream(root / "src/engine/e.cpp") << "#include \"ecocompute/build_info.hpp\"\n";
  const IncludeTable table{{"report", {"util"}}, {"engine", {"util"}}};
  const std::vector<Violation> violations = find_include_violations(root / "src", table);
  ASSERT_EQ(violations.size(), 2u);
  std::set<std::string> messages;
  for (const Violation& v : violations) messages.insert(v.where + " " + v.message);
  EXPECT_TRUE(messages.contains((root / "src/report/r.cpp").string() + ":3 includes engine/… (report may include util)"))
      << *messages.begin();
  EXPECT_TRUE(messages.contains((root / "src/stray").string() + " module 'stray' is not in the allowed-includes table"));
  fs::remove_all(root);
}

}  // namespace
}  // namespace ecocompute::architecture
