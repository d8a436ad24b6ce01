// A least-recently-used map of answer bodies.
#include "server/answer_cache.hpp"

namespace ecocompute::server {

std::optional<std::string> AnswerCache::find(const std::string& key) {
  const std::lock_guard lock(mutex_);
  const auto it = index_.find(key);
  if (it == index_.end()) return std::nullopt;
  order_.splice(order_.begin(), order_, it->second);
  return it->second->second;
}

void AnswerCache::put(const std::string& key, std::string body) {
  if (max_entries_ == 0) return;
  const std::lock_guard lock(mutex_);
  if (const auto it = index_.find(key); it != index_.end()) {
    it->second->second = std::move(body);
    order_.splice(order_.begin(), order_, it->second);
    return;
  }
  order_.emplace_front(key, std::move(body));
  index_.emplace(key, order_.begin());
  if (order_.size() > max_entries_) {
    index_.erase(order_.back().first);
    order_.pop_back();
  }
}

std::size_t AnswerCache::size() const {
  const std::lock_guard lock(mutex_);
  return order_.size();
}

}  // namespace ecocompute::server
