// Whitespace at the ends of a line or message read from a file, a server or a library.
#pragma once

#include <string>
#include <string_view>

namespace ecocompute {

/// `text` without the spaces, tabs, carriage returns and newlines at either end.
[[nodiscard]] std::string trimmed(std::string_view text);

}  // namespace ecocompute
