// libFuzzer target: raw bytes as an HTTP request, read as the server reads one — Beast's parser with the
// server's header limit, our request-target decoding, then the request's input (query parameters or
// JSON body) through the estimate and optimize readers. Nothing may crash or throw.
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/string_body.hpp>

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "decide/estimate.hpp"
#include "decide/optimizer.hpp"
#include "server/request_input.hpp"
#include "server/request_target.hpp"

namespace http = boost::beast::http;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  http::request_parser<http::string_body> parser;
  parser.header_limit(16 * 1024);
  parser.body_limit(256 * 1024);
  parser.eager(true);
  boost::beast::error_code ec;
  parser.put(boost::asio::buffer(data, size), ec);
  if (!ec && !parser.is_done()) parser.put_eof(ec);
  if (ec || !parser.is_header_done()) return 0;
  const auto& message = parser.get();
  auto target = ecocompute::server::parse_request_target(std::string_view(message.target().data(), message.target().size()));
  if (!target) return 0;
  ecocompute::server::HttpRequest request;
  request.method = std::string(message.method_string());
  request.path = target->path;
  request.query = target->query;
  request.body = message.body();
  auto input = ecocompute::server::request_input(request, {"precisions", "batches", "contexts"});
  if (!input) return 0;
  (void)ecocompute::decide::estimate_request_from_json(*input);
  auto optimize = ecocompute::decide::optimize_request_from_json(*input);
  (void)optimize;
  return 0;
}
