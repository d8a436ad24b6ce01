// ProgressBar: the run's progress on stderr; a redrawn bar on a terminal, one line per event otherwise.
#pragma once

#include <cstdio>
#include <string>

#include "protocol/runner.hpp"

namespace ecocompute::experiment {

/// Shows a Runner's progress. On a terminal it redraws one line ("[####----] 3/9 trial Q8_0 … ETA 1m20s");
/// elsewhere (a log file, CI) it writes one line per call, i.e. per phase change and per finished
/// trial. Not thread-safe: call it from the runner's thread, as the ProgressCallback is.
///
///   ProgressBar bar(stderr, ProgressBar::is_terminal(stderr));
///   runner.set_progress([&bar](const protocol::Progress& p) { bar.update(p); });
class ProgressBar {
 public:
  /// `out` must outlive the bar; `redraw` selects the terminal form.
  ProgressBar(std::FILE* out, bool redraw, std::size_t width = 30);
  ~ProgressBar();
  ProgressBar(const ProgressBar&) = delete;
  ProgressBar& operator=(const ProgressBar&) = delete;

  /// Shows `progress`; never throws (a write failure is ignored).
  void update(const protocol::Progress& progress) noexcept;
  /// Ends the bar's line on a terminal (also done by the destructor); a no-op otherwise.
  void finish() noexcept;

  /// Returns whether `stream` is a terminal.
  [[nodiscard]] static bool is_terminal(std::FILE* stream) noexcept;

  /// Returns the text of one update without the terminal control characters (for tests and logs).
  [[nodiscard]] std::string render(const protocol::Progress& progress) const;

 private:
  std::FILE* out_;
  bool redraw_;
  std::size_t width_;
  bool line_open_ = false;
};

/// Formats a duration as "45s", "3m05s" or "1h02m".
[[nodiscard]] std::string format_eta(double seconds);

}  // namespace ecocompute::experiment
