// Golden-file comparison: expected output lives in tests/golden/; ECOCOMPUTE_UPDATE_GOLDEN=1 rewrites it.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "util/file_io.hpp"

namespace ecocompute::testing {

inline std::filesystem::path golden_path(const std::string& name) {
  return std::filesystem::path(ECOCOMPUTE_SOURCE_DIR) / "tests" / "golden" / name;
}

/// Expects `actual` to equal the golden file `name` byte for byte.
inline void expect_golden(const std::string& name, const std::string& actual) {
  const std::filesystem::path path = golden_path(name);
  if (const char* update = std::getenv("ECOCOMPUTE_UPDATE_GOLDEN"); update != nullptr && std::string(update) == "1") {
    ASSERT_TRUE(write_file_atomic(path, actual).has_value()) << path;
    return;
  }
  auto expected = read_file(path);
  ASSERT_TRUE(expected.has_value()) << "missing golden file " << path
                                    << " (run with ECOCOMPUTE_UPDATE_GOLDEN=1 to create it, then review it)";
  EXPECT_EQ(*expected, actual) << "output differs from " << path;
}

}  // namespace ecocompute::testing
