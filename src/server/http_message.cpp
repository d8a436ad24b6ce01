// HttpRequest / HttpResponse helpers.
#include "server/http_message.hpp"

#include <algorithm>
#include <cctype>

namespace ecocompute::server {
namespace {
std::string lower(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}
}  // namespace

std::optional<std::string> HttpRequest::header(std::string name) const {
  const auto it = headers.find(lower(name));
  if (it == headers.end()) return std::nullopt;
  return it->second;
}

std::optional<std::string> HttpRequest::param(const std::string& name) const {
  const auto it = query.find(name);
  if (it == query.end()) return std::nullopt;
  return it->second;
}

bool HttpRequest::content_type_is(std::string_view media_type) const {
  const auto value = header("content-type");
  if (!value) return false;
  std::string_view type(*value);
  type = type.substr(0, type.find(';'));
  const auto first = type.find_first_not_of(" \t");
  if (first == std::string_view::npos) return false;
  type = type.substr(first, type.find_last_not_of(" \t") - first + 1);
  return lower(type) == lower(media_type);
}

std::optional<std::string> HttpResponse::header(std::string_view name) const {
  const std::string wanted = lower(name);
  for (const auto& [key, value] : headers) {
    if (lower(key) == wanted) return value;
  }
  return std::nullopt;
}

void HttpResponse::set_header(std::string name, std::string value) {
  const std::string wanted = lower(name);
  std::erase_if(headers, [&](const auto& kv) { return lower(kv.first) == wanted; });
  headers.emplace_back(std::move(name), std::move(value));
}

HttpResponse json_response(int status, std::string body) {
  HttpResponse response;
  response.status = status;
  response.body = std::move(body);
  return response;
}

}  // namespace ecocompute::server
