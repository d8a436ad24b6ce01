// libFuzzer target: a model file through everything `measure`, `quantize` and `inspect` do with it
// before llama.cpp runs it — our header and tensor-table checks (in-process), then llama.cpp's loader
// in a child process (engine::check_model_loads). Nothing may crash, hang or read out of bounds here,
// whatever the bytes; an abort of the loader must come back as an error.
// Needs $ECOCOMPUTE_BINARY: the ecocompute binary whose `inspect --in-process` the child runs.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "engine/gguf_inspection.hpp"
#include "engine/model_probe.hpp"
#include "util/log.hpp"

namespace {
const std::filesystem::path& scratch() {
  static const std::filesystem::path path =
      std::filesystem::temp_directory_path() / ("ecocompute-gguf-fuzz-" + std::to_string(::getpid()) + ".gguf");
  return path;
}
const std::filesystem::path& binary() {
  static const std::filesystem::path path = [] {
    ecocompute::log::set_level(ecocompute::log::Level::quiet);
    const char* env = std::getenv("ECOCOMPUTE_BINARY");
    if (env == nullptr || *env == '\0') __builtin_trap();  // the child needs a binary to run
    return std::filesystem::path(env);
  }();
  return path;
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::filesystem::path& program = binary();
  {
    std::ofstream out(scratch(), std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  }
  auto inspected = ecocompute::engine::inspect_gguf(scratch());
  if (inspected) {
    // A file our checks pass goes to llama.cpp's loader, in a child: an abort there is an Error here.
    (void)ecocompute::engine::check_model_loads(scratch(), program, std::chrono::seconds(20));
  }
  return 0;
}
