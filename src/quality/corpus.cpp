// Corpus loading: a text file and its identity (name, bytes, sha256).
#include "quality/corpus.hpp"

#include <algorithm>
#include <system_error>
#include <vector>

#include "util/file_io.hpp"

namespace ecocompute::quality {
namespace fs = std::filesystem;

Corpus make_corpus(std::string name, std::string text) {
  Corpus corpus;
  corpus.info.name = std::move(name);
  corpus.info.bytes = text.size();
  corpus.info.sha256 = sha256_hex(text);
  corpus.text = std::move(text);
  return corpus;
}

Result<Corpus> load_corpus(const fs::path& path) {
  std::error_code ec;
  if (fs::is_directory(path, ec)) {
    return unexpected(ErrorCode::invalid_argument,
                      "quality text " + path.string() + " is a folder, not a file");
  }
  auto text = read_file(path);
  if (!text) return Error{text.error().code(), "cannot load quality text", text.error()};
  if (text->empty())
    return unexpected(ErrorCode::invalid_input, "quality text " + path.string() + " is empty");
  return make_corpus(path.filename().string(), std::move(*text));
}

fs::path shipped_corpus_dir() { return data_dir() / "corpora" / "quality"; }

Result<fs::path> default_corpus_path() {
  const fs::path dir = shipped_corpus_dir();
  std::error_code ec;
  std::vector<fs::path> texts;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (it->path().extension() == ".txt" && it->is_regular_file(ec)) texts.push_back(it->path());
  }
  if (texts.empty()) {
    return unexpected(ErrorCode::not_found, "no shipped quality text (*.txt) in " + dir.string() +
                                                "; pass one with --quality-text");
  }
  return *std::min_element(texts.begin(), texts.end());
}

Result<Corpus> load_corpus_or_default(const fs::path& path) {
  if (!path.empty()) return load_corpus(path);
  auto shipped = default_corpus_path();
  if (!shipped) return shipped.error();
  return load_corpus(*shipped);
}

}  // namespace ecocompute::quality
