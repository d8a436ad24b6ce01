// The HTTP client side of the replications route.
#include "sweep/report_upload.hpp"

// Debian's libcpp-httplib is compiled with these; the header must see the same, or its classes'
// layout differs from the library's.
#define CPPHTTPLIB_OPENSSL_SUPPORT
#define CPPHTTPLIB_ZLIB_SUPPORT
#define CPPHTTPLIB_BROTLI_SUPPORT
#include <httplib.h>

#include <fmt/format.h>

#include "util/file_io.hpp"
#include "util/json.hpp"

namespace ecocompute::sweep {

Result<std::string> read_write_key(const std::filesystem::path& path) {
  auto text = read_file(path);
  if (!text) return Error{ErrorCode::invalid_input, "--post-key-file: cannot read " + path.string(), text.error()};
  std::string key = text->substr(0, text->find('\n'));
  const auto blank = [](char c) { return c == ' ' || c == '\t' || c == '\r'; };
  while (!key.empty() && blank(key.back())) key.pop_back();
  while (!key.empty() && blank(key.front())) key.erase(key.begin());
  if (key.empty()) return unexpected(ErrorCode::invalid_input, "--post-key-file: " + path.string() + " holds no key");
  return key;
}

Result<UploadAnswer> upload_report(const std::string& base_url, const std::filesystem::path& path, const std::string& key) {
  if (!base_url.starts_with("http://") && !base_url.starts_with("https://")) {
    return unexpected(ErrorCode::invalid_argument, fmt::format("--post: '{}' is not an http:// or https:// URL", base_url));
  }
  std::string base = base_url;
  while (base.ends_with('/')) base.pop_back();
  auto body = read_file(path);
  if (!body) return body.error();
  httplib::Client client(base);
  client.set_connection_timeout(10);
  client.set_read_timeout(60);
  if (!key.empty()) client.set_bearer_token_auth(key);
  const httplib::Result response = client.Post("/v1/replications", *body, "application/json");
  if (!response) {
    return unexpected(ErrorCode::unavailable,
                      fmt::format("cannot reach {}: {}", base, httplib::to_string(response.error())));
  }
  UploadAnswer answer;
  answer.http_status = response->status;
  const Json reply = Json::parse(response->body, nullptr, false);
  if (!reply.is_discarded() && reply.is_object()) {
    if (reply.contains("error") && reply["error"].is_string()) {
      answer.message = reply["error"].get<std::string>();
    } else if (reply.contains("id")) {
      answer.message = "stored as id " + reply["id"].dump();
    }
  }
  if (answer.message.empty()) answer.message = response->body.substr(0, 200);
  return answer;
}

}  // namespace ecocompute::sweep
