// open_postgres in a build without libpq (cmake -DECOCOMPUTE_POSTGRES=OFF, the GPU machine's bundle):
// a postgresql:// store is refused with a message saying why, never opened as an SQLite path.
#include "data/sql_database.hpp"

namespace ecocompute::data {

Result<std::unique_ptr<SqlDatabase>> open_postgres(const std::string& url) {
  (void)url;  // may hold a password: not repeated in the message
  return unexpected(ErrorCode::unavailable,
                    "this ecocompute was built without PostgreSQL support (-DECOCOMPUTE_POSTGRES=OFF): "
                    "use an SQLite store, or a build with PostgreSQL");
}

}  // namespace ecocompute::data
