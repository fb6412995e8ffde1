// Several outputs of one run written as a unit: all of them or none.
//
//   OutputSet out;
//   out.add("--json", report_path);            // every requested output, before any work
//   if (auto d = out.check({input}); has_errors(d)) ... // refuse bad paths up front
//   ... work ...
//   out.set_text("--json", text);              // what each output holds
//   if (auto d = out.commit(); has_errors(d)) ...
//
// check() refuses, before anything is computed, an empty path, a directory,
// a missing or read-only directory, an output that is one of the inputs, and
// two outputs that are one file (links followed; two character devices may
// coincide: /dev/null twice loses nothing). commit() stages every regular
// file as a temporary next to its target, then writes the devices, FIFOs
// and standard output through, and only when all of that succeeded renames
// the temporaries into place (SIGINT, SIGTERM and SIGHUP are held off for
// the renames, so a signal finds either no output replaced or all of them).
// On a failure every temporary is removed and no regular file is replaced.
#pragma once

#include <csignal>
#include <optional>
#include <string>
#include <vector>

#include <signal.h>
#include <sys/stat.h>

#include "pto_mem/core/compiled_mode.hpp"
#include "pto_mem/core/diagnostics.hpp"
#include "pto_mem/io/atomic_file.hpp"

namespace pto_mem {

class OutputSet {
 public:
  /// Requests an output: `what` names it in messages ("--json") and in set_text.
  void add(std::string what, std::string path) {
    outputs_.push_back({std::move(what), std::move(path), {}, {}});
  }

  [[nodiscard]] bool empty() const noexcept { return outputs_.empty(); }

  /// True when some output is standard output ("-"): the caller then keeps
  /// its own messages off standard output.
  [[nodiscard]] bool writes_standard_output() const noexcept {
    for (const auto& o : outputs_)
      if (o.path == "-") return true;
    return false;
  }

  /// Every check that can be made before the work starts (see the header).
  [[nodiscard]] PTO_MEM_IO_INLINE Diagnostics check(const std::vector<std::string>& inputs);

  /// The text of output `what`; an output never given a text is not written.
  void set_text(const std::string& what, std::string text) {
    for (auto& o : outputs_)
      if (o.what == what) o.text = text;  // a copy: two outputs may share a kind
  }

  /// Writes every output that has a text, all or none (see the header).
  [[nodiscard]] PTO_MEM_IO_INLINE Diagnostics commit();

 private:
  struct Output {
    std::string what, path;
    OutputTarget target;
    std::optional<std::string> text;
    bool resolved = false;
  };

  static bool renamed(const Output& o) {
    return o.target.kind == OutputTarget::Kind::new_file || o.target.kind == OutputTarget::Kind::regular_file;
  }
  static Diagnostic refuse(const Output& o, std::string message) {
    Diagnostic d = error(std::move(message));
    d.location = SourceLocation{o.path, 0, 0};
    return d;
  }

  std::vector<Output> outputs_;
  bool checked_ = false;
};

#if PTO_MEM_IO_DEFINE
PTO_MEM_IO_INLINE Diagnostics OutputSet::check(const std::vector<std::string>& inputs) {
  Diagnostics out;
  for (auto& o : outputs_) {
    if (auto bad = resolve_output(o.path, o.target)) {
      bad->message = o.what + ": " + bad->message;
      out.push_back(std::move(*bad));
      o.resolved = false;
      continue;
    }
    o.resolved = true;
    for (const auto& in : inputs) {
      struct stat st {};
      if (o.target.kind == OutputTarget::Kind::standard_output || ::stat(in.c_str(), &st) != 0) continue;
      if (st.st_dev == o.target.device && st.st_ino == o.target.inode &&
          o.target.kind != OutputTarget::Kind::new_file && !S_ISCHR(st.st_mode))
        out.push_back(refuse(o, o.what + " '" + o.path + "' is the input file '" + in +
                                    "'; write the output to another file"));
    }
  }
  for (std::size_t i = 0; i < outputs_.size(); ++i)
    for (std::size_t j = 0; j < i; ++j) {
      const auto& a = outputs_[j];
      const auto& b = outputs_[i];
      if (!a.resolved || !b.resolved || !same_target(a.target, b.target)) continue;
      if (a.target.kind == OutputTarget::Kind::write_through &&
          b.target.kind == OutputTarget::Kind::write_through) {
        struct stat st {};
        if (::stat(a.target.path.c_str(), &st) == 0 && S_ISCHR(st.st_mode)) continue;  // /dev/null twice
      }
      out.push_back(refuse(b, b.what + " '" + b.path + "' and " + a.what + " '" + a.path +
                                  "' are the same file; give each output its own path"));
    }
  checked_ = !has_errors(out);
  return out;
}

PTO_MEM_IO_INLINE Diagnostics OutputSet::commit() {
  Diagnostics out;
  if (!checked_) {
    out.push_back(error("internal error: OutputSet::commit() before a successful check()"));
    return out;
  }
  std::vector<StagedFile> staged(outputs_.size());
  for (std::size_t i = 0; i < outputs_.size() && out.empty(); ++i) {
    const auto& o = outputs_[i];
    if (!o.text || !renamed(o)) continue;
    if (auto bad = staged[i].write(o.target, *o.text)) out.push_back(std::move(*bad));
  }
  for (std::size_t i = 0; i < outputs_.size() && out.empty(); ++i) {
    const auto& o = outputs_[i];
    if (!o.text || renamed(o)) continue;
    if (auto bad = write_through(o.target, *o.text)) out.push_back(std::move(*bad));
  }
  if (!out.empty()) return out;  // the staged temporaries are removed by their destructors
  sigset_t hold, previous;
  sigemptyset(&hold);
  for (int s : {SIGINT, SIGTERM, SIGHUP}) sigaddset(&hold, s);
  pthread_sigmask(SIG_BLOCK, &hold, &previous);
  for (std::size_t i = 0; i < outputs_.size(); ++i) {
    const auto& o = outputs_[i];
    if (!o.text || !renamed(o)) continue;
    if (auto bad = staged[i].commit(o.target)) out.push_back(std::move(*bad));
  }
  pthread_sigmask(SIG_SETMASK, &previous, nullptr);
  return out;
}
#endif  // PTO_MEM_IO_DEFINE

}  // namespace pto_mem
