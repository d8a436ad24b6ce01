// GGUF inspection: reads and validates a model file's header and tensor table without loading weights.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>

#include "engine/engine.hpp"
#include "engine/precision.hpp"
#include "util/result.hpp"

namespace ecocompute::engine {

/// What a GGUF file holds, read from its header and tensor table only.
struct GgufInspection {
  ModelInfo model;               ///< name, architecture, type, class, bits/weight, parameters, vocab …
  GgufType type = GgufType::F32;  ///< the file type (general.file_type, else guessed from the tensors)
  bool type_guessed = false;     ///< general.file_type was absent: `type` comes from the dominant tensor type
  std::string weights_label;     ///< value of weights_metadata_key (engine/weights_label.hpp): "synthetic", "trained-fixture" or ""
  std::int64_t n_tensors = 0;
  std::uint32_t gguf_version = 0;
  std::uint64_t file_bytes = 0;
  std::uint64_t data_offset = 0;  ///< byte where the tensor data starts
};

/// Reads `path`'s GGUF header and tensor table (gguf_init_from_file with no_alloc) and checks, before
/// llama.cpp ever sees the file, everything that would make it abort or fail obscurely: the file
/// exists (not_found), starts with the GGUF magic, has a readable version, metadata and tensor table,
/// holds at least one tensor (a vocab-only GGUF has none), keeps every tensor's data inside the file
/// (truncation), and has a file type in the precision table. Each failure is an Error (invalid_input
/// unless noted) whose message names the file and the problem. Never aborts on malformed input.
Result<GgufInspection> inspect_gguf(const std::filesystem::path& path);

}  // namespace ecocompute::engine
