// Where the tool writes for a user: the XDG data folder, never the shipped data folder.
#include <cstdlib>
#include <optional>
#include <string>

#include <gtest/gtest.h>

#include "util/file_io.hpp"

namespace ecocompute {
namespace {

// Sets (or, with nullopt, unsets) an environment variable for the test's life.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, std::optional<std::string> value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    if (value) ::setenv(name, value->c_str(), 1);
    else ::unsetenv(name);
  }
  ~ScopedEnv() {
    if (old_) ::setenv(name_, old_->c_str(), 1);
    else ::unsetenv(name_);
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  const char* name_;
  std::optional<std::string> old_;
};

TEST(UserDataDir, IsTheXdgDataFolderWhenSet) {
  const ScopedEnv xdg("XDG_DATA_HOME", "/srv/state");
  EXPECT_EQ(user_data_dir(), std::filesystem::path("/srv/state/ecocompute"));
}

TEST(UserDataDir, ElseUnderHome) {
  const ScopedEnv xdg("XDG_DATA_HOME", std::nullopt);
  const ScopedEnv home("HOME", "/home/ada");
  EXPECT_EQ(user_data_dir(), std::filesystem::path("/home/ada/.local/share/ecocompute"));
}

TEST(UserDataDir, IsNeverTheShippedDataFolder) {
  const ScopedEnv xdg("XDG_DATA_HOME", std::nullopt);
  const ScopedEnv home("HOME", std::nullopt);
  const auto dir = user_data_dir();
  EXPECT_FALSE(dir.empty());
  EXPECT_NE(dir, data_dir());
  EXPECT_EQ(dir.filename(), "ecocompute");
}

}  // namespace
}  // namespace ecocompute
