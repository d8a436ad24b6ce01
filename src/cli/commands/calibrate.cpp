// `ecocompute calibrate`: leave-one-session-out (and -size-, -batch-out) coverage of the decision
// layer's 95 % intervals on the measured cells of the store (or the shipped evidence), per basis.
#include <iostream>

#include "cli/command.hpp"
#include "cli/exit_code.hpp"
#include "data/dataset_store.hpp"
#include "decide/calibration.hpp"
#include "decide/model_predictor.hpp"
#include "util/log.hpp"

namespace ecocompute::cli {

Command make_calibrate_command(CLI::App& root) {
  struct Options {
    std::string store = data::default_store_path().string();
    std::vector<std::string> modes{"session", "size", "batch"};
    bool json = false;
  };
  auto o = std::make_shared<Options>();
  CLI::App* app = root.add_subcommand("calibrate", "Coverage of the nominal 95 % intervals on held-out sessions, sizes and batches, "
                                                   "per basis of the answer");
  app->add_option("--store", o->store, "Dataset store; the shipped published data and sessions if it does not exist")->capture_default_str();
  app->add_option("--hold-out", o->modes, "What each fold holds out: session, size, batch (several allowed)")->capture_default_str();
  app->add_flag("--json", o->json, "Print JSON: per hold-out and basis, n held-out cells and coverage as a fraction");
  return {app, [o]() -> int {
            std::vector<decide::HoldOut> modes;
            for (const std::string& m : o->modes) {
              auto mode = decide::parse_hold_out(m);
              if (!mode) return report_error(mode.error());
              modes.push_back(*mode);
            }
            bool published = false;
            auto store = data::open_store_or_published(o->store, &published);
            if (!store) return report_error(store.error());
            if (published) log::info("no store at {}; calibrating on the shipped published data and sessions", o->store);
            auto rows = store->rows(data::RowQuery{});
            if (!rows) return report_error(rows.error());
            auto sessions = store->sessions();
            if (!sessions) return report_error(sessions.error());
            auto whole = std::make_shared<const decide::DecisionModel>(decide::DecisionModel::fit(*rows, nullptr, false));
            auto factory = decide::model_factory(whole);
            auto report = decide::calibrate(*rows, *sessions, factory, modes);
            if (!report) return report_error(report.error());
            std::cout << (o->json ? Json(*report).dump(2) + "\n" : decide::to_text(*report));
            return exit_ok;
          }};
}

}  // namespace ecocompute::cli
