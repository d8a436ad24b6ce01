// Answers a const object works out once and keeps by key, for every thread that asks it. A copy of
// the object starts with nothing kept: what is kept was worked out from the object it sits in, and a
// copy may be changed before it answers.
#pragma once

#include <cstddef>
#include <mutex>
#include <string>
#include <unordered_map>
#include <utility>

namespace ecocompute::util {

template <typename Value>
class KeptAnswers {
 public:
  KeptAnswers() = default;
  KeptAnswers(const KeptAnswers& /*other*/) {}
  KeptAnswers(KeptAnswers&& /*other*/) noexcept {}
  KeptAnswers& operator=(const KeptAnswers& /*other*/) {
    forget();
    return *this;
  }
  KeptAnswers& operator=(KeptAnswers&& /*other*/) noexcept {
    forget();
    return *this;
  }
  ~KeptAnswers() = default;

  /// The answer kept for `key`, else `work()`'s, kept. Two threads asking the same new key may both
  /// work it out (the lock is not held while working); they keep the same answer.
  template <typename Work>
  Value get(const std::string& key, Work&& work) const {
    {
      const std::lock_guard lock(mutex_);
      if (const auto it = kept_.find(key); it != kept_.end()) return it->second;
    }
    Value value = std::forward<Work>(work)();
    const std::lock_guard lock(mutex_);
    if (kept_.size() >= kLimit) kept_.clear();  // a bound on memory: questions past it are worked out again
    kept_.try_emplace(key, value);
    return value;
  }

  [[nodiscard]] std::size_t size() const {
    const std::lock_guard lock(mutex_);
    return kept_.size();
  }

 private:
  static constexpr std::size_t kLimit = 4096;
  void forget() {
    const std::lock_guard lock(mutex_);
    kept_.clear();
  }

  mutable std::mutex mutex_;
  mutable std::unordered_map<std::string, Value> kept_;
};

}  // namespace ecocompute::util
