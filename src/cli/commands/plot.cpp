// `ecocompute plot`: the crossover chart (measured points filled for n ≥ 2, hollow for n = 1; fitted
// curve; 95 % confidence band) as SVG and/or PNG through gnuplot.
#include <iostream>

#include "cli/command.hpp"
#include "cli/exit_code.hpp"
#include "data/crossover_plot.hpp"
#include "data/curve_set.hpp"
#include "data/dataset_store.hpp"
#include "util/log.hpp"
#include "util/file_io.hpp"

namespace ecocompute::cli {

namespace {

struct PlotFlags {
  std::string arch, precision = "NF4", engine, title, gnuplot = "gnuplot";
  std::vector<std::string> outputs;
  bool per_session = false, reproduce = false, unweighted = false, pool = false;
  std::string store = data::default_store_path().string();
  std::string session;
};

// The curves to draw: the published method's refit, or the store's (or the shipped data's) fits.
Result<std::vector<data::Curve>> plot_curves(const PlotFlags& o) {
  if (o.reproduce) return data::reproduce_published_curves(data_dir() / "published" / "site_measured_fit_input.csv");
  bool published = false;
  auto store = data::open_store_or_published(o.store, &published);
  if (!store) return store.error();
  if (published) log::info("no store at {}; plotting the shipped published data and sessions", o.store);
  auto rows = store->rows(data::RowQuery{});
  if (!rows) return rows.error();
  auto sessions = store->sessions();
  if (!sessions) return sessions.error();
  const auto weighting = o.unweighted ? data::FitWeighting::unweighted : data::FitWeighting::weighted;
  if (o.per_session) return data::fit_per_session(*rows, *sessions, weighting);
  data::CurveSetOptions options;
  options.weighting = weighting;
  options.pool_sessions = o.pool;
  if (!o.session.empty()) options.session = o.session;
  auto set = data::fit_curve_set(*rows, *sessions, options);
  if (!set) return set.error();
  return std::move(set->curves);
}

}  // namespace

Command make_plot_command(CLI::App& root) {
  using Options = PlotFlags;
  auto o = std::make_shared<Options>();
  CLI::App* app = root.add_subcommand("plot", "Write the crossover chart (ΔE vs model size) as SVG and/or PNG");
  app->add_option("--arch,-a", o->arch, "Architecture to plot (default: every one with a curve)");
  app->add_option("--precision,-p", o->precision, "Precision")->capture_default_str();
  app->add_option("--engine,-e", o->engine, "Engine (default: any)");
  app->add_option("--output,-o", o->outputs, "Output file(s): .svg and/or .png")->required();
  app->add_option("--title", o->title, "Chart title");
  app->add_option("--gnuplot", o->gnuplot, "gnuplot program")->capture_default_str();
  app->add_flag("--per-session", o->per_session, "One curve per session (shows how far sessions disagree)");
  app->add_flag("--reproduce-published", o->reproduce, "Curves refitted to the site's fit input with the published method");
  app->add_option("--store", o->store, "Dataset store; the shipped published data and sessions if it does not exist")->capture_default_str();
  app->add_flag("--unweighted", o->unweighted, "Fit unweighted (the published method)");
  app->add_flag("--pool-sessions", o->pool, "Pool all sessions of a key into one fit (never done by default)");
  app->add_option("--session", o->session, "Fit curves to this session (id or label)");
  return {app, [o] {
            auto fitted = plot_curves(*o);
            if (!fitted) return report_error(fitted.error());
            std::vector<data::Curve> curves = std::move(*fitted);
            std::erase_if(curves, [&](const data::Curve& c) {
              return c.key.precision != o->precision || (!o->arch.empty() && c.key.gpu_arch != o->arch) ||
                     (!o->engine.empty() && c.key.engine != o->engine) || c.fit.points.empty();
            });
            if (curves.empty()) {
              return report_error(Error{ErrorCode::not_found, "no fitted curve with measured points for " + o->precision +
                                                                  (o->arch.empty() ? "" : " on " + o->arch)});
            }
            for (const std::string& output : o->outputs) {
              data::PlotOptions options;
              options.output = output;
              options.title = o->title;
              options.gnuplot = o->gnuplot;
              if (auto written = data::write_crossover_plot(curves, options); !written) return report_error(written.error());
              std::cout << output << "\n";
            }
            return static_cast<int>(exit_ok);
          }};
}

}  // namespace ecocompute::cli
