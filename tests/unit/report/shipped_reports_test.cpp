// Every energy report shipped in the repository (data/sessions, the test fixtures) must read and be
// written again exactly as the hand-written converter wrote it before the field table replaced it: the
// digests in fixtures/canonical_digests.txt were taken from that converter's output, so any change the
// table makes to a byte of any shipped report shows here. ECOCOMPUTE_WRITE_DIGESTS=1 rewrites the list
// (for reports added later; review the diff: an existing line must never change).
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <map>
#include <sstream>
#include <string>

#include "report/energy_report.hpp"
#include "util/file_io.hpp"
#include "util/json.hpp"

namespace ecocompute::report {
namespace {

namespace fs = std::filesystem;

const fs::path kRoot = ECOCOMPUTE_SOURCE_DIR;
const fs::path kDigests = kRoot / "tests" / "unit" / "report" / "fixtures" / "canonical_digests.txt";

// The same selection as the consistency test's: every energy.json under these folders.
std::map<std::string, std::string> canonical_digests() {
  std::map<std::string, std::string> out;
  for (const char* folder : {"data/sessions", "tests/golden", "tests/unit/server/fixtures", "tests/unit/data/fixtures"}) {
    for (const auto& entry : fs::recursive_directory_iterator(kRoot / folder)) {
      if (entry.path().extension() != ".json") continue;
      auto document = read_json_file(entry.path());
      if (!document || !document->is_object() || !document->value("schema_version", "").starts_with("ecocompute-energy/")) continue;
      const std::string relative = fs::relative(entry.path(), kRoot).generic_string();
      auto report = energy_report_from_json(*document, relative);
      // A report the reader refuses is recorded by the digest of its message, which must not change either.
      out[relative] = report ? sha256_hex(to_json(*report).dump(2) + "\n") : "error:" + sha256_hex(report.error().message());
    }
  }
  return out;
}

std::map<std::string, std::string> recorded_digests() {
  std::map<std::string, std::string> out;
  std::istringstream lines(read_file(kDigests).value_or(""));
  std::string digest;
  std::string path;
  while (lines >> digest >> path) out[path] = digest;
  return out;
}

TEST(ShippedReports, ReadAndWrittenAgainAsTheHandWrittenConverterWroteThem) {
  const std::map<std::string, std::string> actual = canonical_digests();
  ASSERT_GT(actual.size(), 300u) << "the shipped reports were not found under " << kRoot;
  if (const char* write = std::getenv("ECOCOMPUTE_WRITE_DIGESTS"); write != nullptr && std::string(write) == "1") {
    std::string text;
    for (const auto& [path, digest] : actual) text += digest + " " + path + "\n";
    ASSERT_TRUE(write_file_atomic(kDigests, text).has_value());
    return;
  }
  const std::map<std::string, std::string> recorded = recorded_digests();
  for (const auto& [path, digest] : actual) {
    const auto it = recorded.find(path);
    if (it == recorded.end()) {
      ADD_FAILURE() << path << " has no recorded digest (ECOCOMPUTE_WRITE_DIGESTS=1 adds it)";
    } else {
      EXPECT_EQ(digest, it->second) << path << " is no longer written as it was";
    }
  }
  for (const auto& [path, digest] : recorded) {
    EXPECT_TRUE(actual.contains(path)) << path << " is recorded but no longer shipped";
  }
}

}  // namespace
}  // namespace ecocompute::report
