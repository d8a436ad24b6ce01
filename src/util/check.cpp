// Invariant failures.
#include "util/check.hpp"

namespace ecocompute {

void fail_check(const char* condition, const std::string& message, const char* file, int line) {
  throw InvariantError(std::string(file) + ":" + std::to_string(line) + ": check failed (" +
                       condition + "): " + message);
}

}  // namespace ecocompute
