// Answers of the decision model kept by question, for the routes whose answer depends on nothing but
// the question and the evidence (estimate, optimize).
#pragma once

#include <cstddef>
#include <list>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>

namespace ecocompute::server {

/// A bounded map from a question's key to its answer's body. A server answers from evidence that does
/// not change while it runs (serve loads it once), so the same question gets the same bytes: an answer
/// asked again is served from here instead of predicted again. The least recently used answer goes
/// first when the cache is full. Thread-safe.
class AnswerCache {
 public:
  /// `max_entries` 0 keeps nothing (every find misses).
  explicit AnswerCache(std::size_t max_entries) : max_entries_(max_entries) {}

  /// The body kept for `key`, which becomes the most recently used.
  [[nodiscard]] std::optional<std::string> find(const std::string& key);
  /// Keeps `body` for `key`, dropping the least recently used answer past max_entries.
  void put(const std::string& key, std::string body);
  [[nodiscard]] std::size_t size() const;

 private:
  using Entry = std::pair<std::string, std::string>;  // key, body
  mutable std::mutex mutex_;
  std::size_t max_entries_;
  std::list<Entry> order_;  // most recently used first
  std::unordered_map<std::string, std::list<Entry>::iterator> index_;
};

}  // namespace ecocompute::server
