// The engine's side of the precision table (util/precision.hpp): llama.cpp's ftype numbers.
#pragma once

#include "util/precision.hpp"
#include "util/result.hpp"

namespace ecocompute::engine {

/// Returns the GGUF type whose llama_ftype value is `llama_ftype` (LLAMA_FTYPE_GUESSED ignored); Error
/// (invalid_input) when the table has none (an ftype llama.cpp knows but this tool does not measure,
/// or an unknown number), naming it as llama.cpp does.
[[nodiscard]] Result<GgufType> gguf_type_from_llama_ftype(int llama_ftype);

}  // namespace ecocompute::engine
