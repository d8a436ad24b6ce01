// The done jobs' reports into a dataset store.
#include "cli/sweep_store_import.hpp"

#include "data/dataset_import.hpp"
#include "data/dataset_store.hpp"
#include "sweep/collect.hpp"

namespace ecocompute::cli {

Json to_json(const StoreCollection& c) {
  return Json{{"imported", c.imported}, {"rows_added", c.rows_added}, {"refused", c.refused}};
}

Result<StoreCollection> import_sweep_reports(const std::filesystem::path& sweep_dir, const std::string& location) {
  auto reports = sweep::finished_reports(sweep_dir);
  if (!reports) return reports.error();
  auto store = data::DatasetStore::open(location);
  if (!store) return store.error();
  StoreCollection collection;
  data::RunSummaries runs;  // the reports of one job share its run.json
  for (const sweep::FinishedReport& report : *reports) {
    if (report.is_run_summary) continue;
    auto batch = data::read_report_batch(report.path, runs);
    if (!batch) {
      if (batch.error().code() == ErrorCode::io) return batch.error();
      collection.refused.push_back(batch.error().describe());
      continue;
    }
    auto summary = store->import(*batch);
    if (!summary) return summary.error();
    ++collection.imported;
    collection.rows_added += static_cast<std::size_t>(summary->rows_added);
  }
  return collection;
}

}  // namespace ecocompute::cli
