// Logging to stderr (results go to stdout, logs and progress to stderr).
#pragma once

#include <fmt/format.h>

#include <string_view>

namespace ecocompute::log {

enum class Level { debug, info, warn, error, quiet };

/// Sets the lowest level that is printed; thread-safe.
void set_level(Level level) noexcept;
[[nodiscard]] Level level() noexcept;

/// Writes one line "ecocompute: <level>: <message>" to stderr if `level` is enabled; thread-safe.
void write(Level level, std::string_view message) noexcept;

template <typename... Args>
void debug(fmt::format_string<Args...> f, Args&&... args) {
  if (level() <= Level::debug) write(Level::debug, fmt::format(f, std::forward<Args>(args)...));
}
template <typename... Args>
void info(fmt::format_string<Args...> f, Args&&... args) {
  if (level() <= Level::info) write(Level::info, fmt::format(f, std::forward<Args>(args)...));
}
template <typename... Args>
void warn(fmt::format_string<Args...> f, Args&&... args) {
  if (level() <= Level::warn) write(Level::warn, fmt::format(f, std::forward<Args>(args)...));
}
template <typename... Args>
void error(fmt::format_string<Args...> f, Args&&... args) {
  if (level() <= Level::error) write(Level::error, fmt::format(f, std::forward<Args>(args)...));
}

}  // namespace ecocompute::log
