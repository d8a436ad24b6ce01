// Write keys: generation, the hashed key file, and checking a request's bearer key.
#include "server/write_keys.hpp"

#include <fcntl.h>
#include <sys/stat.h>

#include <algorithm>
#include <cctype>
#include <memory>
#include <random>

#include <fmt/format.h>

#include "util/file_io.hpp"
#include "util/log.hpp"
#include "util/quoted_input.hpp"

namespace ecocompute::server {
namespace fs = std::filesystem;
namespace {

constexpr std::string_view kHashPrefix = "sha256:";

bool valid_name(std::string_view name) {
  if (name.empty() || name.size() > 64) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '@' || c == '-';
  });
}

bool valid_hash(std::string_view hex) {
  return hex.size() == 64 && std::all_of(hex.begin(), hex.end(), [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

// Compares two digests in time independent of where they differ.
bool same_digest(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  unsigned char diff = 0;
  for (std::size_t i = 0; i < a.size(); ++i) diff |= static_cast<unsigned char>(a[i] ^ b[i]);
  return diff == 0;
}

std::string file_text(const std::vector<StoredWriteKey>& keys) {
  std::string text = "# ecocompute write keys: NAME sha256:HEX of the secret (the secrets are not kept). Remove a line to revoke.\n";
  for (const StoredWriteKey& k : keys) text += fmt::format("{} {}{}\n", k.name, kHashPrefix, k.sha256);
  return text;
}

Result<std::vector<StoredWriteKey>> read_keys(const fs::path& file, bool missing_is_empty) {
  std::error_code ec;
  if (missing_is_empty && !fs::exists(file, ec)) return std::vector<StoredWriteKey>{};
  auto text = read_file(file);
  if (!text) return text.error();
  return parse_write_keys(*text, file.string());
}

Result<void> write_keys(const fs::path& file, const std::vector<StoredWriteKey>& keys) {
  if (auto written = write_file_atomic(file, file_text(keys)); !written) return written.error();
  ::chmod(file.c_str(), S_IRUSR | S_IWUSR);  // hashes only, but nobody else's business
  return {};
}

}  // namespace

std::string new_write_key() {
  std::random_device entropy;  // the kernel's random source on Linux
  std::string key = "eck_";
  for (int i = 0; i < 8; ++i) key += fmt::format("{:08x}", entropy());
  return key;
}

Result<std::vector<StoredWriteKey>> parse_write_keys(std::string_view text, std::string_view source) {
  std::vector<StoredWriteKey> keys;
  std::size_t line_number = 0;
  for (std::size_t start = 0; start <= text.size();) {
    const std::size_t end = std::min(text.find('\n', start), text.size());
    std::string_view line = text.substr(start, end - start);
    start = end + 1;
    ++line_number;
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ' || line.back() == '\t')) line.remove_suffix(1);
    if (line.empty() || line.front() == '#') continue;
    const std::size_t space = line.find(' ');
    const std::string_view name = line.substr(0, space);
    const std::string_view hash = space == std::string_view::npos ? std::string_view() : line.substr(space + 1);
    if (!valid_name(name) || !hash.starts_with(kHashPrefix) || !valid_hash(hash.substr(kHashPrefix.size()))) {
      return unexpected(ErrorCode::invalid_input, fmt::format("{}:{}: not \"NAME sha256:HEX\" (64 lower-case hex digits)", source, line_number));
    }
    if (std::any_of(keys.begin(), keys.end(), [&](const StoredWriteKey& k) { return k.name == name; })) {
      return unexpected(ErrorCode::invalid_input, fmt::format("{}:{}: the name {} is given twice", source, line_number, name));
    }
    keys.push_back({std::string(name), std::string(hash.substr(kHashPrefix.size()))});
  }
  return keys;
}

Result<std::string> add_write_key(const fs::path& file, std::string_view name) {
  if (!valid_name(name)) {
    return unexpected(ErrorCode::invalid_argument, fmt::format("key name {} must be 1–64 of A-Z a-z 0-9 . _ @ -", quoted_input(name)));
  }
  auto keys = read_keys(file, true);
  if (!keys) return keys.error();
  if (std::any_of(keys->begin(), keys->end(), [&](const StoredWriteKey& k) { return k.name == name; })) {
    return unexpected(ErrorCode::conflict, fmt::format("{} already has a key in {} (revoke it first)", name, file.string()));
  }
  std::string secret = new_write_key();
  keys->push_back({std::string(name), sha256_hex(secret)});
  if (auto written = write_keys(file, *keys); !written) return written.error();
  return secret;
}

Result<void> revoke_write_key(const fs::path& file, std::string_view name) {
  auto keys = read_keys(file, false);
  if (!keys) return keys.error();
  const auto it = std::find_if(keys->begin(), keys->end(), [&](const StoredWriteKey& k) { return k.name == name; });
  if (it == keys->end()) return unexpected(ErrorCode::not_found, fmt::format("no key named {} in {}", quoted_input(name), file.string()));
  keys->erase(it);
  return write_keys(file, *keys);
}

Result<std::shared_ptr<WriteKeyFile>> WriteKeyFile::open(const fs::path& file) {
  auto keys = read_keys(file, false);
  if (!keys) return Error{ErrorCode::invalid_argument, "--write-keys " + file.string(), keys.error()};
  std::shared_ptr<WriteKeyFile> out(new WriteKeyFile(file));
  out->keys_ = std::move(*keys);
  std::error_code ec;
  out->modified_ = fs::last_write_time(file, ec);
  out->size_ = fs::file_size(file, ec);
  if (out->keys_.empty()) log::warn("{} holds no key: every upload will be refused", file.string());
  return out;
}

void WriteKeyFile::reload_if_changed() {
  std::error_code ec;
  const auto modified = fs::last_write_time(path_, ec);
  const auto size = ec ? 0 : fs::file_size(path_, ec);
  if (!ec && modified == modified_ && size == size_) return;
  auto keys = read_keys(path_, false);
  if (!keys) {
    log::error("write keys: {}; refusing every upload until it reads again", keys.error().describe());
    keys_.clear();
    modified_ = {};
    return;
  }
  keys_ = std::move(*keys);
  modified_ = modified;
  size_ = size;
  log::info("write keys: read {} key{} from {}", keys_.size(), keys_.size() == 1 ? "" : "s", path_.string());
}

std::optional<std::string> WriteKeyFile::holder(std::string_view authorization) {
  constexpr std::string_view kScheme = "Bearer ";
  if (authorization.size() < kScheme.size() ||
      !std::equal(kScheme.begin(), kScheme.end(), authorization.begin(),
                   [](char a, char b) { return std::tolower(static_cast<unsigned char>(a)) == std::tolower(static_cast<unsigned char>(b)); })) {
    return std::nullopt;
  }
  std::string_view secret = authorization.substr(kScheme.size());
  while (!secret.empty() && secret.front() == ' ') secret.remove_prefix(1);
  if (secret.empty() || secret.size() > 256) return std::nullopt;
  const std::string digest = sha256_hex(secret);
  std::lock_guard lock(mutex_);
  reload_if_changed();
  for (const StoredWriteKey& key : keys_) {
    if (same_digest(key.sha256, digest)) return key.name;
  }
  return std::nullopt;
}

bool is_loopback_host(std::string_view host) noexcept {
  return host == "localhost" || host == "::1" || host == "[::1]" || host.starts_with("127.");
}

}  // namespace ecocompute::server
