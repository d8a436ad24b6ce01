// Typed reading of a question's JSON fields (a POST body, or query parameters already turned into
// JSON), shared by estimate and optimize: numbers may arrive as numbers or as numeric text, as the
// published API takes them; every error names the field.
#pragma once

#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "util/json.hpp"
#include "util/result.hpp"

namespace ecocompute::data {

/// A question's batch and context, each absent when not given.
struct BatchContext {
  std::optional<int> batch;
  std::optional<int> context;
};

class RequestFields {
 public:
  /// `body` must outlive this object.
  explicit RequestFields(const Json& body) : body_(body) {}

  /// A finite number (or text that is one); absent when missing or null.
  [[nodiscard]] Result<std::optional<double>> number(std::string_view key) const;
  /// A whole number in [min, 10^7].
  [[nodiscard]] Result<std::optional<int>> whole(std::string_view key, int min = 1) const;
  [[nodiscard]] Result<std::optional<std::string>> text(std::string_view key) const;
  /// true / false, or the text "true", "false", "1", "0".
  [[nodiscard]] Result<std::optional<bool>> flag(std::string_view key) const;
  /// An array of strings (numbers are taken as their text: a query string's "8" is a name too).
  [[nodiscard]] Result<std::optional<std::vector<std::string>>> texts(std::string_view key) const;
  /// An array of whole numbers ≥ 1.
  [[nodiscard]] Result<std::optional<std::vector<int>>> wholes(std::string_view key) const;

  // The fields estimate and optimize read alike. Three calls rather than one, so that each request
  // keeps its own field order, and with it which of several bad fields is the one reported.

  /// Refuses a body with a field outside `known`: an invalid_argument error listing every unknown
  /// field (each quoted, at most 200 bytes of it) and the known ones. A misspelt field ("pramas_b")
  /// would otherwise be dropped and the answer given for a question nobody asked.
  [[nodiscard]] Result<void> refuse_unknown(std::initializer_list<std::string_view> known) const;

  /// The size in billions: params_b, or its short name N (N wins when both are given).
  [[nodiscard]] Result<std::optional<double>> params_b() const;
  /// batch, and ctx (the published name) or context (ours, which wins when both are given).
  [[nodiscard]] Result<BatchContext> batch_and_context() const;
  /// allow_borrow; false when absent.
  [[nodiscard]] Result<bool> allow_borrow() const;

 private:
  [[nodiscard]] const Json* find(std::string_view key) const;
  const Json& body_;
};

}  // namespace ecocompute::data
