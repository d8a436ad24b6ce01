// ECO_CHECK: throws InvariantError naming file and line when a condition that must hold does not.
#pragma once

#include <stdexcept>
#include <string>

namespace ecocompute {

/// A broken invariant: a bug, never bad input (bad input is a Result error).
class InvariantError : public std::logic_error {
 public:
  using std::logic_error::logic_error;
};

[[noreturn]] void fail_check(const char* condition, const std::string& message, const char* file,
                             int line);

}  // namespace ecocompute

#define ECO_CHECK(condition, message)                                                 \
  do {                                                                                \
    if (!(condition)) ::ecocompute::fail_check(#condition, (message), __FILE__, __LINE__); \
  } while (false)
