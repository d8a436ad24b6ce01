// The flag and output shared by the commands that answer from the evidence (estimate, optimize,
// check, serve, mcp): which store.
#pragma once

#include <CLI/CLI.hpp>

#include <iostream>
#include <string>

#include "data/dataset_store.hpp"
#include "decide/evidence.hpp"
#include "util/log.hpp"

namespace ecocompute::cli {

struct EvidenceFlags {
  std::string store = data::default_store_path().string();

  /// Adds --store to `app`.
  void add_to(CLI::App* app) {
    app->add_option("--store", store, "Dataset store (SQLite file or postgresql:// URL); the shipped published data and our "
                                      "shipped sessions if it does not exist")
        ->capture_default_str();
  }

  /// Loads the evidence and its fitted decision model (fitted once per change of the store): a command
  /// answering one question reads its rows by key, the server every row.
  [[nodiscard]] Result<decide::Evidence> load(decide::RowLoading loading = decide::RowLoading::by_key) const {
    bool published = false;
    auto evidence = decide::load_evidence_at(store, &published, loading);
    if (evidence && published) log::info("no store at {}; answering from the shipped published data and our shipped sessions (data/sessions/shipped.txt)", store);
    return evidence;
  }
};

/// Prints an answer as JSON (`--json`) or as its terminal text, and returns exit_ok.
template <typename Answer>
int print_answer(const Answer& answer, bool json) {
  if (json) {
    std::cout << Json(answer).dump(2) << "\n";
  } else {
    std::cout << to_text(answer);
  }
  return 0;
}

}  // namespace ecocompute::cli
