// Printer: begin(context), write(record) for each row, end(); implementations override do_* hooks.
// The formats (md, csv, json, jsonl, sql) print llama-bench-compatible rows with energy and quality
// columns added; MultiPrinter fans one stream of records out to several printers.
#pragma once

#include <memory>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "report/record.hpp"
#include "util/result.hpp"

namespace ecocompute::report {

/// What every row of one output shares: the columns (in order) and the provenance printed once.
struct PrintContext {
  std::vector<Column> columns;
  std::string schema_version;  ///< of the reports the rows come from
  std::string build_commit;    ///< printed in the markdown footer, like llama-bench's "build: …"
};

/// Writes records to a stream. Call begin() once, write() for each record, end() once; the public
/// functions check that order (a broken order throws InvariantError). Not thread-safe.
class Printer {
 public:
  explicit Printer(std::ostream& out) : out_(out) {}
  virtual ~Printer() = default;
  Printer(const Printer&) = delete;
  Printer& operator=(const Printer&) = delete;

  /// Starts the output (headers). Every record written afterwards must have the context's columns.
  void begin(const PrintContext& context);
  /// Writes one record; throws InvariantError when its field names differ from the context's columns.
  void write(const Record& record);
  /// Finishes the output (footers, buffered tables) and flushes the stream.
  void end();

 protected:
  virtual void do_begin() {}
  virtual void do_write(const Record& record) = 0;
  virtual void do_end() {}

  [[nodiscard]] std::ostream& out() noexcept { return out_; }
  [[nodiscard]] const PrintContext& context() const noexcept { return context_; }

 private:
  enum class State { idle, open, closed };
  std::ostream& out_;
  PrintContext context_;
  State state_ = State::idle;
};

/// Sends every call to each of its printers, in order.
class MultiPrinter final : public Printer {
 public:
  MultiPrinter();
  /// Adds a printer; it receives begin/write/end with the multiplexer's.
  void add(std::unique_ptr<Printer> printer);

 protected:
  void do_begin() override;
  void do_write(const Record& record) override;
  void do_end() override;

 private:
  std::vector<std::unique_ptr<Printer>> printers_;
};

/// The output formats, spelled as on the command line (`--output md|csv|json|jsonl|sql`).
enum class OutputFormat { md, csv, json, jsonl, sql };

/// Returns "md", "csv", "json", "jsonl" or "sql".
[[nodiscard]] std::string_view to_string(OutputFormat format) noexcept;
/// Parses the spellings above; anything else is an invalid_argument error naming the text.
[[nodiscard]] Result<OutputFormat> parse_output_format(std::string_view text);

/// Returns a printer of `format` writing to `out` (which must outlive it).
[[nodiscard]] std::unique_ptr<Printer> make_printer(OutputFormat format, std::ostream& out);

/// Markdown table like llama-bench's: key columns plus the columns whose values vary between rows;
/// sample lists are left out. Buffers the rows and prints them at end().
class MarkdownPrinter final : public Printer {
 public:
  using Printer::Printer;

 protected:
  void do_write(const Record& record) override;
  void do_end() override;

 private:
  std::vector<Record> rows_;
};

/// CSV: a header of column names, then one line per record with every value quoted (as llama-bench);
/// sample lists are left out.
class CsvPrinter final : public Printer {
 public:
  using Printer::Printer;

 protected:
  void do_begin() override;
  void do_write(const Record& record) override;
};

/// JSON: an array with one object per record, typed values, samples included.
class JsonPrinter final : public Printer {
 public:
  using Printer::Printer;

 protected:
  void do_begin() override;
  void do_write(const Record& record) override;
  void do_end() override;

 private:
  bool first_ = true;
};

/// JSON Lines: one object per record per line.
class JsonlPrinter final : public Printer {
 public:
  using Printer::Printer;

 protected:
  void do_write(const Record& record) override;
};

/// SQL: CREATE TABLE IF NOT EXISTS ecocompute_bench (…), then one INSERT per record; strings are
/// quoted with '' escaping, nulls are NULL, sample lists are left out.
class SqlPrinter final : public Printer {
 public:
  using Printer::Printer;

 protected:
  void do_begin() override;
  void do_write(const Record& record) override;
};

}  // namespace ecocompute::report
