// Atomic file output: a writer either leaves the complete new file or nothing.
// The text goes to a fresh temporary file in the target's directory (same
// file system, so the final rename is atomic) and replaces the target only
// after every byte was written and flushed; on any failure the temporary file
// is removed and an existing target is left untouched.
#pragma once

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <system_error>

#include "pto_mem/core/diagnostics.hpp"

namespace pto_mem {

/// Writes `text` to `path` atomically. Returns nullopt on success, otherwise
/// a diagnostic that names the file and the reason (nothing is left behind).
[[nodiscard]] inline std::optional<Diagnostic> write_file_atomically(const std::filesystem::path& path,
                                                                    std::string_view text) {
  namespace fs = std::filesystem;
  auto fail = [&](const std::string& why) {
    Diagnostic d = error("cannot write '" + path.string() + "': " + why);
    d.location = SourceLocation{path.string(), 0, 0};
    return d;
  };
  if (path.filename().empty()) return fail("the path names a directory, not a file");
  std::error_code ec;
  const fs::path dir = path.has_parent_path() ? path.parent_path() : fs::path(".");
  if (!fs::is_directory(dir, ec)) return fail("the directory '" + dir.string() + "' does not exist");

  // "x" (C11) creates the file exclusively, so two writers never share a
  // temporary; a clash only means another name is tried.
  std::random_device entropy;
  std::FILE* f = nullptr;
  fs::path tmp;
  int open_errno = 0;
  for (int attempt = 0; attempt < 16 && f == nullptr; ++attempt) {
    char suffix[32];
    std::snprintf(suffix, sizeof suffix, ".tmp-%08x", static_cast<unsigned>(entropy()));
    std::string name(1, '.');  // appended, not `"." + ...`: see GCC PR 105651 (-Wrestrict)
    name.append(path.filename().string()).append(suffix);
    tmp = dir / name;
    f = std::fopen(tmp.c_str(), "wbx");
    open_errno = errno;
    if (f == nullptr && open_errno != EEXIST) break;
  }
  if (f == nullptr) return fail(std::strerror(open_errno));

  bool ok = std::fwrite(text.data(), 1, text.size(), f) == text.size();
  int write_errno = ok ? 0 : errno;
  if (ok && std::fflush(f) != 0) { ok = false; write_errno = errno; }
  if (std::fclose(f) != 0 && ok) { ok = false; write_errno = errno; }
  if (!ok) {
    fs::remove(tmp, ec);
    return fail(std::strerror(write_errno != 0 ? write_errno : EIO));
  }
  fs::rename(tmp, path, ec);
  if (ec) {
    std::error_code ignored;
    fs::remove(tmp, ignored);
    return fail(ec.message());
  }
  return std::nullopt;
}

}  // namespace pto_mem
