// Reading an input file whole, and turning byte offsets into the
// line:column positions that diagnostics print.
#pragma once

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include "pto_mem/core/compiled_mode.hpp"
#include "pto_mem/core/diagnostics.hpp"

namespace pto_mem {

/// The bytes of `path`, or an error naming the file and the reason.
struct SourceText {
  std::optional<std::string> text;
  Diagnostics diagnostics;
};

[[nodiscard]] PTO_MEM_IO_INLINE SourceText read_source_text(const std::filesystem::path& path);
#if PTO_MEM_IO_DEFINE
[[nodiscard]] PTO_MEM_IO_INLINE SourceText read_source_text(const std::filesystem::path& path) {
  SourceText out;
  auto fail = [&](const std::string& why) {
    Diagnostic d = error("cannot read '" + path.string() + "': " + why);
    d.location = SourceLocation{path.string(), 0, 0};
    out.diagnostics.push_back(std::move(d));
    return std::move(out);
  };
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) return fail("it is a directory");
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) return fail(std::strerror(errno));
  std::string text;
  char chunk[1 << 16];
  std::size_t got = 0;
  while ((got = std::fread(chunk, 1, sizeof chunk, f)) > 0) text.append(chunk, got);
  const bool bad = std::ferror(f) != 0;
  const int read_errno = errno;
  std::fclose(f);
  if (bad) return fail(std::strerror(read_errno));
  out.text = std::move(text);
  return out;
}
#endif

/// Line and column (from 1, in bytes) of byte `offset` of `text`.
[[nodiscard]] PTO_MEM_IO_INLINE SourceLocation location_at(const std::string& file, std::string_view text,
                                                           std::size_t offset);
#if PTO_MEM_IO_DEFINE
[[nodiscard]] PTO_MEM_IO_INLINE SourceLocation location_at(const std::string& file, std::string_view text,
                                                           std::size_t offset) {
  offset = std::min(offset, text.size());
  std::uint32_t line = 1;
  std::size_t line_start = 0;
  for (std::size_t i = 0; i < offset; ++i)
    if (text[i] == '\n') {
      ++line;
      line_start = i + 1;
    }
  return SourceLocation{file, line, static_cast<std::uint32_t>(offset - line_start + 1)};
}
#endif

/// An error at a known position of a file.
[[nodiscard]] inline Diagnostic error_at(SourceLocation where, std::string message) {
  Diagnostic d = error(std::move(message));
  d.location = std::move(where);
  return d;
}

}  // namespace pto_mem
