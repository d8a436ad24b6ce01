// Condition: its label.
#include "protocol/condition.hpp"

namespace ecocompute::protocol {

std::string Condition::label() const {
  std::string label = precision;
  if (prompt_tokens != 0) label += "/p" + std::to_string(prompt_tokens);
  if (batch_is_level) label += "/b" + std::to_string(batch);
  return label;
}

}  // namespace ecocompute::protocol
