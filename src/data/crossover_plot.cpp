// Crossover chart through gnuplot: the script carries its data inline (datablocks), so one process
// run writes one file; no temporary data files.
#include "data/crossover_plot.hpp"

#include <sys/wait.h>

#include <cmath>
#include <algorithm>
#include <cstdio>
#include <set>
#include <sstream>

#include <fmt/format.h>

namespace ecocompute::data {
namespace {

std::string quote(const std::string& text) {  // a gnuplot single-quoted string
  std::string out = "'";
  for (char c : text) {
    if (c == '\'') out += "''";
    else out += c;
  }
  return out + "'";
}

// Breaks `text` at spaces into lines of at most `width` characters, so a long title wraps instead of
// running off the canvas.
std::string wrapped(const std::string& text, std::size_t width) {
  std::string out, line;
  std::istringstream words(text);
  for (std::string word; words >> word;) {
    if (!line.empty() && line.size() + 1 + word.size() > width) {
      out += (out.empty() ? "" : "\n") + line;
      line.clear();
    }
    line += (line.empty() ? "" : " ") + word;
  }
  return out + (out.empty() ? "" : "\n") + line;
}

// A gnuplot double-quoted string; a line break becomes the escape gnuplot draws as one.
std::string double_quoted(const std::string& text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

}  // namespace

std::string crossover_plot_script(const std::vector<Curve>& curves, const PlotOptions& options) {
  std::ostringstream s;
  const std::string ext = options.output.extension().string();
  if (ext == ".png") {
    s << fmt::format("set terminal pngcairo size {},{} enhanced font 'sans,11'\n", options.width_px, options.height_px);
  } else {
    s << fmt::format("set terminal svg size {},{} dynamic enhanced font 'sans,11'\n", options.width_px, options.height_px);
  }
  s << "set output " << quote(options.output.string()) << "\n";
  std::string title = options.title;
  if (title.empty() && curves.size() == 1) {
    const CurveKey& k = curves.front().key;
    title = fmt::format("{} {} {}: energy per token vs FP16", k.gpu_arch, k.engine, k.precision);
  }
  // An 11-pt sans character is about 7 px wide; 8 leaves room for wide ones.
  const auto title_width = static_cast<std::size_t>(std::max(20, options.width_px / 8));
  const std::string shown = wrapped(title.empty() ? "Energy per token vs FP16" : title, title_width);
  s << "set title " << double_quoted(shown) << " noenhanced\n";
  s << "set xlabel 'model size (billions of parameters)'\nset ylabel 'ΔE vs FP16 (%)'\n";
  // The legend goes below the plot, one entry per line, so however long a curve's session label is it
  // never takes width from the plot; the band and point styles are named once, not once per curve.
  s << "set logscale x\nset grid\nset key below left Left reverse maxcols 1 noenhanced\nset xzeroaxis lt -1\n";
  double lo = 1e300, hi = 0;
  for (const Curve& c : curves) {
    lo = std::min(lo, c.fit.range_min_b);
    hi = std::max(hi, c.fit.range_max_b);
  }
  const double x_min = lo / 1.5, x_max = hi * 1.5;
  s << fmt::format("set xrange [{:g}:{:g}]\n", x_min, x_max);
  std::vector<std::string> plots;
  std::set<std::string> named;
  const auto legend_once = [&named](const std::string& entry) {
    return named.insert(entry).second ? "title " + quote(entry) : std::string("notitle");
  };
  for (std::size_t i = 0; i < curves.size(); ++i) {
    const Curve& c = curves[i];
    const int colour = static_cast<int>(i) + 1;
    const std::string name = fmt::format("{} {} ({})", c.key.gpu_arch, c.key.precision, c.session_label);
    // Curve and band sampled on a log grid.
    s << "$curve" << i << " << EOD\n";
    bool band = false;
    for (int step = 0; step <= 120; ++step) {
      const double n = std::exp(std::log(x_min) + (std::log(x_max) - std::log(x_min)) * step / 120);
      const CurveValue v = c.fit.at(n);
      band = band || v.ci_low_pct.has_value();
      s << fmt::format("{:.6g} {:.6g} {:.6g} {:.6g}\n", n, v.delta_pct, v.ci_low_pct.value_or(v.delta_pct),
                       v.ci_high_pct.value_or(v.delta_pct));
    }
    s << "EOD\n";
    std::string filled, hollow;
    for (const FitPoint& p : c.fit.points) {
      (p.n >= 2 ? filled : hollow) += fmt::format("{:.6g} {:.6g}\n", p.params_b, p.delta_pct);
    }
    s << "$filled" << i << " << EOD\n" << filled << "EOD\n";
    s << "$hollow" << i << " << EOD\n" << hollow << "EOD\n";
    plots.push_back(fmt::format("$curve{} using 1:2 with lines lw 2 lc {} title {}", i, colour, quote(name)));
    if (band) {
      plots.push_back(fmt::format("$curve{} using 1:3:4 with filledcurves fs transparent solid 0.18 noborder lc {} {}",
                                  i, colour, legend_once("95 % confidence band of the curve")));
    }
    if (!filled.empty()) {
      plots.push_back(fmt::format("$filled{} using 1:2 with points pt 7 ps 1.3 lc {} {}", i, colour,
                                  legend_once("measured, n ≥ 2 (filled)")));
    }
    if (!hollow.empty()) {
      plots.push_back(fmt::format("$hollow{} using 1:2 with points pt 6 ps 1.3 lc {} {}", i, colour,
                                  legend_once("measured, n = 1 (hollow)")));
    }
  }
  s << "plot ";
  for (std::size_t i = 0; i < plots.size(); ++i) s << (i == 0 ? "" : ", \\\n     ") << plots[i];
  s << "\nunset output\n";
  return s.str();
}

Result<void> write_crossover_plot(const std::vector<Curve>& curves, const PlotOptions& options) {
  if (curves.empty()) return unexpected(ErrorCode::invalid_argument, "no curve to plot");
  const std::string ext = options.output.extension().string();
  if (ext != ".svg" && ext != ".png") {
    return unexpected(ErrorCode::invalid_argument, "plot output " + options.output.string() + " must end in .svg or .png");
  }
  const std::string script = crossover_plot_script(curves, options);
  const std::string command = options.gnuplot + " 1>&2";  // gnuplot's messages go to our stderr
  FILE* pipe = popen(command.c_str(), "w");
  if (pipe == nullptr) return unexpected(ErrorCode::unavailable, "cannot run " + options.gnuplot);
  const bool written = std::fwrite(script.data(), 1, script.size(), pipe) == script.size();
  const int status = pclose(pipe);
  if (status == -1 || !WIFEXITED(status) || WEXITSTATUS(status) == 127) {
    return unexpected(ErrorCode::unavailable, options.gnuplot + " could not be run (install the Debian package gnuplot)");
  }
  if (!written || WEXITSTATUS(status) != 0) {
    return unexpected(ErrorCode::io, options.gnuplot + " failed to write " + options.output.string());
  }
  std::error_code ec;
  if (!std::filesystem::exists(options.output, ec) || std::filesystem::file_size(options.output, ec) == 0) {
    return unexpected(ErrorCode::io, options.gnuplot + " wrote no " + options.output.string());
  }
  return {};
}

}  // namespace ecocompute::data
