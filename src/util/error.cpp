// Error descriptions.
#include "util/error.hpp"

namespace ecocompute {

std::string_view to_string(ErrorCode code) noexcept {
  switch (code) {
    case ErrorCode::invalid_argument: return "invalid_argument";
    case ErrorCode::invalid_input: return "invalid_input";
    case ErrorCode::not_found: return "not_found";
    case ErrorCode::io: return "io";
    case ErrorCode::unavailable: return "unavailable";
    case ErrorCode::device: return "device";
    case ErrorCode::engine: return "engine";
    case ErrorCode::measurement: return "measurement";
    case ErrorCode::cancelled: return "cancelled";
    case ErrorCode::conflict: return "conflict";
    case ErrorCode::internal: return "internal";
  }
  return "internal";
}

std::string Error::describe() const {
  std::string text = message_;
  for (const Error* c = cause(); c != nullptr; c = c->cause()) {
    text += ": ";
    text += c->message();
  }
  return text;
}

}  // namespace ecocompute
