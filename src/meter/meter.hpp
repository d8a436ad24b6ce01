// Meter: an energy source read at the edges of windows around synchronized work.
#pragma once

#include <memory>
#include <string>

#include "meter/measurement.hpp"
#include "util/result.hpp"

namespace ecocompute::meter {

class Meter;

/// An open measurement. Move-only; `Meter::end` consumes it. A window dropped without end() is
/// reported to the log by its destructor.
class Window {
 public:
  Window(Window&&) noexcept;
  Window& operator=(Window&&) noexcept;
  Window(const Window&) = delete;
  Window& operator=(const Window&) = delete;
  ~Window();

  [[nodiscard]] const std::string& label() const noexcept { return label_; }
  [[nodiscard]] std::uint64_t id() const noexcept { return id_; }

 private:
  friend class Meter;
  Window(std::string label, std::uint64_t id) : label_(std::move(label)), id_(id) {}
  std::string label_;
  std::uint64_t id_ = 0;
  bool open_ = true;
};

/// An energy source. begin()/end() are called by the controlling thread after the engine has
/// synchronized; implementations never read the device on the thread that runs the measured work.
class Meter {
 public:
  virtual ~Meter() = default;

  /// Returns "nvml-energy-counter", "rapl" or "none".
  [[nodiscard]] virtual std::string source() const = 0;
  /// Returns the device the meter reads (GPU name and UUID, RAPL zone).
  [[nodiscard]] virtual std::string device() const = 0;
  /// Returns whether end() can return energy at all (false for the null meter).
  [[nodiscard]] virtual bool measures_energy() const = 0;

  /// Reads every counter now and opens a window.
  [[nodiscard]] Window begin(std::string label);
  /// Reads every counter again and returns the window's measurement; consumes the window. A window
  /// whose counter reset or stuck still returns a Measurement, with status and reason set.
  [[nodiscard]] Result<Measurement> end(Window window);

 protected:
  Window make_window(std::string label, std::uint64_t id) { return Window(std::move(label), id); }
  static void close(Window& window) noexcept { window.open_ = false; }
  virtual Window do_begin(std::string label) = 0;
  virtual Result<Measurement> do_end(Window& window) = 0;
};

}  // namespace ecocompute::meter
