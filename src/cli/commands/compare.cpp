// `ecocompute compare A B`: two reports or sessions side by side, paired differences, and a warning
// when their environment fingerprints differ.
#include <iostream>

#include "cli/command.hpp"
#include "cli/commands/evidence_flags.hpp"
#include "data/comparison.hpp"
#include "decide/card_spread.hpp"
#include "decide/evidence.hpp"

namespace ecocompute::cli {

Command make_compare_command(CLI::App& root) {
  struct Options {
    std::string a, b;
    std::string store = data::default_store_path().string();
    bool json = false;
  };
  auto o = std::make_shared<Options>();
  CLI::App* app = root.add_subcommand("compare", "Compare two reports or sessions: paired differences against their own CIs "
                                                 "and the spread between cards the decision model shows, and a warning when "
                                                 "they come from different stacks");
  app->add_option("a", o->a, "energy.json, published CSV/folder, or a session id/label in the store")->required();
  app->add_option("b", o->b, "the other side")->required();
  app->add_option("--store", o->store, "Dataset store for session names (the shipped published data if it does not exist)")
      ->capture_default_str();
  app->add_flag("--json", o->json, "Print the comparison as JSON");
  return {app, [o] {
            auto store = data::open_store_or_published(o->store);
            if (!store) return report_error(store.error());
            auto a = data::load_comparison_side(o->a, *store);
            if (!a) return report_error(a.error());
            auto b = data::load_comparison_side(o->b, *store);
            if (!b) return report_error(b.error());
            data::Comparison comparison = data::compare(*a, *b);
            // The model's between-card spread says whether the two differ by more than cards do.
            auto evidence = decide::load_evidence_at(o->store);
            if (evidence) decide::add_between_card_spread(comparison, *evidence);
            return print_answer(comparison, o->json);
          }};
}

}  // namespace ecocompute::cli
