// ProgressBar: bar arithmetic and the two output forms.
#include "experiment/progress_bar.hpp"

#include <unistd.h>

#include <cmath>

#include <fmt/format.h>

namespace ecocompute::experiment {

ProgressBar::ProgressBar(std::FILE* out, bool redraw, std::size_t width) : out_(out), redraw_(redraw), width_(width) {}

ProgressBar::~ProgressBar() { finish(); }

bool ProgressBar::is_terminal(std::FILE* stream) noexcept { return ::isatty(::fileno(stream)) == 1; }

std::string format_eta(double seconds) {
  const long s = std::lround(std::max(0.0, seconds));
  if (s < 60) return fmt::format("{}s", s);
  if (s < 3600) return fmt::format("{}m{:02}s", s / 60, s % 60);
  return fmt::format("{}h{:02}m", s / 3600, (s % 3600) / 60);
}

std::string ProgressBar::render(const protocol::Progress& p) const {
  const std::size_t filled = p.n_trials > 0 ? std::min(width_, p.trial * width_ / p.n_trials) : 0;
  std::string text = fmt::format("[{}{}] {}/{} {}", std::string(filled, '#'), std::string(width_ - filled, '-'),
                                 p.trial, p.n_trials, protocol::to_string(p.phase));
  if (!p.message.empty()) text += ": " + p.message;
  if (p.eta && p.phase != protocol::Progress::Phase::done) {
    text += (p.eta_is_lower_bound ? " ETA ≥" : " ETA ") + format_eta(p.eta->value);
  }
  return text;
}

void ProgressBar::update(const protocol::Progress& progress) noexcept {
  try {
    const std::string text = render(progress);
    if (redraw_) {
      std::fprintf(out_, "\r\033[K%s", text.c_str());  // \033[K clears the rest of the line
      line_open_ = true;
      if (progress.phase == protocol::Progress::Phase::done) finish();
    } else {
      std::fprintf(out_, "ecocompute: %s\n", text.c_str());
    }
    std::fflush(out_);
  } catch (...) {
    // Progress is cosmetic: a formatting or allocation failure must not stop a measurement.
  }
}

void ProgressBar::finish() noexcept {
  if (redraw_ && line_open_) {
    std::fputc('\n', out_);
    std::fflush(out_);
    line_open_ = false;
  }
}

}  // namespace ecocompute::experiment
