#include "util/install_layout.hpp"

#include <system_error>

namespace ecocompute {

namespace fs = std::filesystem;

fs::path installed_share_dir() {
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (ec) return {};
  fs::path share = exe.parent_path().parent_path() / "share" / "ecocompute";
  return fs::is_directory(share / "data", ec) ? share : fs::path{};
}

}  // namespace ecocompute
