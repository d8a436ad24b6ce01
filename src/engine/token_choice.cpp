// TokenChoice: where the greedy choice of the next token runs, as spelled on the command line.
#include <string>

#include "engine/engine.hpp"

namespace ecocompute::engine {

std::string_view to_string(TokenChoice choice) noexcept { return choice == TokenChoice::host ? "host" : "device"; }

Result<TokenChoice> parse_token_choice(std::string_view text) {
  if (text == "device") return TokenChoice::device;
  if (text == "host") return TokenChoice::host;
  return unexpected(ErrorCode::invalid_argument, "token choice '" + std::string(text) + "' is not 'device' or 'host'");
}

}  // namespace ecocompute::engine
