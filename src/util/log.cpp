// Logging to stderr.
#include "util/log.hpp"

#include <atomic>
#include <cstdio>
#include <mutex>

namespace ecocompute::log {
namespace {
std::atomic<Level> current_level{Level::info};
std::mutex write_mutex;

const char* name(Level l) {
  switch (l) {
    case Level::debug: return "debug";
    case Level::info: return "info";
    case Level::warn: return "warning";
    case Level::error: return "error";
    case Level::quiet: return "";
  }
  return "";
}
}  // namespace

void set_level(Level l) noexcept { current_level.store(l); }
Level level() noexcept { return current_level.load(); }

void write(Level l, std::string_view message) noexcept {
  if (l < current_level.load() || l == Level::quiet) return;
  std::lock_guard lock(write_mutex);
  std::fprintf(stderr, "ecocompute: %s: %.*s\n", name(l), static_cast<int>(message.size()),
               message.data());
}

}  // namespace ecocompute::log
