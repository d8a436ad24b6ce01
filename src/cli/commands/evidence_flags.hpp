// The flags and output shared by the commands that answer from the dataset (estimate, optimize, check, plot):
// which store, which curves, which session, pooled or not, weighted or not.
#pragma once

#include <CLI/CLI.hpp>

#include <iostream>
#include <string>

#include "data/console_text.hpp"
#include "data/dataset_store.hpp"
#include "data/evidence.hpp"
#include "util/log.hpp"

namespace ecocompute::cli {

struct EvidenceFlags {
  std::string store = data::default_store_path().string();
  std::string curves = "store";
  std::string session;
  bool pool = false;
  bool unweighted = false;

  /// Adds --store, --curves, --session, --pool-sessions and --unweighted to `app`.
  void add_to(CLI::App* app) {
    app->add_option("--store", store, "Dataset store (SQLite); the shipped published data if it does not exist")
        ->capture_default_str();
    app->add_option("--curves", curves, "Curves: store (fitted to the dataset) or published")->capture_default_str();
    app->add_option("--session", session, "Fit curves to this session (id or label)");
    app->add_flag("--pool-sessions", pool, "Pool all sessions of a key into one fit (never done by default)");
    app->add_flag("--unweighted", unweighted, "Fit unweighted (the published method)");
  }

  /// Loads the evidence the flags name.
  [[nodiscard]] Result<data::Evidence> load() const {
    auto options = data::make_evidence_options(curves, pool, unweighted, session);
    if (!options) return options.error();
    bool published = false;
    auto evidence = data::load_evidence_at(store, *options, &published);
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
    std::cout << data::to_text(answer);
  }
  return 0;
}

}  // namespace ecocompute::cli
