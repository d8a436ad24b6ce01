// Corpus: the text the quality probe scores, with the name, size and sha256 a reader needs to fetch it again.
#pragma once

#include <filesystem>
#include <string>

#include "quality/quality_result.hpp"
#include "util/result.hpp"

namespace ecocompute::quality {

/// A text and its identity. `info.bytes` and `info.sha256` describe exactly `text`.
struct Corpus {
  CorpusInfo info;
  std::string text;
};

/// Returns a corpus built from text in memory, named `name`, with its bytes and sha256 computed.
[[nodiscard]] Corpus make_corpus(std::string name, std::string text);

/// Loads a text file as a corpus named after the file's name (e.g. "heldout.txt"). Fails with
/// not_found / io when the file cannot be read and invalid_input when it is empty; the error names the path.
[[nodiscard]] Result<Corpus> load_corpus(const std::filesystem::path& path);

/// Returns the folder of the shipped quality texts: data_dir()/corpora/quality.
[[nodiscard]] std::filesystem::path shipped_corpus_dir();

/// Returns the shipped quality text: the first `*.txt` file, by name, in shipped_corpus_dir().
/// Fails with not_found, naming the folder, when there is none.
[[nodiscard]] Result<std::filesystem::path> default_corpus_path();

/// Loads `path` when it is not empty (a user's `--quality-text`), else the shipped default.
[[nodiscard]] Result<Corpus> load_corpus_or_default(const std::filesystem::path& path);

}  // namespace ecocompute::quality
