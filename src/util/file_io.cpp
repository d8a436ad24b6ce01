// Whole-file reads, atomic writes and sha256 (OpenSSL's EVP digest).
#include "util/file_io.hpp"

#include "util/install_layout.hpp"

#include <openssl/evp.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>

#include "ecocompute/build_info.hpp"

namespace ecocompute {
namespace fs = std::filesystem;

namespace {
struct DigestDeleter {
  void operator()(EVP_MD_CTX* ctx) const noexcept { EVP_MD_CTX_free(ctx); }
};
using Digest = std::unique_ptr<EVP_MD_CTX, DigestDeleter>;

Digest new_sha256() {
  Digest ctx(EVP_MD_CTX_new());
  ECO_CHECK(ctx != nullptr && EVP_DigestInit_ex(ctx.get(), EVP_sha256(), nullptr) == 1,
            "cannot initialise sha256");
  return ctx;
}

std::string finish_hex(EVP_MD_CTX* ctx) {
  std::array<unsigned char, EVP_MAX_MD_SIZE> digest{};
  unsigned int length = 0;
  ECO_CHECK(EVP_DigestFinal_ex(ctx, digest.data(), &length) == 1, "cannot finish sha256");
  static constexpr char hex[] = "0123456789abcdef";
  std::string out;
  out.reserve(length * 2);
  for (unsigned int i = 0; i < length; ++i) {
    out += hex[digest[i] >> 4];
    out += hex[digest[i] & 0xF];
  }
  return out;
}
}  // namespace

Result<std::string> read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    std::error_code ec;
    if (!fs::exists(path, ec)) return unexpected(ErrorCode::not_found, "no such file: " + path.string());
    return unexpected(ErrorCode::io, "cannot open " + path.string());
  }
  // One read of the size a regular file has, then whatever follows in chunks (a file that grew, or one
  // whose size says nothing, as /proc's and /sys's): copying through a string stream was a fifth of a
  // command's start-up, reading the shipped reports.
  std::string text;
  std::error_code ec;
  if (const auto size = fs::is_regular_file(path, ec) ? fs::file_size(path, ec) : 0; !ec && size > 0) {
    text.resize(static_cast<std::size_t>(size));
    in.read(text.data(), static_cast<std::streamsize>(size));
    text.resize(static_cast<std::size_t>(in.gcount()));
  }
  if (in.bad()) return unexpected(ErrorCode::io, "cannot read " + path.string());
  if (!in.eof()) {
    in.clear();
    std::array<char, 1 << 14> chunk{};
    while (in.read(chunk.data(), chunk.size()) || in.gcount() > 0) text.append(chunk.data(), static_cast<std::size_t>(in.gcount()));
  }
  if (in.bad()) return unexpected(ErrorCode::io, "cannot read " + path.string());
  return text;
}

Result<void> replace_file(const fs::path& path, const std::function<Result<void>(const fs::path&)>& write) {
  std::error_code ec;
  if (path.has_parent_path()) {
    fs::create_directories(path.parent_path(), ec);
    if (ec) return unexpected(ErrorCode::io, "cannot create folder " + path.parent_path().string() + ": " + ec.message());
  }
  fs::path temp = path;
  temp += ".tmp." + std::to_string(::getpid());
  fs::remove(temp, ec);  // left by an earlier process of the same id that stopped half-way
  if (auto written = write(temp); !written) {
    fs::remove(temp, ec);
    return written.error();
  }
  fs::rename(temp, path, ec);
  if (ec) {
    const std::string why = ec.message();
    fs::remove(temp, ec);
    return unexpected(ErrorCode::io, "cannot rename into " + path.string() + ": " + why);
  }
  return {};
}

Result<void> write_file_atomic(const fs::path& path, std::string_view content) {
  return replace_file(path, [&](const fs::path& temp) -> Result<void> {
    std::FILE* f = std::fopen(temp.c_str(), "wb");
    if (f == nullptr) return unexpected(ErrorCode::io, "cannot write " + temp.string());
    const bool written = std::fwrite(content.data(), 1, content.size(), f) == content.size();
    const bool flushed = std::fflush(f) == 0 && ::fsync(::fileno(f)) == 0;
    const bool closed = std::fclose(f) == 0;
    if (!(written && flushed && closed)) return unexpected(ErrorCode::io, "cannot write " + path.string() + " (disk full?)");
    return {};
  });
}

std::string sha256_hex(std::string_view bytes) {
  Digest ctx = new_sha256();
  EVP_DigestUpdate(ctx.get(), bytes.data(), bytes.size());
  return finish_hex(ctx.get());
}

Result<std::string> sha256_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return unexpected(ErrorCode::not_found, "cannot open " + path.string());
  Digest ctx = new_sha256();
  std::array<char, 1 << 16> chunk{};
  while (in) {
    in.read(chunk.data(), chunk.size());
    EVP_DigestUpdate(ctx.get(), chunk.data(), static_cast<size_t>(in.gcount()));
  }
  if (in.bad()) return unexpected(ErrorCode::io, "cannot read " + path.string());
  return finish_hex(ctx.get());
}

fs::path data_dir() {
  if (const char* env = std::getenv("ECOCOMPUTE_DATA_DIR"); env != nullptr && *env != '\0') return env;
  if (fs::path share = installed_share_dir(); !share.empty()) return share / "data";
  return build_info::default_data_dir;
}

fs::path cache_dir() {
  if (const char* dir = std::getenv("ECOCOMPUTE_CACHE_DIR"); dir != nullptr && *dir != '\0') return dir;
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg != nullptr && *xdg != '\0') return fs::path(xdg) / "ecocompute";
  if (const char* home = std::getenv("HOME"); home != nullptr && *home != '\0') return fs::path(home) / ".cache" / "ecocompute";
  std::error_code ec;
  return fs::temp_directory_path(ec) / "ecocompute";
}

fs::path user_data_dir() {
  if (const char* xdg = std::getenv("XDG_DATA_HOME"); xdg != nullptr && *xdg != '\0') return fs::path(xdg) / "ecocompute";
  if (const char* home = std::getenv("HOME"); home != nullptr && *home != '\0') {
    return fs::path(home) / ".local" / "share" / "ecocompute";
  }
  std::error_code ec;
  return fs::temp_directory_path(ec) / "ecocompute";
}

}  // namespace ecocompute
