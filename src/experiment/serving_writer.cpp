// Serving sweep files: staged, then put in place as --out in one rename.
#include "experiment/serving_writer.hpp"

#include <sys/wait.h>

#include <cstdio>
#include <set>
#include <utility>

#include "report/energy_report.hpp"
#include "util/file_io.hpp"
#include "util/log.hpp"

namespace ecocompute::experiment {
namespace {

using protocol::LevelRun;
using protocol::ServingAnalysis;
using protocol::SweepResult;

// Writes the files into `out_dir` (the staging folder); returns their names.
Result<std::vector<std::filesystem::path>> write_files(const std::filesystem::path& out_dir, const SweepResult& sweep,
                                                       const ServingAnalysis& analysis, const ServingContext& context,
                                                       const RunFolderStep& step) {
  std::error_code ec;
  std::vector<std::filesystem::path> written;
  std::set<std::pair<std::size_t, int>> done;
  for (const LevelRun& run : sweep.runs) {
    if (!done.insert({run.endpoint, run.concurrency}).second) continue;
    const auto path = out_dir / serving_report_file_name(run.label, run.concurrency);
    const report::EnergyReport r = build_serving_report(sweep, analysis, run.endpoint, run.concurrency, context);
    if (auto wrote = report::write_energy_report(path, r); !wrote) return wrote.error();
    if (step) step("write " + path.filename().string());
    written.push_back(path);
  }
  const auto json_path = out_dir / "sweep.json";
  if (auto wrote = write_file_atomic(json_path, serving_summary_json(sweep, analysis, context).dump(2) + "\n"); !wrote) return wrote.error();
  written.push_back(json_path);
  const auto md_path = out_dir / "sweep.md";
  if (auto wrote = write_file_atomic(md_path, serving_summary_markdown(sweep, analysis, context)); !wrote) return wrote.error();
  written.push_back(md_path);

  const auto svg = out_dir / "jtoken-vs-concurrency.svg";
  const std::string script = serving_plot_script(sweep, analysis, svg);
  if (script.empty()) {
    log::info("no plot: no energy was measured");
    return written;
  }
  // The kept script names the SVG beside it, so the folder can be drawn again wherever it is copied.
  const auto gp = out_dir / "jtoken-vs-concurrency.gp";
  if (auto wrote = write_file_atomic(gp, serving_plot_script(sweep, analysis, svg.filename())); !wrote) {
    return wrote.error();
  }
  written.push_back(gp);
  FILE* pipe = popen("gnuplot 1>&2", "w");
  bool plotted = false;
  if (pipe != nullptr) {
    const bool sent = std::fwrite(script.data(), 1, script.size(), pipe) == script.size();
    const int status = pclose(pipe);
    plotted = sent && status != -1 && WIFEXITED(status) && WEXITSTATUS(status) == 0 &&
              std::filesystem::exists(svg, ec);
  }
  if (plotted) {
    written.push_back(svg);
  } else {
    log::warn("gnuplot could not draw {} (install the Debian package gnuplot, then run `gnuplot {}` in the "
              "output folder)", svg.filename().string(), gp.filename().string());
  }
  return written;
}

}  // namespace

Result<std::vector<std::filesystem::path>> write_serving_reports(const std::filesystem::path& out_dir,
                                                                 const SweepResult& sweep,
                                                                 const ServingAnalysis& analysis,
                                                                 const ServingContext& context,
                                                                 const RunFolderStep& step) {
  auto staging = begin_run_folder(out_dir, "serving-" + (context.report.run_id.empty() ? std::string("run") : context.report.run_id));
  if (!staging) return staging.error();
  auto written = write_files(*staging, sweep, analysis, context, step);
  if (!written) return written.error();
  auto committed = commit_run_folder(*staging, out_dir, step);
  if (!committed) return committed.error();
  if (*committed) log::info("the previous sweep in {} was moved to {}", out_dir.string(), (*committed)->string());
  std::vector<std::filesystem::path> in_place;
  for (const auto& path : *written) in_place.push_back(out_dir / path.filename());
  return in_place;
}

}  // namespace ecocompute::experiment
