// `ecocompute plot`: the crossover chart (measured points filled for n ≥ 2, hollow for n = 1; fitted
// curve; 95 % confidence band) as SVG and/or PNG through gnuplot.
#include <iostream>

#include "cli/command.hpp"
#include "cli/commands/evidence_flags.hpp"
#include "cli/exit_code.hpp"
#include "data/crossover_plot.hpp"
#include "util/file_io.hpp"

namespace ecocompute::cli {

Command make_plot_command(CLI::App& root) {
  struct Options {
    std::string arch, precision = "NF4", engine, title, gnuplot = "gnuplot";
    std::vector<std::string> outputs;
    bool per_session = false, reproduce = false;
    EvidenceFlags evidence;
  };
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
  o->evidence.add_to(app);
  return {app, [o] {
            std::vector<data::Curve> curves;
            if (o->reproduce) {
              auto reproduced = data::reproduce_published_curves(data_dir() / "published" / "site_measured_fit_input.csv");
              if (!reproduced) return report_error(reproduced.error());
              curves = std::move(*reproduced);
            } else {
              auto evidence = o->evidence.load();
              if (!evidence) return report_error(evidence.error());
              if (o->per_session) {
                auto all = data::fit_per_session(evidence->rows, evidence->sessions,
                                                 o->evidence.unweighted ? data::FitWeighting::unweighted : data::FitWeighting::weighted);
                if (!all) return report_error(all.error());
                curves = std::move(*all);
              } else {
                curves = evidence->curves.curves;
              }
            }
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
