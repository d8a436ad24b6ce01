// `ecocompute data import|list|show|curves|import-quality|quality`: the dataset store (sessions keyed by
// environment fingerprint, ΔE recomputed from energies, inconsistent rows flagged), the curves fitted to
// it, and the published quality evidence read from the fetched llama.cpp source.
#include <iostream>

#include "cli/command.hpp"
#include "cli/exit_code.hpp"
#include "data/console_text.hpp"
#include "data/curve_set.hpp"
#include "data/dataset_import.hpp"
#include "data/dataset_store.hpp"
#include "data/published_quality.hpp"
#include "data/quality_text.hpp"
#include "decide/evidence.hpp"
#include "util/file_io.hpp"
#include "util/log.hpp"

namespace ecocompute::cli {

namespace {

struct DataOptions {
  std::string store = data::default_store_path().string();
  std::vector<std::string> sources;
  std::string session;
  std::string quality_source = data::default_llama_cpp_source().string();
  std::string quality_precision;
  bool json = false, per_session = false, pool = false, unweighted = false, reproduce = false;
};

// Imports each source in its own transaction; the first bad source stops with its error.
int run_import(const DataOptions& o) {
  auto store = data::DatasetStore::open(o.store);
  if (!store) return report_error(store.error());
  Json out = Json::array();
  data::RunSummaries runs;  // the reports of one run share its run.json
  for (const std::string& source : o.sources) {
    auto batch = data::read_import_source(source, runs);
    if (!batch) return report_error(batch.error());
    auto summary = store->import(*batch);
    if (!summary) return report_error(summary.error());
    if (o.json) {
      out.push_back(*summary);
    } else {
      std::cout << data::to_text(*summary);
    }
  }
  if (o.json) std::cout << out.dump(2) << "\n";
  // Fit the decision model once per change of the evidence, now, and keep it in the store: questions
  // read it instead of refitting.
  auto fitted = decide::load_evidence(std::make_shared<data::DatasetStore>(std::move(*store)), decide::RowLoading::by_key);
  if (!fitted) log::warn("imported, but the decision model could not be fitted now ({}); the next question fits it", fitted.error().message());
  return exit_ok;
}

// Reads the perplexity tables of a llama.cpp source and writes them in one transaction.
int run_import_quality(const DataOptions& o) {
  auto batch = data::read_llama_cpp_quality(o.quality_source);
  if (!batch) return report_error(batch.error());
  auto store = data::DatasetStore::open(o.store);
  if (!store) return report_error(store.error());
  auto summary = store->import_quality(*batch);
  if (!summary) return report_error(summary.error());
  std::cout << (o.json ? Json(*summary).dump(2) + "\n" : data::to_text(*summary));
  return exit_ok;
}

// Lists the published quality rows of the store (or, without one, of the shipped evidence).
int run_quality(const DataOptions& o) {
  bool published = false;
  auto store = data::open_store_or_published(o.store, &published);
  if (!store) return report_error(store.error());
  if (published) log::info("no store at {}; showing the shipped evidence", o.store);
  std::optional<std::string> precision;
  if (!o.quality_precision.empty()) {
    precision = data::project_precision_name(o.quality_precision).value_or(o.quality_precision);
  }
  auto rows = store->quality_rows(precision);
  if (!rows) return report_error(rows.error());
  std::cout << (o.json ? Json(*rows).dump(2) + "\n" : data::published_quality_table(*rows));
  return exit_ok;
}

// Curves per (arch, engine, precision): by default one per key without pooling sessions.
Result<std::vector<data::Curve>> fit_curves(const DataOptions& o, const std::vector<data::DataRow>& rows,
                                            const std::vector<data::Session>& sessions) {
  const auto weighting = o.unweighted ? data::FitWeighting::unweighted : data::FitWeighting::weighted;
  if (o.reproduce) return data::reproduce_published_curves(data_dir() / "published" / "site_measured_fit_input.csv");
  if (o.per_session) return data::fit_per_session(rows, sessions, weighting);
  data::CurveSetOptions options;
  options.weighting = weighting;
  options.pool_sessions = o.pool;
  auto set = data::fit_curve_set(rows, sessions, options);
  if (!set) return set.error();
  return std::move(set->curves);
}

enum class ReadCommand { list, show, curves };

// list, show and curves read the store (or, when it does not exist, the shipped published data).
int run_read(const DataOptions& o, ReadCommand command) {
  bool published = false;
  auto store = data::open_store_or_published(o.store, &published);
  if (!store) return report_error(store.error());
  if (published) log::info("no store at {}; showing the shipped published data", o.store);
  auto sessions = store->sessions();
  if (!sessions) return report_error(sessions.error());
  // Each command reads only the rows it shows: a list counts them in the database.
  auto rows_of = [&](std::optional<std::string> session) {
    return store->rows(data::RowQuery{.gpu_arch = {}, .engine = {}, .precision = {}, .session_id = std::move(session),
                                      .measured_only = false, .quality_or_note = {}});
  };
  switch (command) {
    case ReadCommand::list: {
      auto counts = o.json ? Result<std::map<std::string, int>>(std::map<std::string, int>{}) : store->row_counts();
      if (!counts) return report_error(counts.error());
      std::cout << (o.json ? Json(*sessions).dump(2) + "\n" : data::sessions_table(*sessions, *counts));
      break;
    }
    case ReadCommand::show: {
      auto session = store->find_session(o.session);
      if (!session) return report_error(session.error());
      auto rows = rows_of(session->id);
      if (!rows) return report_error(rows.error());
      std::cout << (o.json ? Json{{"session", *session}, {"rows", *rows}}.dump(2) + "\n"
                           : data::session_text(*session, *rows));
      break;
    }
    case ReadCommand::curves: {
      auto rows = rows_of(std::nullopt);
      if (!rows) return report_error(rows.error());
      auto fitted = fit_curves(o, *rows, *sessions);
      if (!fitted) return report_error(fitted.error());
      std::cout << (o.json ? Json(*fitted).dump(2) + "\n" : data::curves_table(*fitted));
      break;
    }
  }
  return exit_ok;
}

}  // namespace

Command make_data_command(CLI::App& root) {
  auto o = std::make_shared<DataOptions>();
  CLI::App* app = root.add_subcommand("data", "The dataset: import reports and published data, list and show sessions, fit curves");
  app->require_subcommand(1);
  app->add_option("--store", o->store, "Dataset store (SQLite file or postgresql:// URL)")->capture_default_str();
  app->add_flag("--json", o->json, "Print JSON");
  CLI::App* import = app->add_subcommand("import", "Import energy.json reports or published CSVs (one transaction per source)");
  import->add_option("sources", o->sources, "energy.json files, published CSV files or folders")->required();
  app->add_subcommand("list", "List sessions");
  CLI::App* show = app->add_subcommand("show", "Show one session and its rows");
  show->add_option("session", o->session, "Session id, id prefix or label")->required();
  CLI::App* curves = app->add_subcommand("curves", "Fit and list curves per (arch, engine, precision)");
  curves->add_flag("--per-session", o->per_session, "One curve per session");
  curves->add_flag("--pool-sessions", o->pool, "Pool all sessions of a key (never done by default)");
  curves->add_flag("--unweighted", o->unweighted, "Fit unweighted (the published method)");
  curves->add_flag("--reproduce-published", o->reproduce, "Refit the site's fit input with the published method");
  CLI::App* import_quality = app->add_subcommand(
      "import-quality", "Import the published quality tables (PPL, ΔPPL, KLD, Δp) of llama.cpp's perplexity README");
  import_quality->add_option("source", o->quality_source, "llama.cpp source tree or its tools/perplexity/README.md")
      ->capture_default_str();
  CLI::App* quality = app->add_subcommand("quality", "List the published quality rows with their sources");
  quality->add_option("--precision,-p", o->quality_precision, "Only this weight format (any case: q4_k_m)");
  return {app, [o, import, show, curves, import_quality, quality]() -> int {
            if (import->parsed()) return run_import(*o);
            if (import_quality->parsed()) return run_import_quality(*o);
            if (quality->parsed()) return run_quality(*o);
            if (show->parsed()) return run_read(*o, ReadCommand::show);
            if (curves->parsed()) return run_read(*o, ReadCommand::curves);
            return run_read(*o, ReadCommand::list);
          }};
}

}  // namespace ecocompute::cli
