// Reading llama.cpp ftype numbers back into the precision table (its numbers are checked against
// llama.h by tests/unit/engine/precision_test.cpp).
#include "engine/precision.hpp"

#include <llama.h>

#include <string>

namespace ecocompute::engine {
Result<GgufType> gguf_type_from_llama_ftype(int llama_ftype) {
  // LLAMA_FTYPE_GUESSED is a flag llama.cpp ORs in when the file does not say.
  const int ftype = llama_ftype & ~static_cast<int>(LLAMA_FTYPE_GUESSED);
  for (const PrecisionInfo& row : gguf_precisions()) {
    if (row.llama_ftype == ftype) return row.gguf;
  }
  return unexpected(ErrorCode::invalid_input,
                    "GGUF file type " + std::to_string(ftype) + " (" +
                        llama_ftype_name(static_cast<enum llama_ftype>(ftype)) +
                        ") is not one this tool measures; valid types: " + valid_gguf_type_names());
}

}  // namespace ecocompute::engine
