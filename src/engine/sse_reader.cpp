#include "engine/sse_reader.hpp"

namespace ecocompute::engine {

std::vector<std::string> SseReader::feed(std::string_view bytes) {
  std::vector<std::string> out;
  for (char c : bytes) {
    if (error_) return out;
    // Lines end with \n, \r\n or \r (the SSE rule); a \n right after \r ends nothing new.
    if (c == '\n' && last_was_cr_) {
      last_was_cr_ = false;
      continue;
    }
    last_was_cr_ = c == '\r';
    if (c == '\n' || c == '\r') {
      take_line(line_, out);
      line_.clear();
      continue;
    }
    line_.push_back(c);
    if (line_.size() > kMaxLineBytes) error_ = "an SSE line longer than " + std::to_string(kMaxLineBytes) + " bytes";
  }
  return out;
}

void SseReader::take_line(std::string_view line, std::vector<std::string>& out) {
  if (line.empty()) {  // a blank line dispatches the event
    if (has_data_) out.push_back(data_);
    data_.clear();
    has_data_ = false;
    return;
  }
  if (line.front() == ':') return;
  const std::size_t colon = line.find(':');
  const std::string_view field = line.substr(0, colon);
  std::string_view value = colon == std::string_view::npos ? std::string_view{} : line.substr(colon + 1);
  if (!value.empty() && value.front() == ' ') value.remove_prefix(1);
  if (field == "data") {
    if (has_data_) data_.push_back('\n');
    data_.append(value);
    has_data_ = true;
  } else if (field != "event" && field != "id" && field != "retry") {
    const std::string shown(line.substr(0, 80));
    error_ = "malformed SSE line '" + shown + "' (not a data, event, id, retry or comment line)";
  }
}

}  // namespace ecocompute::engine
