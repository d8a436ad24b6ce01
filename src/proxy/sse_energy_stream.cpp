#include "proxy/sse_energy_stream.hpp"

#include "util/log.hpp"

namespace ecocompute::proxy {

namespace {

bool nonempty_string(const nlohmann::ordered_json& object, const char* key) {
  auto value = object.find(key);
  return value != object.end() && value->is_string() && !value->get_ref<const std::string&>().empty();
}

// The end of the first event in `text` (its blank-line separator included), or npos.
std::size_t event_end(std::string_view text, std::size_t& separator_length) {
  const std::size_t lf = text.find("\n\n");
  const std::size_t crlf = text.find("\r\n\r\n");
  if (crlf != std::string_view::npos && (lf == std::string_view::npos || crlf < lf)) {
    separator_length = 4;
    return crlf + 4;
  }
  if (lf == std::string_view::npos) return std::string_view::npos;
  separator_length = 2;
  return lf + 2;
}

// The payload of an event's data lines ("data: x" → "x"), joined by newlines.
std::string data_of(std::string_view event) {
  std::string data;
  std::size_t begin = 0;
  while (begin < event.size()) {
    std::size_t end = event.find('\n', begin);
    if (end == std::string_view::npos) end = event.size();
    std::string_view line = event.substr(begin, end - begin);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.starts_with("data:")) {
      line.remove_prefix(5);
      if (line.starts_with(' ')) line.remove_prefix(1);
      if (!data.empty()) data += '\n';
      data += line;
    }
    begin = end + 1;
  }
  return data;
}

// Whether `key` (a quoted JSON key) appears followed by a non-empty string, or by a non-empty array
// when `array` is set.
bool has_nonempty_value(std::string_view data, std::string_view key, bool array) {
  for (std::size_t at = data.find(key); at != std::string_view::npos; at = data.find(key, at + 1)) {
    std::size_t i = at + key.size();
    while (i < data.size() && data[i] == ' ') ++i;
    if (i >= data.size() || data[i] != ':') continue;
    ++i;
    while (i < data.size() && data[i] == ' ') ++i;
    if (i + 1 >= data.size()) continue;
    if (!array && data[i] == '"' && data[i + 1] != '"') return true;
    if (array && data[i] == '[' && data[i + 1] != ']') return true;
  }
  return false;
}

}  // namespace

bool scan_carries_output(std::string_view data) {
  return has_nonempty_value(data, "\"text\"", false) || has_nonempty_value(data, "\"content\"", false) ||
         has_nonempty_value(data, "\"reasoning_content\"", false) || has_nonempty_value(data, "\"tool_calls\"", true);
}

bool carries_output(const nlohmann::ordered_json& chunk) {
  auto choices = chunk.find("choices");
  if (choices == chunk.end() || !choices->is_array()) return false;
  for (const auto& choice : *choices) {
    if (!choice.is_object()) continue;
    if (nonempty_string(choice, "text")) return true;
    auto delta = choice.find("delta");
    if (delta == choice.end() || !delta->is_object()) continue;
    if (nonempty_string(*delta, "content") || nonempty_string(*delta, "reasoning_content")) return true;
    if (auto tools = delta->find("tool_calls"); tools != delta->end() && tools->is_array() && !tools->empty()) return true;
  }
  return false;
}

SseEnergyStream::SseEnergyStream(std::function<void()> on_output,
                                 std::function<AnswerEnergy(const ReportedUsage&)> finish)
    : on_output_(std::move(on_output)), finish_(std::move(finish)) {}

std::string SseEnergyStream::feed(std::string_view bytes) {
  if (passthrough_) return std::string(bytes);
  pending_.append(bytes);
  std::string out;
  std::size_t separator_length = 0;
  for (std::size_t end = event_end(pending_, separator_length); end != std::string::npos;
       end = event_end(pending_, separator_length)) {
    out += take_event(std::string_view(pending_).substr(0, end));
    pending_.erase(0, end);
  }
  if (pending_.size() > kMaxEventBytes) {
    log::warn("an upstream stream event exceeds {} bytes; passing the rest of the stream through unparsed", kMaxEventBytes);
    passthrough_ = true;
    out += release_held();
    out += std::exchange(pending_, {});
  }
  return out;
}

std::string SseEnergyStream::take_event(std::string_view event) {
  std::string data = data_of(event);
  if (data == "[DONE]") return finish_with_energy() + std::string(event);
  std::string out = release_held();
  // Most events are one token's text: a scan of their text decides, and only a chunk that may carry
  // the usage is parsed (a JSON parse per token is CPU the relay spends on every event).
  if (data.find("\"usage\"") == std::string::npos) {
    if (scan_carries_output(data) && on_output_) on_output_();
    if (data.starts_with('{')) last_data_ = std::move(data);
    return out + std::string(event);
  }
  const nlohmann::ordered_json chunk = nlohmann::ordered_json::parse(data, nullptr, false);
  if (chunk.is_discarded() || !chunk.is_object()) return out + std::string(event);
  last_data_ = std::move(data);
  if (carries_output(chunk) && on_output_) on_output_();
  const ReportedUsage usage = reported_usage(chunk);
  if (usage.prompt_tokens || usage.completion_tokens) {
    usage_ = usage;
    held_ = chunk;  // the server's usage chunk: the energy goes in it if it is the last
    held_raw_ = std::string(event);
    held_separator_ = event.ends_with("\r\n\r\n") ? "\r\n\r\n" : "\n\n";
    return out;
  }
  return out + std::string(event);
}

std::string SseEnergyStream::release_held() {
  if (!held_) return {};
  held_.reset();
  return std::exchange(held_raw_, {});
}

std::string SseEnergyStream::finish_with_energy() {
  if (finished_) return release_held();
  finished_ = true;
  const AnswerEnergy answer = finish_(usage_);
  nlohmann::ordered_json chunk;
  std::string separator = "\n\n";
  if (held_) {
    chunk = std::move(*held_);
    separator = held_separator_;
    held_.reset();
    held_raw_.clear();
  } else {
    // The added chunk names the stream as its chunks did: id, object, model, created of the last one.
    const nlohmann::ordered_json last = nlohmann::ordered_json::parse(last_data_, nullptr, false);
    chunk = nlohmann::ordered_json::object();
    for (const char* key : {"id", "object", "model", "created"}) {
      if (!last.is_object()) break;
      if (auto value = last.find(key); value != last.end()) chunk[key] = *value;
    }
    chunk["choices"] = nlohmann::ordered_json::array();
  }
  add_energy_fields(chunk["usage"], answer);
  return "data: " + chunk.dump() + separator;
}

std::string SseEnergyStream::end() {
  std::string out;
  if (!finished_ && held_) {
    out = finish_with_energy();  // the server ended without [DONE]: its usage chunk still gets the energy
  } else if (!finished_) {
    finished_ = true;
    finish_(usage_);
  }
  return out + std::exchange(pending_, {});
}

}  // namespace ecocompute::proxy
