// The model probe: llama.cpp's loader aborts the whole process (GGML_ASSERT) on some malformed files
// that our header checks pass, e.g. one flipped metadata byte giving more next-token layers than
// layers. So a model is first loaded — metadata, vocabulary and tensor shapes, no weights — in a
// child process: an abort there is an error naming the file, never a crash of the caller.
#pragma once

#include <chrono>
#include <filesystem>

#include "util/result.hpp"

namespace ecocompute::engine {

/// Loads `model` as llama.cpp would, without its weights (no_alloc, CPU only), in THIS process. A file
/// that makes llama.cpp abort aborts this process, after writing "llama.cpp aborted: <reason>" to
/// stderr. What the child of check_model_loads runs (`ecocompute inspect --in-process`).
[[nodiscard]] Result<void> dry_load(const std::filesystem::path& model);

/// Runs `program inspect --in-process --quiet <model>` (`program` is an ecocompute binary; empty: this
/// process's own) with the GPUs hidden and waits at most `timeout`. Returns nothing when the child
/// loaded the file; an invalid_input error naming the file and llama.cpp's reason when the child
/// aborted, crashed, failed or ran out of time; an internal error when the child could not start.
[[nodiscard]] Result<void> check_model_loads(const std::filesystem::path& model, std::filesystem::path program = {},
                                             std::chrono::seconds timeout = std::chrono::seconds(120));

}  // namespace ecocompute::engine
