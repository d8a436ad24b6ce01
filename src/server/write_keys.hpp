// Write keys: who may store a replication. A key is a random secret handed to an uploader once; the
// server keeps only its SHA-256, one line per key ("NAME sha256:HEX") in the file `serve --write-keys`
// names. Revoking a key is removing its line (`ecocompute keys revoke NAME`): the file is read again
// when it changes, so no restart is needed. Reads never need a key.
//
//   ecocompute keys add alice --file keys.txt     # prints the key once; stores its hash
//   ecocompute serve --host 0.0.0.0 --write-keys keys.txt
//   curl -H "Authorization: Bearer eck_…" -H "Content-Type: application/json" --data @energy.json …/v1/replications
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "util/result.hpp"

namespace ecocompute::server {

/// One key as stored: its holder's name and the hex SHA-256 of the secret.
struct StoredWriteKey {
  std::string name;
  std::string sha256;
};

/// Returns a new secret: "eck_" and 64 hex digits (256 random bits).
[[nodiscard]] std::string new_write_key();

/// Parses a key file: one "NAME sha256:HEX" per line; blank lines and lines starting with '#' are
/// skipped. Error (invalid_input, naming the file and line) on anything else or a name given twice.
[[nodiscard]] Result<std::vector<StoredWriteKey>> parse_write_keys(std::string_view text, std::string_view source);

/// Adds a key for `name` to the file (created with mode 0600 if missing) and returns the secret,
/// which is stored nowhere. Error when the name is taken or not [A-Za-z0-9._@-]{1,64}.
[[nodiscard]] Result<std::string> add_write_key(const std::filesystem::path& file, std::string_view name);

/// Removes the key of `name`; error (not_found) when there is none.
[[nodiscard]] Result<void> revoke_write_key(const std::filesystem::path& file, std::string_view name);

/// The key file a server checks uploads against, read again whenever it changes. Thread-safe.
class WriteKeyFile {
 public:
  /// Reads `file`; the error names it (a server that was asked for keys does not start without them).
  static Result<std::shared_ptr<WriteKeyFile>> open(const std::filesystem::path& file);

  /// Returns the name of the key `authorization` (an HTTP Authorization header, "Bearer <secret>")
  /// carries, or nothing when it carries none of the current keys. A file that became unreadable
  /// refuses every key until it reads again (fail closed).
  [[nodiscard]] std::optional<std::string> holder(std::string_view authorization);

  [[nodiscard]] const std::filesystem::path& path() const noexcept { return path_; }

 private:
  explicit WriteKeyFile(std::filesystem::path path) : path_(std::move(path)) {}
  void reload_if_changed();

  std::filesystem::path path_;
  std::mutex mutex_;
  std::vector<StoredWriteKey> keys_;
  std::filesystem::file_time_type modified_{};
  std::uintmax_t size_ = 0;
};

/// Whether `host` (a --host value) is this machine only: 127.0.0.0/8, ::1 or localhost.
[[nodiscard]] bool is_loopback_host(std::string_view host) noexcept;

}  // namespace ecocompute::server
