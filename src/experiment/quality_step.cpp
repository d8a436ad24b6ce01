// Running the quality probe after the energy windows.
#include "experiment/quality_step.hpp"

#include "quality/corpus.hpp"
#include "quality/quality_probe.hpp"
#include "util/log.hpp"

namespace ecocompute::experiment {

QualityOutcome probe_run_quality(const protocol::Design& design, const LoadedEngines& engines,
                                 const std::filesystem::path& text, const quality::WindowPolicy& policy,
                                 bool cancelled, const std::atomic<bool>* cancel) {
  QualityOutcome out;
  engine::Engine* baseline = engines.find(design.baseline);
  if (cancelled) {
    out.failure = "not run: the run was interrupted";
  } else if (baseline == nullptr) {
    out.failure = "not run: the baseline " + design.baseline + " did not load";
  } else if (auto corpus = quality::load_corpus_or_default(text); !corpus) {
    out.failure = corpus.error().describe();
  } else {
    std::vector<engine::Engine*> candidates;
    for (const std::string& name : design.candidates) {
      if (engine::Engine* e = engines.find(name)) candidates.push_back(e);
    }
    log::info("quality probe: {} ({} bytes) on {} and {} candidate(s)", corpus->info.name, corpus->info.bytes,
              design.baseline, candidates.size());
    quality::ProbeOptions options;
    options.is_cancelled = [cancel] { return cancel != nullptr && cancel->load(); };
    auto probed = quality::probe_quality(*baseline, candidates, *corpus, policy, options);
    if (probed) {
      out.results = std::move(*probed);
    } else {
      out.failure = probed.error().describe();
    }
  }
  if (!out.failure.empty()) log::error("quality probe failed: {}", out.failure);
  return out;
}

}  // namespace ecocompute::experiment
