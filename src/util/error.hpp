// Error: a code, a message that names the input, and an optional cause.
#pragma once

#include <memory>
#include <string>
#include <string_view>

namespace ecocompute {

/// What kind of failure an Error reports; front ends map it to an exit code or an HTTP status.
enum class ErrorCode {
  invalid_argument,   ///< a flag, option value or request field is wrong
  invalid_input,      ///< a file or body is malformed (bad JSON, truncated GGUF, wrong magic)
  not_found,          ///< a named file, model, architecture or record does not exist
  io,                 ///< reading or writing a file failed
  unavailable,        ///< the environment lacks what is needed (no NVML, no GPU, no CUDA)
  device,             ///< the GPU or its driver returned an error
  engine,             ///< the inference engine failed (load, decode, out of memory)
  measurement,        ///< a measurement window is invalid (counter reset, stuck counter)
  cancelled,          ///< the user interrupted the run
  conflict,           ///< the request conflicts with stored state
  internal,           ///< a bug: an invariant did not hold
};

/// Returns the stable spelling of a code, as used in JSON and logs.
std::string_view to_string(ErrorCode code) noexcept;

class Error {
 public:
  Error(ErrorCode code, std::string message) : code_(code), message_(std::move(message)) {}
  Error(ErrorCode code, std::string message, Error cause)
      : code_(code), message_(std::move(message)), cause_(std::make_shared<Error>(std::move(cause))) {}

  [[nodiscard]] ErrorCode code() const noexcept { return code_; }
  [[nodiscard]] const std::string& message() const noexcept { return message_; }
  [[nodiscard]] const Error* cause() const noexcept { return cause_.get(); }

  /// Returns the message followed by each cause's message, joined by ": ".
  [[nodiscard]] std::string describe() const;

 private:
  ErrorCode code_;
  std::string message_;
  std::shared_ptr<const Error> cause_;
};

}  // namespace ecocompute
