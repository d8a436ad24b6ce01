// How many threads llama.cpp's CPU work gets when the user names none.
#pragma once

namespace ecocompute::engine {

/// Every core but one (left to the host: the meter's sampler, the OS, other work), and no more than the
/// cores the 1-minute load average leaves free; at least one. llama.cpp's threads meet at a barrier
/// after every operation, so with more threads than free cores a thread waiting for a core holds all
/// the others: a fixture decode iteration took 0.05 s with 1 thread and 22–35 s with 2 on a 2-core
/// machine with one core busy elsewhere.
[[nodiscard]] int default_thread_count(unsigned hardware_threads, double load_average) noexcept;

/// default_thread_count() of this machine (std::thread::hardware_concurrency, getloadavg).
[[nodiscard]] int default_thread_count() noexcept;

}  // namespace ecocompute::engine
