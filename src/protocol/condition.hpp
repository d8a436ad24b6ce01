// Condition: one point of the design's cross-product (precision × prompt length × batch).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace ecocompute::protocol {

/// One point of the cross-product of a Design's factors; `Design::expand()` lists them all.
struct Condition {
  std::size_t index = 0;           ///< position in Design::expand(); trials refer to conditions by it
  std::string precision;           ///< GGUF type name as the user wrote it ("F16", "Q4_K_M" …)
  bool is_baseline = false;        ///< the precision every candidate is compared with
  std::int64_t prompt_tokens = 0;  ///< requested prompt length in tokens; 0: the prompt text's own length
  int batch = 1;                   ///< parallel sequences decoded in one batch per step
  bool batch_is_level = false;     ///< the design has more than one batch level (the label names it)

  /// Returns "F16", "F16/p512" when the prompt length is a level of its own, "F16/b16" (or
  /// "F16/p512/b16") when the batch is.
  [[nodiscard]] std::string label() const;

  friend bool operator==(const Condition&, const Condition&) = default;
};

}  // namespace ecocompute::protocol
