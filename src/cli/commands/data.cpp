// `ecocompute data import|list|show|curves`: the dataset store (sessions keyed by environment
// fingerprint, ΔE recomputed from energies, inconsistent rows flagged) and the curves fitted to it.
#include <iostream>

#include "cli/command.hpp"
#include "cli/exit_code.hpp"
#include "data/console_text.hpp"
#include "data/curve_set.hpp"
#include "data/dataset_import.hpp"
#include "data/dataset_store.hpp"
#include "util/file_io.hpp"
#include "util/log.hpp"

namespace ecocompute::cli {

Command make_data_command(CLI::App& root) {
  struct Options {
    std::string store = data::default_store_path().string();
    std::vector<std::string> sources;
    std::string session;
    bool json = false, per_session = false, pool = false, unweighted = false, reproduce = false;
  };
  auto o = std::make_shared<Options>();
  CLI::App* app = root.add_subcommand("data", "The dataset: import reports and published data, list and show sessions, fit curves");
  app->require_subcommand(1);
  app->add_option("--store", o->store, "Dataset store (SQLite file)")->capture_default_str();
  app->add_flag("--json", o->json, "Print JSON");
  CLI::App* import = app->add_subcommand("import", "Import energy.json reports or published CSVs (one transaction per source)");
  import->add_option("sources", o->sources, "energy.json files, published CSV files or folders")->required();
  CLI::App* list = app->add_subcommand("list", "List sessions");
  CLI::App* show = app->add_subcommand("show", "Show one session and its rows");
  show->add_option("session", o->session, "Session id, id prefix or label")->required();
  CLI::App* curves = app->add_subcommand("curves", "Fit and list curves per (arch, engine, precision)");
  curves->add_flag("--per-session", o->per_session, "One curve per session");
  curves->add_flag("--pool-sessions", o->pool, "Pool all sessions of a key (never done by default)");
  curves->add_flag("--unweighted", o->unweighted, "Fit unweighted (the published method)");
  curves->add_flag("--reproduce-published", o->reproduce, "Refit the site's fit input with the published method");
  return {app, [o, import, list, show, curves]() -> int {
            if (import->parsed()) {
              auto store = data::DatasetStore::open(o->store);
              if (!store) return report_error(store.error());
              Json out = Json::array();
              for (const std::string& source : o->sources) {
                auto batch = data::read_import_source(source);
                if (!batch) return report_error(batch.error());
                auto summary = store->import(*batch);
                if (!summary) return report_error(summary.error());
                if (o->json) {
                  out.push_back(*summary);
                } else {
                  std::cout << data::to_text(*summary);
                }
              }
              if (o->json) std::cout << out.dump(2) << "\n";
              return static_cast<int>(exit_ok);
            }
            bool published = false;
            auto store = data::open_store_or_published(o->store, &published);
            if (!store) return report_error(store.error());
            if (published) log::info("no store at {}; showing the shipped published data", o->store);
            auto rows = store->rows(data::RowQuery{.gpu_arch = {}, .engine = {}, .precision = {}, .session_id = {},
                                                   .measured_only = false});
            if (!rows) return report_error(rows.error());
            auto sessions = store->sessions();
            if (!sessions) return report_error(sessions.error());
            if (list->parsed()) {
              if (o->json) {
                std::cout << Json(*sessions).dump(2) << "\n";
              } else {
                std::cout << data::sessions_table(*sessions, *rows);
              }
            } else if (show->parsed()) {
              auto session = store->find_session(o->session);
              if (!session) return report_error(session.error());
              std::erase_if(*rows, [&](const data::DataRow& r) { return r.session_id != session->id; });
              if (o->json) {
                std::cout << Json{{"session", *session}, {"rows", *rows}}.dump(2) << "\n";
              } else {
                std::cout << data::session_text(*session, *rows);
              }
            } else if (curves->parsed()) {
              const auto weighting = o->unweighted ? data::FitWeighting::unweighted : data::FitWeighting::weighted;
              Result<std::vector<data::Curve>> fitted =
                  o->reproduce ? data::reproduce_published_curves(data_dir() / "published" / "site_measured_fit_input.csv")
                  : o->per_session ? data::fit_per_session(*rows, *sessions, weighting)
                                   : Result<std::vector<data::Curve>>(std::vector<data::Curve>{});
              if (!o->reproduce && !o->per_session) {
                data::CurveSetOptions options;
                options.weighting = weighting;
                options.pool_sessions = o->pool;
                auto set = data::fit_curve_set(*rows, *sessions, options);
                if (!set) return report_error(set.error());
                fitted = std::move(set->curves);
              }
              if (!fitted) return report_error(fitted.error());
              if (o->json) {
                std::cout << Json(*fitted).dump(2) << "\n";
              } else {
                std::cout << data::curves_table(*fitted);
              }
            }
            return static_cast<int>(exit_ok);
          }};
}

}  // namespace ecocompute::cli
