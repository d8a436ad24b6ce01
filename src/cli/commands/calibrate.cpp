// `ecocompute calibrate`: leave-one-session-out (and -size-, -batch-out) coverage of the decision
// layer's 95 % intervals on the measured cells of the store (or the shipped evidence), per basis.
#include <iostream>
#include <set>

#include "cli/command.hpp"
#include "cli/exit_code.hpp"
#include "data/dataset_store.hpp"
#include "decide/calibration.hpp"
#include "decide/model_predictor.hpp"
#include "util/file_io.hpp"
#include "util/log.hpp"

namespace ecocompute::cli {
namespace {

std::size_t held_out_answers(const decide::CalibrationReport& report) {
  std::size_t n = 0;
  for (const decide::ModeCalibration& m : report.modes) n += m.cells.size();
  return n;
}

}  // namespace

Command make_calibrate_command(CLI::App& root) {
  struct Options {
    std::string store = data::default_store_path().string();
    std::vector<std::string> modes{"session", "size", "batch"};
    bool json = false;
    std::string write;
  };
  auto o = std::make_shared<Options>();
  CLI::App* app = root.add_subcommand("calibrate", "Coverage of the nominal 95 % intervals on held-out sessions, sizes and batches, "
                                                   "per basis of the answer");
  app->add_option("--store", o->store, "Dataset store; the shipped published data and sessions if it does not exist")->capture_default_str();
  app->add_option("--hold-out", o->modes, "What each fold holds out: session, size, batch (several allowed)")->capture_default_str();
  app->add_flag("--json", o->json, "Print JSON: per hold-out and basis, n held-out cells and coverage as a fraction");
  app->add_option("--write", o->write,
                  "Write the factors of the intervals per class to this file, with the digest of the evidence they hold for: answers "
                  "on that evidence read them from $ECOCOMPUTE_CALIBRATION, else <data>/interval-calibration.json (every hold-out "
                  "is needed)");
  return {app, [o]() -> int {
            if (!o->write.empty() && std::set<std::string>(o->modes.begin(), o->modes.end()).size() < 3) {
              return report_error(Error{ErrorCode::invalid_argument, "--write needs every hold-out (session, size and batch): the factors "
                                                                     "of answers of every kind come from all of them"});
            }
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
            if (!o->write.empty()) {
              decide::IntervalCalibration written;
              written.evidence_digest = whole->digest;
              written.computed = fmt::format("ecocompute calibrate --hold-out session size batch, {} rows, {} held-out answers",
                                             rows->size(), held_out_answers(*report));
              written.classes = report->factors;
              if (auto w = write_file_atomic(o->write, Json(written).dump(2) + "\n"); !w) return report_error(w.error());
              log::info("wrote the factors of {} classes to {}", written.classes.size(), o->write);
            }
            return exit_ok;
          }};
}

}  // namespace ecocompute::cli
