// StaticFiles: the web UI's files, read into memory once and served by exact path. A request can only
// name a file that was found under the root at start-up, so "..", encoded slashes or symlinks cannot
// reach anything else.
#pragma once

#include <filesystem>
#include <map>
#include <string>

#include "server/http_message.hpp"
#include "util/result.hpp"

namespace ecocompute::server {

class StaticFiles {
 public:
  /// Reads every regular file under `root` (symlinks are skipped) into memory; `/` serves index.html.
  /// The error names the root when it does not exist or has no index.html.
  static Result<StaticFiles> load(const std::filesystem::path& root);

  /// Returns a set holding only an index page that says why the real assets are missing.
  static StaticFiles placeholder(const std::string& reason);

  /// Answers a GET for `request.path`: the file with its content type, or a not_found Error.
  [[nodiscard]] Result<HttpResponse> serve(const HttpRequest& request) const;

  /// Returns the number of files held.
  [[nodiscard]] std::size_t size() const noexcept { return files_.size(); }

 private:
  struct File {
    std::string content;
    std::string content_type;
  };
  std::map<std::string, File> files_;  // "/index.html" → file
};

/// Returns the content type for a file name by its extension ("application/octet-stream" if unknown).
std::string content_type_for(const std::filesystem::path& name);

/// Returns the folder the web UI is served from by default: $ECOCOMPUTE_WEB_DIR if set, else an
/// installed binary's <prefix>/share/ecocompute/web/dist, else the source tree's web/dist (built by
/// `npm ci && npm run build` in web/).
std::filesystem::path default_web_root();

}  // namespace ecocompute::server
