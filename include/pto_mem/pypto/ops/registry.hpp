// The op registry: name -> OpSpec. Passes and the parser look ops up here;
// users add their own (examples/pypto/register_op.cpp).
#pragma once

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "pto_mem/pypto/ops/builtin_ops.hpp"

namespace pto_mem::pypto {

class OpRegistry {
 public:
  OpRegistry() = default;
  // The lookup index points into the nodes of `ops_`: a copy indexes its own
  // nodes; a move takes the nodes and their index along and leaves the
  // source empty.
  OpRegistry(const OpRegistry& o) : ops_(o.ops_) { reindex(); }
  OpRegistry(OpRegistry&& o) noexcept
      : ops_(std::move(o.ops_)), index_(std::move(o.index_)), shift_(o.shift_) {
    o.clear();
  }
  OpRegistry& operator=(const OpRegistry& o) {
    if (this != &o) {
      ops_ = o.ops_;
      reindex();
    }
    return *this;
  }
  OpRegistry& operator=(OpRegistry&& o) noexcept {
    if (this != &o) {
      ops_ = std::move(o.ops_);
      index_ = std::move(o.index_);
      shift_ = o.shift_;
      o.clear();
    }
    return *this;
  }
  ~OpRegistry() = default;

  /// A registry holding every built-in op (builtin_ops.hpp).
  [[nodiscard]] static OpRegistry with_builtins() {
    OpRegistry r;
    for (auto& s : builtin_ops())
      if (!s.name.empty()) {
        std::string key = s.name;
        r.ops_.insert_or_assign(std::move(key), std::move(s));
      }
    r.reindex();
    return r;
  }

  /// The spec of `name`, or null for an unregistered op. The first probe is
  /// inline at every caller (a name usually sits in its home slot); misses
  /// and collisions continue out of line.
  [[nodiscard, gnu::always_inline]] const OpSpec* find(std::string_view name) const noexcept {
    if (index_.empty()) return nullptr;
    const std::uint64_t h = hash(name);
    const Slot& s = index_[h >> shift_];
    if (s.entry && s.hash == h && same_name(s.entry->first, name)) return &s.entry->second;
    return s.entry ? find_after(name, h) : nullptr;
  }
  [[nodiscard]] bool contains(std::string_view name) const { return find(name) != nullptr; }
  [[nodiscard]] std::size_t size() const noexcept { return ops_.size(); }

  /// Adds a new op. Returns false and leaves the registry unchanged when the
  /// name is taken or the spec contradicts itself; `why` then says what to fix.
  bool add(OpSpec spec, std::string* why = nullptr) {
    std::string problem = check(spec);
    if (problem.empty() && contains(spec.name))
      problem = "op '" + spec.name + "' is already registered; use add_or_replace to redefine it";
    if (!problem.empty()) {
      if (why) *why = std::move(problem);
      return false;
    }
    std::string key = spec.name;
    ops_.emplace(std::move(key), std::move(spec));
    reindex();
    return true;
  }

  /// Adds or redefines an op (no consistency check beyond a non-empty name).
  void add_or_replace(OpSpec spec) {
    if (spec.name.empty()) return;
    std::string key = spec.name;
    ops_.insert_or_assign(std::move(key), std::move(spec));
    reindex();
  }

  bool remove(std::string_view name) {
    auto it = ops_.find(name);
    if (it == ops_.end()) return false;
    ops_.erase(it);
    reindex();
    return true;
  }

  /// Every spec, in name order (deterministic listings).
  [[nodiscard]] std::vector<const OpSpec*> ops() const {
    std::vector<const OpSpec*> out;
    out.reserve(ops_.size());
    for (const auto& [k, v] : ops_) out.push_back(&v);
    std::sort(out.begin(), out.end(), [](const OpSpec* a, const OpSpec* b) { return a->name < b->name; });
    return out;
  }

  /// Why `spec` is inconsistent, or empty.
  [[nodiscard]] static std::string check(const OpSpec& spec) {
    const std::string op = "op '" + spec.name + "': ";
    if (spec.name.empty()) return "an op needs a name";
    if (spec.reuses_input && !spec.args.empty() && *spec.reuses_input >= spec.args.size())
      return op + "output_reuses_input " + std::to_string(*spec.reuses_input) + " is past its " +
             std::to_string(spec.args.size()) + " arguments";
    for (auto k : spec.forbid_output_alias)
      if (!spec.args.empty() && k >= spec.args.size())
        return op + "forbid_output_alias index " + std::to_string(k) + " is past its arguments";
    if (spec.result != ResultKind::tile && spec.output != OutputSpace::none &&
        spec.output != OutputSpace::inherit_input)
      return op + "only a tile result has an output-space rule";
    if (spec.result == ResultKind::tile && spec.output == OutputSpace::none)
      return op +
             "a tile result needs an output-space rule (fixed, target_kwarg, retargetable, inherit or "
             "call_type)";
    if (spec.output == OutputSpace::kwarg && !spec.accepts_target(spec.output_space))
      return op + "the target_memory default is not among its legal targets";
    return {};
  }

 private:
  struct Hash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const noexcept { return std::hash<std::string_view>{}(s); }
  };
  using Ops = std::unordered_map<std::string, OpSpec, Hash, std::equal_to<>>;
  /// One entry of the lookup index; a null entry is an empty slot.
  struct Slot {
    std::uint64_t hash = 0;
    const Ops::value_type* entry = nullptr;
  };

  /// `find` past the home slot of `h`.
  [[nodiscard, gnu::noinline]] const OpSpec* find_after(std::string_view name,
                                                        std::uint64_t h) const noexcept {
    const std::size_t mask = index_.size() - 1;
    for (std::size_t i = ((h >> shift_) + 1) & mask;; i = (i + 1) & mask) {
      const Slot& s = index_[i];
      if (!s.entry) return nullptr;
      if (s.hash == h && same_name(s.entry->first, name)) return &s.entry->second;
    }
  }

  /// A cheap hash of a short name, read eight bytes at a time (op names are
  /// looked up once per call per walk, so `find` is on every pass's path).
  /// Its high bits depend on every byte: the index takes those (`shift_`).
  [[nodiscard, gnu::always_inline]] static std::uint64_t hash(std::string_view s) noexcept {
    constexpr std::uint64_t k = 0x9E3779B97F4A7C15ull;
    auto load = [](const char* p, std::size_t n) noexcept {  // n is 4 or 8
      std::uint64_t w = 0;
      if (n == 8) {
        std::memcpy(&w, p, 8);
      } else {
        std::uint32_t v;
        std::memcpy(&v, p, 4);
        w = v;
      }
      return w;
    };
    auto fold = [](std::uint64_t x) noexcept { return x ^ (x >> 29); };
    const char* p = s.data();
    std::size_t n = s.size();
    std::uint64_t h = (n + 1) * k;
    if (n >= 8) {
      for (; n > 8; p += 8, n -= 8) h = fold((h ^ load(p, 8)) * k);
      return (h ^ load(p + n - 8, 8)) * k;  // the last eight bytes (may overlap the previous word)
    }
    if (n >= 4) return (h ^ load(p, 4) ^ (load(p + n - 4, 4) << 32)) * k;
    std::uint64_t w = 0;
    for (std::size_t i = 0; i < n; ++i) w |= std::uint64_t{static_cast<unsigned char>(p[i])} << (8 * i);
    return (h ^ w) * k;
  }

  /// `a == b`, eight bytes at a time (no call for the usual 8-to-24-byte name).
  [[nodiscard, gnu::always_inline]] static bool same_name(std::string_view a, std::string_view b) noexcept {
    std::size_t n = a.size();
    if (n != b.size()) return false;
    if (n < 8) return a == b;
    auto word = [](const char* p) noexcept {
      std::uint64_t w;
      std::memcpy(&w, p, 8);
      return w;
    };
    const char *p = a.data(), *q = b.data();
    for (; n > 8; p += 8, q += 8, n -= 8)
      if (word(p) != word(q)) return false;
    return word(p + n - 8) == word(q + n - 8);
  }

  /// Rebuilds the open-addressing index over the specs in `ops_` (after
  /// every change, so `find` never sees a removed or stale spec). At most
  /// half full: a miss stops at an empty slot soon.
  void reindex() {
    std::vector<Slot> index(ops_.empty() ? 0 : std::bit_ceil(2 * ops_.size()));
    const std::size_t mask = index.size() - 1;
    const unsigned shift =
        64 - static_cast<unsigned>(std::countr_zero(std::max<std::size_t>(index.size(), 2)));
    for (const auto& entry : ops_) {
      const std::uint64_t h = hash(entry.first);
      std::size_t i = h >> shift;
      while (index[i].entry) i = (i + 1) & mask;
      index[i] = Slot{h, &entry};
    }
    index_.swap(index);
    shift_ = shift;
  }
  void clear() noexcept {
    ops_.clear();
    index_.clear();
  }

  Ops ops_;                  // owns the specs (node-based: their addresses never move)
  std::vector<Slot> index_;  // `find`'s table over them
  unsigned shift_ = 63;      // 64 - log2(index_.size()): a hash's slot is its top bits
};

/// The process-wide registry the parser and passes use by default; it starts
/// with the builtins. Register user ops at start-up, before any parsing or
/// compiling thread runs (it is not synchronised).
[[nodiscard]] inline OpRegistry& default_registry() {
  static OpRegistry r = OpRegistry::with_builtins();
  return r;
}

/// Adds `spec` to default_registry(); see OpRegistry::add.
inline bool register_op(OpSpec spec, std::string* why = nullptr) {
  return default_registry().add(std::move(spec), why);
}

}  // namespace pto_mem::pypto
