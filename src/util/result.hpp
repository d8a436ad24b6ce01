// Result<T>: a value or an Error, shaped like std::expected so it can become an alias under C++23.
#pragma once

#include <type_traits>
#include <utility>
#include <optional>
#include <variant>

#include "util/check.hpp"
#include "util/error.hpp"

namespace ecocompute {

/// Wraps an Error so that `return unexpected(Error{...});` reads like std::expected.
struct Unexpected {
  Error error;
};
inline Unexpected unexpected(Error error) { return Unexpected{std::move(error)}; }
inline Unexpected unexpected(ErrorCode code, std::string message) {
  return Unexpected{Error{code, std::move(message)}};
}

template <typename T>
class [[nodiscard]] Result {
 public:
  using value_type = T;

  Result(T value) : state_(std::in_place_index<0>, std::move(value)) {}  // NOLINT: implicit by design
  Result(Unexpected u) : state_(std::in_place_index<1>, std::move(u.error)) {}  // NOLINT
  Result(Error error) : state_(std::in_place_index<1>, std::move(error)) {}  // NOLINT

  [[nodiscard]] bool has_value() const noexcept { return state_.index() == 0; }
  explicit operator bool() const noexcept { return has_value(); }

  /// Returns the value; calling it on an error is a broken invariant and throws.
  T& value() & {
    ECO_CHECK(has_value(), "Result::value() on an error: " + std::get<1>(state_).describe());
    return std::get<0>(state_);
  }
  const T& value() const& {
    ECO_CHECK(has_value(), "Result::value() on an error: " + std::get<1>(state_).describe());
    return std::get<0>(state_);
  }
  T&& value() && {
    ECO_CHECK(has_value(), "Result::value() on an error: " + std::get<1>(state_).describe());
    return std::get<0>(std::move(state_));
  }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

  /// Returns the error; calling it on a value is a broken invariant and throws.
  [[nodiscard]] const Error& error() const& {
    ECO_CHECK(!has_value(), "Result::error() on a value");
    return std::get<1>(state_);
  }
  [[nodiscard]] Error&& error() && {
    ECO_CHECK(!has_value(), "Result::error() on a value");
    return std::get<1>(std::move(state_));
  }

  template <typename U>
  T value_or(U&& fallback) const& {
    return has_value() ? std::get<0>(state_) : static_cast<T>(std::forward<U>(fallback));
  }

 private:
  std::variant<T, Error> state_;
};

/// Result of an operation with no value.
template <>
class [[nodiscard]] Result<void> {
 public:
  Result() = default;
  Result(Unexpected u) : error_(std::move(u.error)) {}  // NOLINT
  Result(Error error) : error_(std::move(error)) {}     // NOLINT

  [[nodiscard]] bool has_value() const noexcept { return !error_.has_value(); }
  explicit operator bool() const noexcept { return has_value(); }
  [[nodiscard]] const Error& error() const& {
    ECO_CHECK(error_.has_value(), "Result::error() on a value");
    return *error_;
  }

 private:
  std::optional<Error> error_;
};

}  // namespace ecocompute
