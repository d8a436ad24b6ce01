// Condition: its label.
#include "protocol/condition.hpp"

namespace ecocompute::protocol {

std::string Condition::label() const {
  if (prompt_tokens == 0) return precision;
  return precision + "/p" + std::to_string(prompt_tokens);
}

}  // namespace ecocompute::protocol
