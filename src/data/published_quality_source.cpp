// Where published quality rows come from: the fetched llama.cpp tree, its commit (the fetch stamp or the
// checkout's HEAD), and how a row names its source; the precision names mapped to the project's table.
#include <cstdlib>

#include "data/published_quality.hpp"
#include "util/file_io.hpp"
#include "util/precision.hpp"
#include "util/trim.hpp"

namespace ecocompute::data {
namespace {

namespace fs = std::filesystem;

bool is_hex_commit(std::string_view text) {
  return text.size() == 40 && text.find_first_not_of("0123456789abcdef") == std::string_view::npos;
}

// The commit of a llama.cpp tree: scripts/fetch_third_party.sh writes "<commit>+<patch>" to
// .ecocompute-fetched; a plain checkout says it in .git/HEAD (detached) or the branch's ref file.
std::optional<std::string> commit_of_tree(const fs::path& root) {
  if (auto stamp = read_file(root / ".ecocompute-fetched")) {
    if (std::string t = trimmed(*stamp); !t.empty()) return t;
  }
  auto head = read_file(root / ".git" / "HEAD");
  if (!head) return std::nullopt;
  std::string t = trimmed(*head);
  if (t.starts_with("ref: ")) {
    auto ref = read_file(root / ".git" / t.substr(5));
    if (!ref) return std::nullopt;
    t = trimmed(*ref);
  }
  if (is_hex_commit(t)) return t;
  return std::nullopt;
}

// The tree a README belongs to: the folder above it that has the fetch stamp or a .git.
std::optional<fs::path> source_root_of(const fs::path& file) {
  std::error_code ec;
  for (fs::path dir = file.parent_path(); !dir.empty(); dir = dir.parent_path()) {
    if (fs::exists(dir / ".ecocompute-fetched", ec) || fs::exists(dir / ".git", ec)) return dir;
    if (dir == dir.parent_path()) break;
  }
  return std::nullopt;
}

std::string short_commit(std::string_view commit) {
  return is_hex_commit(commit.substr(0, 40)) ? std::string(commit.substr(0, 8)) : std::string(commit);
}

}  // namespace

std::string PublishedQualityRow::provenance() const {
  std::string out = source_file + ":" + std::to_string(line) + " @ llama.cpp " + short_commit(source_commit) +
                    " (table \"" + table + "\"";
  if (!table_revision.empty()) out += ", revision " + table_revision;
  return out + ")";
}

void to_json(Json& j, const QualityFigure& f) {
  j = Json{{"value", f.value}};
  if (f.uncertainty) j["uncertainty"] = *f.uncertainty;
}

void to_json(Json& j, const PublishedQualityRow& r) {
  j = Json{{"basis", "published"},
           {"source", {{"file", r.source_file}, {"commit", r.source_commit}, {"table", r.table},
                       {"table_revision", r.table_revision}, {"line", r.line}, {"text", r.provenance()}}},
           {"model", r.model}, {"params_b", r.params_b}, {"arch_family", r.arch_family},
           {"precision", r.precision}, {"precision_known", r.precision_known},
           {"source_precision", r.source_precision}, {"baseline", r.baseline}, {"imatrix", r.imatrix},
           {"corpus", r.corpus}, {"backend", r.backend}};
  if (r.file_size_gib) j["file_size_gib"] = *r.file_size_gib;
  const std::pair<const char*, const std::optional<QualityFigure>*> figures[] = {
      {"ppl", &r.ppl}, {"delta_ppl", &r.delta_ppl}, {"delta_ppl_pct", &r.delta_ppl_pct}, {"kld", &r.kld},
      {"mean_dp_pct", &r.mean_dp_pct}, {"rms_dp_pct", &r.rms_dp_pct}, {"same_top_p_pct", &r.same_top_p_pct}};
  for (const auto& [name, figure] : figures) {
    if (*figure) j[name] = **figure;
  }
}

fs::path default_llama_cpp_source() {
  if (const char* env = std::getenv("ECOCOMPUTE_LLAMA_SOURCE"); env != nullptr && *env != '\0') return env;
  return data_dir().parent_path() / "third_party" / "llama.cpp";
}

Result<QualityBatch> read_llama_cpp_quality(const fs::path& path) {
  std::error_code ec;
  const bool is_tree = fs::is_directory(path, ec);
  const fs::path file = is_tree ? path / kPerplexityReadme : path;
  auto text = read_file(file);
  if (!text) return Error{ErrorCode::not_found, "no llama.cpp perplexity README at " + file.string(), text.error()};
  const std::optional<fs::path> root = is_tree ? std::optional<fs::path>(path) : source_root_of(file);
  const std::string inside = root ? file.lexically_relative(*root).generic_string() : file.filename().string();
  const std::optional<std::string> commit = root ? commit_of_tree(*root) : std::nullopt;
  auto batch = parse_perplexity_readme(*text, inside, commit.value_or("unknown"), file.string());
  if (batch && !commit) batch->notes.push_back("the llama.cpp commit of " + file.string() + " is unknown (no fetch stamp, no .git)");
  return batch;
}

std::optional<std::string> project_precision_name(std::string_view llama_cpp_name) {
  if (auto type = parse_gguf_type(llama_cpp_name)) return std::string(to_string(*type));
  // The old scoreboards call the baseline "fp16", which the precision table knows as the published name.
  if (auto type = gguf_type_for_published_name(llama_cpp_name); type && precision_info(*type).is_baseline) {
    return std::string(to_string(*type));
  }
  return std::nullopt;
}

}  // namespace ecocompute::data
