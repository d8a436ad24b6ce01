// Static web files served from memory.
#include "server/static_files.hpp"

#include <cstdlib>

#include <fmt/format.h>

#include "ecocompute/build_info.hpp"
#include "util/file_io.hpp"
#include "util/install_layout.hpp"

namespace ecocompute::server {

namespace fs = std::filesystem;

std::string content_type_for(const fs::path& name) {
  static const std::map<std::string, std::string> types{
      {".html", "text/html; charset=utf-8"},   {".js", "text/javascript; charset=utf-8"},
      {".mjs", "text/javascript; charset=utf-8"}, {".css", "text/css; charset=utf-8"},
      {".json", "application/json"},           {".svg", "image/svg+xml"},
      {".png", "image/png"},                   {".ico", "image/x-icon"},
      {".txt", "text/plain; charset=utf-8"},   {".map", "application/json"},
      {".webmanifest", "application/manifest+json"}};
  const auto it = types.find(name.extension().string());
  return it == types.end() ? "application/octet-stream" : it->second;
}

Result<StaticFiles> StaticFiles::load(const fs::path& root) {
  std::error_code ec;
  if (!fs::is_directory(root, ec)) {
    return unexpected(ErrorCode::not_found, fmt::format("web folder {} does not exist", root.string()));
  }
  StaticFiles files;
  for (auto it = fs::recursive_directory_iterator(root, ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec)) {
    if (it->is_symlink(ec) || !it->is_regular_file(ec)) continue;
    auto content = read_file(it->path());
    if (!content) return content.error();
    const std::string key = "/" + fs::relative(it->path(), root, ec).generic_string();
    files.files_[key] = File{std::move(content).value(), content_type_for(it->path())};
  }
  if (ec) return unexpected(ErrorCode::io, fmt::format("cannot list web folder {}: {}", root.string(), ec.message()));
  if (!files.files_.contains("/index.html")) {
    return unexpected(ErrorCode::not_found, fmt::format("web folder {} has no index.html", root.string()));
  }
  return files;
}

StaticFiles StaticFiles::placeholder(const std::string& reason) {
  StaticFiles files;
  std::string escaped;
  for (const char c : reason) {
    switch (c) {
      case '<': escaped += "&lt;"; break;
      case '>': escaped += "&gt;"; break;
      case '&': escaped += "&amp;"; break;
      default: escaped += c;
    }
  }
  files.files_["/index.html"] =
      File{fmt::format("<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>EcoCompute</title></head>"
                       "<body><h1>EcoCompute</h1><p>The web UI is not available: {}</p><p>The API is: see "
                       "<a href=\"/openapi.json\">/openapi.json</a>.</p></body></html>\n",
                       escaped),
           "text/html; charset=utf-8"};
  return files;
}

Result<HttpResponse> StaticFiles::serve(const HttpRequest& request) const {
  const std::string key = request.path == "/" ? "/index.html" : request.path;
  const auto it = files_.find(key);
  if (it == files_.end()) return unexpected(ErrorCode::not_found, fmt::format("no such path: {}", request.path));
  HttpResponse response;
  response.content_type = it->second.content_type;
  response.body = it->second.content;
  // The page itself is revalidated so a new build shows at once; its assets may be cached briefly.
  response.set_header("Cache-Control", key == "/index.html" ? "no-cache" : "public, max-age=300");
  return response;
}

fs::path default_web_root() {
  if (const char* env = std::getenv("ECOCOMPUTE_WEB_DIR"); env != nullptr && *env != '\0') return env;
  if (fs::path share = installed_share_dir(); !share.empty()) return share / "web" / "dist";
  return fs::path(build_info::default_data_dir).parent_path() / "web" / "dist";
}

}  // namespace ecocompute::server
