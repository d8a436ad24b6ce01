// Printer's call-order checks, the multiplexer, and the output-format names.
#include "report/printer.hpp"

#include "util/check.hpp"

namespace ecocompute::report {
namespace {

std::ostream& null_stream() {
  static std::ostream stream(nullptr);  // a multiplexer writes nothing itself
  return stream;
}

}  // namespace

void Printer::begin(const PrintContext& context) {
  ECO_CHECK(state_ == State::idle, "Printer::begin called twice");
  context_ = context;
  state_ = State::open;
  do_begin();
}

void Printer::write(const Record& record) {
  ECO_CHECK(state_ == State::open, "Printer::write outside begin()/end()");
  const auto& fields = record.fields();
  ECO_CHECK(fields.size() == context_.columns.size(), "record has a different number of columns than the context");
  for (std::size_t i = 0; i < fields.size(); ++i) {
    ECO_CHECK(fields[i].column.name == context_.columns[i].name,
              "record column " + fields[i].column.name + " where the context has " + context_.columns[i].name);
  }
  do_write(record);
}

void Printer::end() {
  ECO_CHECK(state_ == State::open, "Printer::end without begin()");
  state_ = State::closed;
  do_end();
  out_.flush();
}

MultiPrinter::MultiPrinter() : Printer(null_stream()) {}

void MultiPrinter::add(std::unique_ptr<Printer> printer) {
  ECO_CHECK(printer != nullptr, "MultiPrinter::add(nullptr)");
  printers_.push_back(std::move(printer));
}

void MultiPrinter::do_begin() {
  for (auto& p : printers_) p->begin(context());
}

void MultiPrinter::do_write(const Record& record) {
  for (auto& p : printers_) p->write(record);
}

void MultiPrinter::do_end() {
  for (auto& p : printers_) p->end();
}

std::string_view to_string(OutputFormat format) noexcept {
  switch (format) {
    case OutputFormat::md: return "md";
    case OutputFormat::csv: return "csv";
    case OutputFormat::json: return "json";
    case OutputFormat::jsonl: return "jsonl";
    case OutputFormat::sql: return "sql";
  }
  return "md";
}

Result<OutputFormat> parse_output_format(std::string_view text) {
  for (OutputFormat f : {OutputFormat::md, OutputFormat::csv, OutputFormat::json, OutputFormat::jsonl,
                         OutputFormat::sql}) {
    if (text == to_string(f)) return f;
  }
  return unexpected(ErrorCode::invalid_argument,
                    "unknown output format '" + std::string(text) + "' (expected md, csv, json, jsonl or sql)");
}

std::unique_ptr<Printer> make_printer(OutputFormat format, std::ostream& out) {
  switch (format) {
    case OutputFormat::md: return std::make_unique<MarkdownPrinter>(out);
    case OutputFormat::csv: return std::make_unique<CsvPrinter>(out);
    case OutputFormat::json: return std::make_unique<JsonPrinter>(out);
    case OutputFormat::jsonl: return std::make_unique<JsonlPrinter>(out);
    case OutputFormat::sql: return std::make_unique<SqlPrinter>(out);
  }
  return std::make_unique<MarkdownPrinter>(out);
}

}  // namespace ecocompute::report
