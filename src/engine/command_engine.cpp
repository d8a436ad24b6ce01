// The command engine: requests over the control pipe, replies checked before they count.
#include "engine/command_engine.hpp"

#include <chrono>

#include <fmt/format.h>

#include "util/child_process.hpp"
#include "util/log.hpp"

namespace ecocompute::engine {
namespace {

using SteadyClock = std::chrono::steady_clock;

class CommandEngine final : public Engine {
 public:
  CommandEngine(CommandSpec spec, ChildProcess child, Hello hello)
      : spec_(std::move(spec)), child_(std::move(child)), hello_(std::move(hello)) {
    info_.name = hello_.model.empty() ? spec_.label : hello_.model;
    info_.path = hello_.model.empty() ? std::filesystem::path(spec_.label) : std::filesystem::path(hello_.model);
    info_.architecture = hello_.architecture;
    info_.n_params = hello_.params;
    info_.synthetic_weights = hello_.weights == "synthetic";
  }

  ~CommandEngine() override {
    if (!child_.running()) return;
    (void)child_.write_line(kQuitRequest);
    const ExitStatus status = child_.stop(Seconds{5.0});
    if (status.code != 0) log::warn("{}: the program ended with {}", spec_.label, status.describe());
  }
  CommandEngine(const CommandEngine&) = delete;
  CommandEngine& operator=(const CommandEngine&) = delete;

  [[nodiscard]] const ModelInfo& model() const override { return info_; }

  [[nodiscard]] EngineDescription describe() const override {
    EngineDescription d;
    d.name = hello_.engine;
    d.version = hello_.version;
    d.commit = hello_.commit;
    d.backend = hello_.backend;
    d.device = hello_.device;
    return d;
  }

  // A command's prompt is its token count: the program makes a prompt of that many tokens itself. The
  // tokens here are placeholders whose only meaning is their number.
  [[nodiscard]] Result<std::vector<Token>> tokenize(std::string_view /*text*/, bool /*add_bos*/) const override {
    return std::vector<Token>(static_cast<std::size_t>(spec_.prompt_tokens), Token{0});
  }
  [[nodiscard]] Token bos() const override { return -1; }

  // Every prefill request starts a fresh context in the program, so there is nothing to send here.
  Result<void> reset() override { return {}; }

  Result<WorkStats> prefill(std::span<const Token> tokens) override {
    return request(prefill_request(static_cast<std::int64_t>(tokens.size())), static_cast<std::int64_t>(tokens.size()));
  }

  Result<WorkStats> decode(std::int64_t n_tokens) override { return request(decode_request(n_tokens), n_tokens); }

  Result<void> evaluate(std::span<const Token> /*tokens*/, const LogitsSink& /*sink*/) override {
    return unexpected(ErrorCode::unavailable, "a command engine has no quality probe (it returns no logits)");
  }

  // The program synchronizes its device before it replies `done`; nothing of ours is queued.
  void synchronize() override {}

  [[nodiscard]] const Hello& declaration() const noexcept { return hello_; }

 private:
  // Sends one request and waits for its `done`. A reply that does not fit (silence past the limit,
  // garbage, the program gone) leaves the program's state unknown, so it is stopped and every later
  // request fails with the first reason; a wrong count or an `error` reply fails only this request.
  Result<WorkStats> request(const std::string& line, std::int64_t expected_tokens) {
    if (!broken_.empty()) return unexpected(ErrorCode::engine, spec_.label + ": the program was stopped earlier: " + broken_);
    if (interrupted()) return interrupted_error(line);
    const auto start = SteadyClock::now();
    if (auto sent = child_.write_line(line); !sent) return fail(line, sent.error());
    auto reply = child_.read_line(spec_.reply_timeout, [this] { return interrupted(); });
    if (!reply) {
      if (reply.error().code() == ErrorCode::cancelled) {
        stop(line + " interrupted");
        return interrupted_error(line);
      }
      return fail(line, reply.error());
    }
    const auto elapsed = std::chrono::duration<double>(SteadyClock::now() - start).count();
    auto done = parse_done(*reply, expected_tokens);
    if (!done) {
      const bool recoverable = done.error().code() == ErrorCode::engine ||
                               (done.error().code() == ErrorCode::invalid_input && reply->rfind("done ", 0) == 0);
      if (recoverable) return Error{ErrorCode::engine, spec_.label + ": " + line, done.error()};
      return fail(line, done.error());
    }
    return WorkStats{done->tokens, Seconds{elapsed}};
  }

  Error fail(const std::string& line, const Error& why) {
    stop(why.describe());
    return Error{ErrorCode::engine, spec_.label + ": " + line, why};
  }

  void stop(const std::string& reason) {
    broken_ = reason;
    const ExitStatus status = child_.stop(Seconds{2.0});
    log::warn("{}: stopped the program ({}): {}", spec_.label, status.describe(), reason);
  }

  CommandSpec spec_;
  ChildProcess child_;
  Hello hello_;
  ModelInfo info_;
  std::string broken_;  ///< why the program was stopped; empty while it runs
};

}  // namespace

Result<std::unique_ptr<Engine>> open_command_engine(const CommandSpec& spec) {
  if (spec.command.empty()) return unexpected(ErrorCode::invalid_argument, spec.label + ": an empty command");
  if (spec.prompt_tokens < 1) {
    return unexpected(ErrorCode::invalid_argument, fmt::format("{}: prompt of {} tokens", spec.label, spec.prompt_tokens));
  }
  ChildProcess::Options options;
  options.environment = spec.environment;
  auto child = ChildProcess::start({"/bin/sh", "-c", spec.command}, options);
  if (!child) return Error{child.error().code(), spec.label + ": cannot start '" + spec.command + "'", child.error()};
  auto line = child->read_line(spec.start_timeout, [&spec] { return spec.cancel != nullptr && spec.cancel->load(); });
  if (!line && line.error().code() == ErrorCode::cancelled) {
    (void)child->stop(Seconds{2.0});
    return Error{ErrorCode::cancelled, spec.label + ": interrupted while the program was starting"};
  }
  if (!line) {
    const ExitStatus status = child->stop(Seconds{2.0});
    return Error{ErrorCode::engine, fmt::format("{}: '{}' sent no hello ({})", spec.label, spec.command, status.describe()),
                 line.error()};
  }
  auto hello = parse_hello(*line);
  if (!hello) {
    (void)child->stop(Seconds{2.0});
    return Error{ErrorCode::engine, fmt::format("{}: '{}' did not declare itself", spec.label, spec.command),
                 hello.error()};
  }
  log::info("{}: {} {} ({}, {}, {})", spec.label, hello->engine, hello->version, hello->precision.empty() ? "?" : hello->precision,
            hello->model.empty() ? "model not named" : hello->model, hello->device.empty() ? "device not named" : hello->device);
  return std::unique_ptr<Engine>(std::make_unique<CommandEngine>(spec, std::move(*child), std::move(*hello)));
}

const Hello* command_declaration(const Engine& engine) noexcept {
  const auto* command = dynamic_cast<const CommandEngine*>(&engine);
  return command != nullptr ? &command->declaration() : nullptr;
}

}  // namespace ecocompute::engine
