// File output that never loses data: a writer either leaves the complete new
// file or nothing. For a regular file (or a new one) the text goes to a fresh
// temporary file in the target's directory (same file system, so the final
// rename is atomic) and replaces the target only after every byte was
// written; on any failure the temporary file is removed and an existing
// target is left untouched. Symbolic links are followed, so the link stays
// and its target is replaced. A character device or a FIFO cannot be
// replaced by a rename: it is written through (opened and written in
// place). "-" is standard output. output_set.hpp writes several outputs as
// one unit on top of these pieces.
#pragma once

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <system_error>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pto_mem/core/compiled_mode.hpp"
#include "pto_mem/core/diagnostics.hpp"

namespace pto_mem {

/// Where an output path really leads, once symbolic links are followed.
struct OutputTarget {
  enum class Kind {
    standard_output,  ///< the path "-"
    new_file,         ///< nothing there yet: created by a rename
    regular_file,     ///< replaced by a rename
    write_through,    ///< a character device or a FIFO: opened and written in place
  };
  Kind kind = Kind::new_file;
  std::filesystem::path path;       ///< the final path (links followed)
  std::filesystem::path directory;  ///< where the temporary goes (new and regular files)
  /// Identity: device and inode when the target exists, else the canonical path.
  dev_t device = 0;
  ino_t inode = 0;
  std::string canonical;
  mode_t mode = 0;  ///< permission bits of an existing regular file (kept by the rename)
};

/// Removes every temporary output file still being written (async-signal-
/// safe: only unlink(2)); for a SIGINT/SIGTERM/SIGHUP handler, so that an
/// interrupted run leaves no hidden temporary behind.
PTO_MEM_IO_INLINE void remove_staged_outputs() noexcept;

/// Follows `path` to what will really be written and checks that it can be:
/// not empty, not a directory, neither the path nor the file name longer
/// than the system allows, its directory exists and is writable (a device or
/// FIFO: is itself writable). Returns the target or why not. A name that
/// passes is always writable through a temporary: the temporary's name is
/// never longer than allowed (StagedFile::write).
[[nodiscard]] PTO_MEM_IO_INLINE std::optional<Diagnostic> resolve_output(const std::filesystem::path& path,
                                                                         OutputTarget& out);

/// True when two resolved targets are one file (or both standard output).
[[nodiscard]] PTO_MEM_IO_INLINE bool same_target(const OutputTarget& a, const OutputTarget& b) noexcept;

/// A temporary being written next to its target; removed unless committed.
class StagedFile {
 public:
  StagedFile() = default;
  StagedFile(const StagedFile&) = delete;
  StagedFile& operator=(const StagedFile&) = delete;
  StagedFile(StagedFile&& o) noexcept : tmp_(std::move(o.tmp_)), slot_(o.slot_) {
    o.slot_ = -1;
    o.tmp_.clear();
  }
  StagedFile& operator=(StagedFile&& o) noexcept {
    if (this != &o) {
      discard();
      tmp_ = std::move(o.tmp_);
      slot_ = o.slot_;
      o.slot_ = -1;
      o.tmp_.clear();
    }
    return *this;
  }
  ~StagedFile() { discard(); }

  /// Writes `text` to a fresh temporary in `target.directory`, named
  /// ".NAME.tmp-XXXXXXXX" (NAME cut short when the whole would pass the
  /// directory's longest file name).
  [[nodiscard]] PTO_MEM_IO_INLINE std::optional<Diagnostic> write(const OutputTarget& target,
                                                                  std::string_view text);

  /// Renames the temporary onto `target.path`.
  [[nodiscard]] PTO_MEM_IO_INLINE std::optional<Diagnostic> commit(const OutputTarget& target);

  /// Removes the temporary, if any.
  PTO_MEM_IO_INLINE void discard() noexcept;

 private:
  std::string tmp_;
  int slot_ = -1;
};

/// Writes `text` straight into a character device, a FIFO or standard output.
[[nodiscard]] PTO_MEM_IO_INLINE std::optional<Diagnostic> write_through(const OutputTarget& target,
                                                                        std::string_view text);

/// Writes `text` to `path` without losing data: atomically for a regular or
/// new file (following symbolic links), in place for a device or FIFO, to
/// standard output for "-". Returns nullopt on success, otherwise a
/// diagnostic that names the file and the reason (nothing is left behind).
[[nodiscard]] PTO_MEM_IO_INLINE std::optional<Diagnostic> write_file_atomically(
    const std::filesystem::path& path, std::string_view text);

#if PTO_MEM_IO_DEFINE
namespace detail::output {

inline Diagnostic cannot_write(const std::filesystem::path& path, const std::string& why) {
  Diagnostic d = error("cannot write '" + path.string() + "': " + why);
  d.location = SourceLocation{path.string(), 0, 0};
  return d;
}

/// Temporaries being written, for a signal handler to remove: fixed storage,
/// no allocation, constant-initialised (no guard a handler could block on).
inline constexpr std::size_t max_staged = 32;
inline constexpr std::size_t max_staged_name = 4096;
struct StagedNames {
  char name[max_staged][max_staged_name];
  volatile std::sig_atomic_t used[max_staged];
};
inline StagedNames staged_names{};

/// Registers `path` before the file is created; -1 when it cannot be held.
inline int stage_name(const std::string& path) noexcept {
  if (path.size() >= max_staged_name) return -1;
  for (std::size_t i = 0; i < max_staged; ++i)
    if (staged_names.used[i] == 0) {
      std::memcpy(staged_names.name[i], path.c_str(), path.size() + 1);
      staged_names.used[i] = 1;
      return static_cast<int>(i);
    }
  return -1;
}
inline void unstage_name(int slot) noexcept {
  if (slot >= 0) staged_names.used[slot] = 0;
}

/// The longest file name `directory` holds (NAME_MAX, usually 255 bytes).
inline std::size_t name_max(const std::filesystem::path& directory) noexcept {
  errno = 0;
  const long n = ::pathconf(directory.c_str(), _PC_NAME_MAX);
  return n > 0 ? static_cast<std::size_t>(n) : 255;
}

/// The longest path the system takes (PATH_MAX less its terminating NUL).
inline constexpr std::size_t path_max = 4095;

/// The name of a temporary for `filename`: "." + a leading part of it +
/// ".tmp-" + 8 hex digits, at most `limit` bytes (at least 14). The leading
/// part is the whole name when it fits, else cut at a UTF-8 character
/// boundary, so that a final name of any allowed length has a temporary
/// that is allowed too.
inline std::string staged_name(const std::string& filename, std::size_t limit, unsigned random) {
  char suffix[32];
  std::snprintf(suffix, sizeof suffix, ".tmp-%08x", random);
  const std::size_t fixed = 1 + std::strlen(suffix);
  std::size_t keep = filename.size();
  if (fixed + keep > limit) {
    keep = limit > fixed ? limit - fixed : 0;
    while (keep > 0 && (static_cast<unsigned char>(filename[keep]) & 0xC0) == 0x80)
      --keep;  // not inside a character
  }
  std::string name(1, '.');  // appended, not `"." + ...`: see GCC PR 105651 (-Wrestrict)
  name.append(filename, 0, keep).append(suffix);
  return name;
}

/// Writes all of `text` to `fd`; 0 or the errno of the failure.
inline int write_all(int fd, std::string_view text) noexcept {
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    done += static_cast<std::size_t>(n);
  }
  return 0;
}

}  // namespace detail::output

PTO_MEM_IO_INLINE void remove_staged_outputs() noexcept {
  for (std::size_t i = 0; i < detail::output::max_staged; ++i)
    if (detail::output::staged_names.used[i] != 0) ::unlink(detail::output::staged_names.name[i]);
}

PTO_MEM_IO_INLINE std::optional<Diagnostic> resolve_output(const std::filesystem::path& path,
                                                           OutputTarget& out) {
  namespace fs = std::filesystem;
  using detail::output::cannot_write;
  out = OutputTarget{};
  if (path.empty())
    return cannot_write(path, "the path is empty; give a file name (or - for standard output)");
  if (path == "-") {
    out.kind = OutputTarget::Kind::standard_output;
    out.path = path;
    out.canonical = "-";
    return std::nullopt;
  }
  std::error_code ec;
  fs::path p = path;
  for (int hops = 0;; ++hops) {
    if (hops == 40) return cannot_write(path, "too many levels of symbolic links");
    const fs::file_status link = fs::symlink_status(p, ec);
    if (ec || !fs::is_symlink(link)) break;
    const fs::path target = fs::read_symlink(p, ec);
    if (ec) return cannot_write(path, ec.message());
    p = target.is_absolute() ? target : p.parent_path() / target;
  }
  out.path = p;
  if (p.filename().empty() || p.filename() == "." || p.filename() == "..")
    return cannot_write(path, "the path names a directory, not a file");
  // Too long a name would only fail when the output is written, after all
  // the work: say so now.
  if (p.string().size() > detail::output::path_max)
    return cannot_write(path, "the path is " + std::to_string(p.string().size()) +
                                  " bytes long; the longest allowed is " +
                                  std::to_string(detail::output::path_max) + "; choose a shorter path");
  out.directory = p.has_parent_path() ? p.parent_path() : fs::path(".");
  if (const std::size_t longest = detail::output::name_max(out.directory);
      p.filename().string().size() > longest)
    return cannot_write(path, "the file name is " + std::to_string(p.filename().string().size()) +
                                  " bytes long; the longest allowed is " + std::to_string(longest) +
                                  "; choose a shorter name");
  struct stat st {};
  const bool exists = ::stat(p.c_str(), &st) == 0;
  if (exists) {
    out.device = st.st_dev;
    out.inode = st.st_ino;
    if (S_ISDIR(st.st_mode)) return cannot_write(path, "it is a directory");
    if (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode)) {
      out.kind = OutputTarget::Kind::write_through;
      if (::access(p.c_str(), W_OK) != 0) return cannot_write(path, std::strerror(errno));
      return std::nullopt;
    }
    if (!S_ISREG(st.st_mode))
      return cannot_write(path, "it is neither a regular file, a character device nor a FIFO");
    out.kind = OutputTarget::Kind::regular_file;
    out.mode = st.st_mode & 07777;
  } else if (errno != ENOENT) {
    return cannot_write(path, std::strerror(errno));
  }
  if (!fs::is_directory(out.directory, ec))
    return cannot_write(path, "the directory '" + out.directory.string() + "' does not exist");
  if (::access(out.directory.c_str(), W_OK | X_OK) != 0)
    return cannot_write(path, "the directory '" + out.directory.string() + "' is not writable (" +
                                  std::strerror(errno) + ")");
  if (!exists) {
    out.kind = OutputTarget::Kind::new_file;
    out.canonical = (fs::weakly_canonical(out.directory, ec) / p.filename()).string();
    if (ec) out.canonical = fs::absolute(p, ec).lexically_normal().string();
  }
  return std::nullopt;
}

PTO_MEM_IO_INLINE bool same_target(const OutputTarget& a, const OutputTarget& b) noexcept {
  using Kind = OutputTarget::Kind;
  const bool a_exists = a.kind == Kind::regular_file || a.kind == Kind::write_through;
  const bool b_exists = b.kind == Kind::regular_file || b.kind == Kind::write_through;
  if (a_exists && b_exists) return a.device == b.device && a.inode == b.inode;
  if (a_exists != b_exists) return false;
  return a.canonical == b.canonical;
}

PTO_MEM_IO_INLINE std::optional<Diagnostic> StagedFile::write(const OutputTarget& target,
                                                              std::string_view text) {
  using detail::output::cannot_write;
  discard();
  // O_EXCL creates the file exclusively, so two writers never share a
  // temporary; a clash only means another name is tried.
  std::random_device entropy;
  int fd = -1;
  int open_errno = 0;
  // The temporary's name is no longer than the directory allows, nor its
  // path longer than the final path when that one is near the limit.
  const std::string filename = target.path.filename().string();
  const std::size_t directory_part = target.directory.string().size() + 1;
  std::size_t limit = detail::output::name_max(target.directory);
  if (directory_part < detail::output::path_max)
    limit = std::min(limit, detail::output::path_max - directory_part);
  limit = std::max(limit, filename.size());  // never shorter than what the final name needs
  for (int attempt = 0; attempt < 16 && fd < 0; ++attempt) {
    tmp_ = (target.directory / detail::output::staged_name(filename, limit, static_cast<unsigned>(entropy())))
               .string();
    slot_ = detail::output::stage_name(tmp_);  // before the file exists: a signal can always remove it
    fd = ::open(tmp_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    open_errno = errno;
    if (fd < 0) {
      detail::output::unstage_name(slot_);
      slot_ = -1;
      if (open_errno != EEXIST) break;
    }
  }
  if (fd < 0) {
    tmp_.clear();
    return cannot_write(target.path, std::strerror(open_errno));
  }
  int bad = detail::output::write_all(fd, text);
  if (bad == 0 && target.kind == OutputTarget::Kind::regular_file && ::fchmod(fd, target.mode) != 0)
    bad = errno;
  if (::close(fd) != 0 && bad == 0) bad = errno;
  if (bad != 0) {
    discard();
    return cannot_write(target.path, std::strerror(bad));
  }
  return std::nullopt;
}

PTO_MEM_IO_INLINE std::optional<Diagnostic> StagedFile::commit(const OutputTarget& target) {
  if (tmp_.empty()) return detail::output::cannot_write(target.path, "nothing was staged");
  std::error_code ec;
  std::filesystem::rename(tmp_, target.path, ec);
  if (ec) {
    discard();
    return detail::output::cannot_write(target.path, ec.message());
  }
  detail::output::unstage_name(slot_);
  slot_ = -1;
  tmp_.clear();
  return std::nullopt;
}

PTO_MEM_IO_INLINE void StagedFile::discard() noexcept {
  if (!tmp_.empty()) ::unlink(tmp_.c_str());
  detail::output::unstage_name(slot_);
  slot_ = -1;
  tmp_.clear();
}

PTO_MEM_IO_INLINE std::optional<Diagnostic> write_through(const OutputTarget& target, std::string_view text) {
  using detail::output::cannot_write;
  if (target.kind == OutputTarget::Kind::standard_output) {
    std::fflush(stdout);
    if (const int bad = detail::output::write_all(STDOUT_FILENO, text))
      return cannot_write("-", std::strerror(bad));
    return std::nullopt;
  }
  const int fd = ::open(target.path.c_str(), O_WRONLY | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) return cannot_write(target.path, std::strerror(errno));
  int bad = detail::output::write_all(fd, text);
  if (::close(fd) != 0 && bad == 0) bad = errno;
  if (bad != 0) return cannot_write(target.path, std::strerror(bad));
  return std::nullopt;
}

PTO_MEM_IO_INLINE std::optional<Diagnostic> write_file_atomically(const std::filesystem::path& path,
                                                                  std::string_view text) {
  OutputTarget target;
  if (auto bad = resolve_output(path, target)) return bad;
  if (target.kind == OutputTarget::Kind::standard_output || target.kind == OutputTarget::Kind::write_through)
    return write_through(target, text);
  StagedFile staged;
  if (auto bad = staged.write(target, text)) return bad;
  return staged.commit(target);
}
#endif  // PTO_MEM_IO_DEFINE

}  // namespace pto_mem
