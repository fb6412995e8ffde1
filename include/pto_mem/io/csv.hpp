// The MiniMalloc / idealloc CSV format: a header `id,lower,upper,size` with
// an optional `offset` column (any order, names case-insensitive), then one
// buffer per row, live over [lower, upper). A field may be quoted (RFC 4180);
// ids follow the name rule of io/id_text.hpp. One arena; its capacity comes
// from the caller. See docs/formats.md.
#pragma once

#include <algorithm>
#include <array>
#include <charconv>
#include <cstring>
#include <deque>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <unordered_map>
#include <vector>

#include "pto_mem/core/compiled_mode.hpp"
#include "pto_mem/io/atomic_file.hpp"
#include "pto_mem/io/id_text.hpp"
#include "pto_mem/io/problem_file.hpp"
#include "pto_mem/io/source_text.hpp"

namespace pto_mem {

struct CsvOptions {
  /// The arena's capacity; nullopt gives always_fitting_capacity (the
  /// planner then minimises the peak).
  std::optional<Addr> capacity;
  std::string arena_name = "arena0";
  /// Stop after this many errors: a broken file of 60k rows should yield a
  /// readable report, not 60k lines.
  std::size_t max_errors = 20;
};

/// Parses CSV text. `file` names the source in diagnostics.
[[nodiscard]] PTO_MEM_IO_INLINE ReadResult read_csv(std::string_view text, const CsvOptions& options = {},
                                                    const std::string& file = {});

[[nodiscard]] PTO_MEM_IO_INLINE ReadResult read_csv_file(const std::filesystem::path& path,
                                                         const CsvOptions& options = {});

/// The CSV text of a problem (with an offset column when `placement` is
/// given; unplaced buffers get an empty offset). CSV holds one arena of
/// unaligned buffers and no constraints; anything more is refused with a
/// diagnostic rather than silently dropped.
[[nodiscard]] PTO_MEM_IO_INLINE TextResult to_csv(const Problem& p, const Placement* placement = nullptr);

/// Writes to_csv's text to `path` atomically; returns the errors (empty on success).
[[nodiscard]] PTO_MEM_IO_INLINE Diagnostics write_csv_file(const std::filesystem::path& path,
                                                           const Problem& p,
                                                           const Placement* placement = nullptr);

#if PTO_MEM_IO_DEFINE
namespace detail::csv {

inline constexpr std::array<std::string_view, 5> csv_column_names{"id", "lower", "upper", "size", "offset"};

inline bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    const auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; };
    if (lower(a[i]) != lower(b[i])) return false;
  }
  return true;
}

/// A printable excerpt of a bad field for messages: its first 40 bytes,
/// every control character and stray byte spelled out (io/id_text.hpp).
inline std::string excerpt(std::string_view s) { return printable(s, 40); }

class CsvReader {
 public:
  /// `ids_after`: check that ids are unique once, after the last row, and
  /// give up (run() returns nullopt) on any error or repeat; the caller then
  /// reads again with `ids_after = false`, which names every error where it
  /// occurs, repeats with the line of the first occurrence.
  ///
  /// A UTF-8 byte-order mark (spreadsheets write one) is skipped: columns
  /// on the first line count from the byte after it, as an editor shows them.
  CsvReader(std::string_view text, const CsvOptions& options, std::string file, bool ids_after = false)
      : text_(text.starts_with("\xEF\xBB\xBF") ? text.substr(3) : text),
        options_(options),
        file_(std::move(file)),
        ids_after_(ids_after) {}

  std::optional<ReadResult> run() {
    ReadResult out;
    if (read_header()) read_rows();
    if (ids_after_ && (errors_ > 0 || repeated_label(result_.problem))) return std::nullopt;
    if (errors_ == 0) finish();
    if (ids_after_ && errors_ > 0) return std::nullopt;
    out.diagnostics = std::move(diags_);
    if (errors_ == 0) out.file = std::move(result_);
    return out;
  }

 private:
  struct Field {
    std::string_view raw;  ///< as in the line (quotes included)
    std::uint32_t column;
    std::optional<std::string> unquoted;  ///< a quoted field's value
    [[nodiscard]] std::string_view text() const { return unquoted ? std::string_view(*unquoted) : raw; }
  };

  /// The next line without its terminator; false at the end of the text.
  bool next_line(std::string_view& line) {
    if (pos_ >= text_.size()) return false;
    const char* start = text_.data() + pos_;
    const void* nl = std::memchr(start, '\n', text_.size() - pos_);
    const std::size_t len =
        nl ? static_cast<std::size_t>(static_cast<const char*>(nl) - start) : text_.size() - pos_;
    line = std::string_view(start, len);
    pos_ += nl ? len + 1 : len;  // never past the end: read_rows counts the rest from pos_
    ++line_no_;
    if (line.ends_with('\r')) line.remove_suffix(1);  // CRLF
    return true;
  }

  void fail(std::uint32_t line, std::uint32_t column, std::string message) {
    if (stopped_) return;
    if (errors_ == options_.max_errors) {
      diags_.push_back(error_at({file_, line, column},
                                "too many errors; stopping after " + std::to_string(options_.max_errors)));
      stopped_ = true;
      return;
    }
    ++errors_;
    diags_.push_back(error_at({file_, line, column}, std::move(message)));
  }

  /// Splits a line at commas; a field may be quoted (RFC 4180: "a,b" and
  /// "say ""hi""" hold a comma and quotes). Rejects what this format never
  /// holds (a quote inside an unquoted field, an unclosed quote, stray
  /// carriage returns) with the column where it appears.
  bool split(std::string_view line, std::vector<Field>& fields) {
    fields.clear();
    std::size_t i = 0;
    while (true) {
      const std::size_t start = i;
      if (i < line.size() && line[i] == '"') {
        std::string value;
        ++i;
        while (true) {
          if (i >= line.size()) {
            fail(line_no_, static_cast<std::uint32_t>(start + 1),
                 "unclosed quote; a quoted field ends with a quote");
            return false;
          }
          if (line[i] == '"') {
            if (i + 1 < line.size() && line[i + 1] == '"') {
              value += '"';
              i += 2;
              continue;
            }
            ++i;
            break;
          }
          value += line[i++];
        }
        if (i < line.size() && line[i] != ',') {
          fail(line_no_, static_cast<std::uint32_t>(i + 1),
               "text after the closing quote of a quoted field; double a quote inside it (\"\")");
          return false;
        }
        fields.push_back(
            {line.substr(start, i - start), static_cast<std::uint32_t>(start + 1), std::move(value)});
      } else {
        while (i < line.size() && line[i] != ',') {
          if (line[i] == '"') {
            fail(line_no_, static_cast<std::uint32_t>(i + 1),
                 "a quote inside an unquoted field; quote the whole field and double the quote (\"a\"\"b\")");
            return false;
          }
          if (line[i] == '\r') {
            fail(line_no_, static_cast<std::uint32_t>(i + 1),
                 "stray carriage return; lines end with LF or CRLF");
            return false;
          }
          ++i;
        }
        fields.push_back(
            {line.substr(start, i - start), static_cast<std::uint32_t>(start + 1), std::nullopt});
      }
      if (i >= line.size()) return true;
      ++i;  // the comma
    }
  }

  bool read_header() {
    std::string_view line;
    if (!next_line(line) || line.empty()) {
      std::string_view rest;
      bool blank_file = true;
      while (blank_file && next_line(rest)) blank_file = rest.empty();
      fail(1, 1,
           blank_file
               ? "the file is empty; it must start with the header id,lower,upper,size (optionally ,offset)"
               : "line 1 is blank; the file must start with the header id,lower,upper,size");
      return false;
    }
    header_line_ = line_no_;
    std::vector<Field> fields;
    if (!split(line, fields)) return false;
    std::array<std::optional<std::uint32_t>, 5> at{};  // header column of each known name
    for (std::size_t f = 0; f < fields.size(); ++f) {
      std::optional<std::size_t> known;
      for (std::size_t c = 0; c < csv_column_names.size(); ++c)
        if (iequals(fields[f].text(), csv_column_names[c])) known = c;
      if (!known) {
        fail(line_no_, fields[f].column,
             fields[f].text().empty()
                 ? std::string("empty column name in the header")
                 : "unknown column '" + excerpt(fields[f].text()) +
                       "'; the columns are id, lower, upper, size and optionally offset");
        continue;
      }
      if (at[*known]) {
        fail(line_no_, fields[f].column,
             "column '" + std::string(csv_column_names[*known]) + "' appears twice (first as column " +
                 std::to_string(*at[*known] + 1) + ")");
        continue;
      }
      at[*known] = static_cast<std::uint32_t>(f);
    }
    for (std::size_t c = 0; c < 4; ++c)
      if (!at[c])
        fail(line_no_, static_cast<std::uint32_t>(line.size() + 1),
             "missing column '" + std::string(csv_column_names[c]) +
                 "'; the header must name id, lower, upper and size (and optionally offset)");
    if (errors_ > 0) return false;
    column_of_ = at;
    width_ = fields.size();
    return true;
  }

  template <class T>
  std::optional<T> number(const Field& f, std::string_view what) {
    T v{};
    const std::string_view text = f.text();
    const char* b = text.data();
    const char* e = b + text.size();
    auto [ptr, ec] = std::from_chars(b, e, v);
    if (text.empty()) {
      fail(line_no_, f.column, std::string(what) + " is empty; expected an integer");
      return std::nullopt;
    }
    if (ec == std::errc::result_out_of_range && ptr == e) {
      fail(line_no_, f.column, std::string(what) + " " + excerpt(text) + " is out of range");
      return std::nullopt;
    }
    if (ec != std::errc{} || ptr != e) {
      const bool negative = std::is_unsigned_v<T> && text.starts_with('-');
      fail(line_no_, f.column,
           std::string(what) + (negative ? " must not be negative" : " must be an integer") + ", found '" +
               excerpt(text) + "'");
      return std::nullopt;
    }
    return v;
  }

  void read_rows() {
    std::string_view line;
    std::vector<Field> fields;
    std::uint32_t blank = 0;  // first blank line after the last row (0: none; lines count from 1)
    const bool has_offset = column_of_[4].has_value();
    if (has_offset) result_.placement.emplace();
    std::unordered_map<std::string_view, std::uint32_t> first_line;
    const auto rows = static_cast<std::size_t>(
                          std::count(text_.begin() + static_cast<std::ptrdiff_t>(pos_), text_.end(), '\n')) +
                      1;
    if (!ids_after_) first_line.reserve(rows);
    result_.problem.buffers.reserve(rows);
    if (has_offset) result_.placement->offsets.reserve(rows);
    while (!stopped_ && next_line(line)) {
      if (line.empty()) {
        if (blank == 0) blank = line_no_;
        continue;
      }
      if (blank != 0) {
        fail(blank, 1, "blank line inside the table; remove it (blank lines may only end the file)");
        blank = 0;
      }
      if (!split(line, fields)) continue;
      if (fields.size() != width_) {
        const std::uint32_t col =
            fields.size() > width_ ? fields[width_].column - 1 : static_cast<std::uint32_t>(line.size() + 1);
        fail(line_no_, col,
             "expected " + std::to_string(width_) + " fields as in the header on line " +
                 std::to_string(header_line_) + ", found " + std::to_string(fields.size()));
        continue;
      }
      const Field& id = fields[*column_of_[0]];
      const Field& lower_f = fields[*column_of_[1]];
      const Field& upper_f = fields[*column_of_[2]];
      const Field& size_f = fields[*column_of_[3]];
      BufferSpec b;
      bool ok = true;
      std::string_view id_text = id.text();
      if (id_text.empty()) {
        fail(line_no_, id.column, "id is empty; every buffer needs an id");
        ok = false;
      } else if (auto bad = id_defect(id_text)) {
        fail(line_no_, static_cast<std::uint32_t>(id.column + bad->offset + (id.unquoted ? 1 : 0)),
             "id '" + excerpt(id_text) + "' cannot be a buffer id: " + bad->reason);
        ok = false;
      } else {
        if (id.unquoted) id_text = quoted_ids_.emplace_back(*id.unquoted);  // the line's storage is reused
        if (ids_after_) {
          // checked after the last row (repeated_label)
        } else if (auto [it, fresh] = first_line.try_emplace(id_text, line_no_); !fresh) {
          fail(line_no_, id.column,
               "duplicate id '" + excerpt(id_text) + "' (first on line " + std::to_string(it->second) +
                   "); ids must be unique");
          ok = false;
        }
      }
      const auto lower = number<Tick>(lower_f, "lower");
      const auto upper = number<Tick>(upper_f, "upper");
      const auto size = number<Addr>(size_f, "size");
      if (lower && *lower < 0) {
        fail(line_no_, lower_f.column,
             "lower is negative (" + std::to_string(*lower) + "); lifetimes start at 0 or later");
        ok = false;
      } else if (lower && upper && *upper <= *lower) {
        fail(line_no_, upper_f.column,
             "empty lifetime [" + std::to_string(*lower) + ", " + std::to_string(*upper) +
                 "): upper must be greater than lower (the lifetime is [lower, upper))");
        ok = false;
      }
      if (size && *size == 0) {
        fail(line_no_, size_f.column, "size is 0; a buffer needs at least one byte");
        ok = false;
      }
      std::optional<Addr> offset;
      if (has_offset) {
        const Field& off = fields[*column_of_[4]];
        if (!off.text().empty()) {  // an empty offset leaves the buffer unplaced
          offset = number<Addr>(off, "offset");
          ok = ok && offset.has_value();
        }
      }
      if (!ok || !lower || !upper || !size || errors_ > 0) continue;
      b.name = std::string(id_text);
      b.size = *size;
      b.lifetime = {*lower, *upper};
      result_.problem.buffers.push_back(std::move(b));
      if (has_offset) result_.placement->offsets.push_back(offset);
    }
  }

  void finish() {
    Arena a;
    a.id = 0;
    a.name = options_.arena_name;
    result_.problem.arenas.push_back(a);
    result_.problem.arenas[0].capacity =
        options_.capacity ? *options_.capacity : always_fitting_capacity(result_.problem, 0);
    result_.no_capacity = {!options_.capacity.has_value()};
    // Each row was checked above (ids unique, sizes positive, lifetimes well
    // formed), which is everything validate(problem) checks for a CSV problem
    // except the caller's capacity; the full validator would cost as much as
    // the whole parse on a 60k-row trace.
    if (result_.problem.arenas[0].capacity == 0)
      fail_at_file("the arena capacity is 0; give a positive capacity (for example --capacity N)");
  }

  void fail_at_file(std::string message) {
    ++errors_;
    diags_.push_back(error_at({file_, 0, 0}, std::move(message)));
  }

  std::string_view text_;
  const CsvOptions& options_;
  std::string file_;
  std::size_t pos_ = 0;
  std::uint32_t line_no_ = 0;
  std::uint32_t header_line_ = 0;
  std::array<std::optional<std::uint32_t>, 5> column_of_{};
  std::size_t width_ = 0;
  std::size_t errors_ = 0;
  bool stopped_ = false;
  Diagnostics diags_;
  ProblemFile result_;
  std::deque<std::string> quoted_ids_;  ///< stable storage of quoted ids (keys of the duplicate check)
  bool ids_after_;
};

/// An id as a CSV field: quoted (quotes doubled) when it holds a comma or
/// a quote, or would read back as quoted; as is otherwise.
inline void append_field(std::string& out, std::string_view id) {
  if (id.find_first_of(",\"") == std::string_view::npos) {
    out += id;
    return;
  }
  out += '"';
  for (char c : id) {
    if (c == '"') out += '"';
    out += c;
  }
  out += '"';
}

}  // namespace detail::csv

PTO_MEM_IO_INLINE ReadResult read_csv(std::string_view text, const CsvOptions& options,
                                      const std::string& file) {
  // Well-formed files, the usual case, are read once with the fast id check;
  // a file with any error is read again to report each error where it is.
  if (auto fast = detail::csv::CsvReader(text, options, file, true).run()) return std::move(*fast);
  return *detail::csv::CsvReader(text, options, file).run();
}

PTO_MEM_IO_INLINE ReadResult read_csv_file(const std::filesystem::path& path, const CsvOptions& options) {
  auto src = read_source_text(path);
  if (!src.text) return ReadResult{std::nullopt, std::move(src.diagnostics)};
  return read_csv(*src.text, options, path.string());
}

PTO_MEM_IO_INLINE TextResult to_csv(const Problem& p, const Placement* placement) {
  TextResult out;
  auto refuse = [&](std::string m) {
    out.diagnostics.push_back(error(std::move(m) + "; write JSON instead"));
  };
  if (p.arenas.size() != 1)
    refuse("CSV holds exactly one arena but the problem has " + std::to_string(p.arenas.size()));
  else if (!p.arenas[0].reserved.empty())
    refuse("CSV cannot hold the reserved windows of arena " + std::to_string(p.arenas[0].id));
  if (!p.must_alias.empty() || !p.separations.empty() || !p.penalties.empty() || !p.declared.empty())
    refuse("CSV cannot hold must-alias groups, separations, penalties or declared allocations");
  if (!is_plain(p)) {
    std::string what;
    auto add = [&](bool has, const char* name) {
      if (has) what += (what.empty() ? "" : ", ") + std::string(name);
    };
    const auto any = [&](auto pred) { return std::any_of(p.buffers.begin(), p.buffers.end(), pred); };
    add(any([](const BufferSpec& b) { return !b.live.empty(); }), "several live intervals");
    add(any([](const BufferSpec& b) { return b.pin.has_value(); }), "pins");
    add(any([](const BufferSpec& b) { return !b.candidate_arenas.empty(); }), "candidate arenas");
    add(!p.exclusions.empty(), "exclusions");
    add(p.conflict_graph.has_value(), "a conflict graph");
    refuse("CSV holds one interval and one arena per buffer and no structure, but the problem has " + what);
  }
  if (placement && placement->offsets.size() != p.buffers.size())
    out.diagnostics.push_back(error("the placement has " + std::to_string(placement->offsets.size()) +
                                    " offsets for " + std::to_string(p.buffers.size()) + " buffers"));
  for (std::size_t i = 0; i < p.buffers.size(); ++i) {
    if (!out.diagnostics.empty()) break;
    const auto& b = p.buffers[i];
    if (b.alignment != 1)
      refuse("buffer '" + buffer_label(p, static_cast<BufferId>(i)) + "' has alignment " +
             std::to_string(b.alignment) + ", which CSV cannot hold");
    else if (auto bad = b.name.empty() ? std::nullopt
                                       : id_defect(b.name))  // an unnamed buffer is written as its index
      out.diagnostics.push_back(error("buffer id '" + detail::csv::excerpt(b.name) +
                                      "' cannot be written: " + bad->reason + " (docs/formats.md, names)"));
  }
  if (out.diagnostics.empty())
    if (auto twice = repeated_label(p)) out.diagnostics.push_back(error(repeated_label_message(p, *twice)));
  if (!out.diagnostics.empty()) return out;
  std::string text = placement ? "id,lower,upper,size,offset\n" : "id,lower,upper,size\n";
  text.reserve(text.size() + p.buffers.size() * 32);
  for (std::size_t i = 0; i < p.buffers.size(); ++i) {
    const auto& b = p.buffers[i];
    if (b.name.empty())
      text += std::to_string(i);  // its label (buffer_label), without a copy per named buffer
    else
      detail::csv::append_field(text, b.name);
    text += ',';
    text += std::to_string(b.lifetime.begin);
    text += ',';
    text += std::to_string(b.lifetime.end);
    text += ',';
    text += std::to_string(b.size);
    if (placement) {
      text += ',';
      if (placement->offsets[i]) text += std::to_string(*placement->offsets[i]);
    }
    text += '\n';
  }
  out.text = std::move(text);
  return out;
}

PTO_MEM_IO_INLINE Diagnostics write_csv_file(const std::filesystem::path& path, const Problem& p,
                                             const Placement* placement) {
  auto csv = to_csv(p, placement);
  if (!csv) {
    attribute_to_file(csv.diagnostics, path.string());
    return std::move(csv.diagnostics);
  }
  if (auto bad = write_file_atomically(path, *csv.text)) return {*bad};
  return {};
}
#endif  // PTO_MEM_IO_DEFINE

}  // namespace pto_mem
