// pto_mem.plan / plan_arrays / Problem.from_arrays: the planner front door
// (pto_mem/planner.hpp) with the GIL released and Ctrl+C honoured, and the
// NumPy path that builds and answers a problem without a Python loop.
#include <pybind11/numpy.h>

#include <chrono>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <stop_token>
#include <thread>

#include "common.hpp"
#include "pto_mem/io/problem_file.hpp"
#include "pto_mem/planner.hpp"

namespace pto_mem::python {
namespace {

/// A plan result with the buffer ids it answers for (offsets by id).
struct PyPlanResult {
  PlanResult r;
  std::vector<std::string> ids;
};

using IntArray = py::array_t<std::int64_t, py::array::c_style | py::array::forcecast>;

/// Runs `plan` on a worker thread while this thread, without the GIL, waits
/// and every 20 ms takes the GIL to look for a pending signal. On Ctrl+C it
/// asks the search to stop, waits for the worker (it never outlives the
/// call) and raises KeyboardInterrupt.
PlanResult plan_interruptible(const Problem& p, PlanOptions o) {
  std::stop_source stop;
  o.stop = stop.get_token();
  PlanResult result;
  std::exception_ptr failure;
  bool interrupted = false;
  {
    py::gil_scoped_release release;
    std::mutex mu;
    std::condition_variable cv;
    bool done = false;
    std::thread worker([&] {
      try {
        result = plan(p, o);
      } catch (...) {
        failure = std::current_exception();
      }
      std::lock_guard lock(mu);
      done = true;
      cv.notify_all();
    });
    std::unique_lock lock(mu);
    while (!cv.wait_for(lock, std::chrono::milliseconds(20), [&] { return done; })) {
      if (interrupted) continue;
      lock.unlock();
      {
        py::gil_scoped_acquire gil;
        if (PyErr_CheckSignals() != 0) interrupted = true;  // the exception stays set for below
      }
      if (interrupted) stop.request_stop();
      lock.lock();
    }
    lock.unlock();
    worker.join();
  }
  if (interrupted) throw py::error_already_set();
  if (failure) std::rethrow_exception(failure);
  return result;
}

Goal goal_from(const std::string& g) {
  if (g == "fit") return Goal::fit;
  if (g == "minimise" || g == "minimize") return Goal::minimise;
  throw py::value_error("goal must be 'fit' or 'minimise', not '" + g + "'");
}

/// Replaces the capacity of the arenas `capacity` names: an int for every
/// arena, or a dict {arena id: capacity}.
void apply_capacity(Problem& p, const py::object& capacity) {
  if (capacity.is_none()) return;
  auto check = [](std::int64_t v) {
    if (v <= 0) throw py::value_error("capacity must be > 0, not " + std::to_string(v));
    return static_cast<Addr>(v);
  };
  if (py::isinstance<py::dict>(capacity)) {
    for (auto [k, v] : capacity.cast<py::dict>()) {
      const auto id = k.cast<std::int64_t>();
      auto it = std::find_if(p.arenas.begin(), p.arenas.end(), [&](const Arena& a) { return a.id == id; });
      if (it == p.arenas.end()) throw py::value_error("capacity: the problem has no arena " + std::to_string(id));
      it->capacity = check(v.cast<std::int64_t>());
    }
    return;
  }
  const Addr c = check(capacity.cast<std::int64_t>());
  for (auto& a : p.arenas) a.capacity = c;
}

PlanOptions options_from(const std::string& strategy, const std::string& goal, double time_limit,
                         std::uint64_t node_limit, unsigned threads, std::uint64_t seed, std::size_t restarts,
                         bool compat_pypto) {
  PlanOptions o;
  const auto s = parse_strategy(strategy);
  if (!s) {  // a rejected call, as documented: PlanError with status `unsupported`
    Diagnostics ds{error("unknown strategy '" + strategy + "'; choose one of: sequential, reuse, greedy, exact, portfolio")};
    py::dict extra;
    extra["status"] = status_name(Status::unsupported);
    raise_error("PlanError", "planning failed (unsupported):\n" + joined(ds), ds, extra);
  }
  o.strategy = *s;
  o.goal = goal_from(goal);
  o.time_limit_s = time_limit;
  o.node_limit = node_limit;
  o.threads = threads;
  o.seed = seed;
  o.restarts = restarts;
  o.compat_pypto = compat_pypto;
  return o;
}

/// The result, or PlanError when the status is not an answer (a malformed
/// problem, an unknown strategy, a planner fault).
PyPlanResult answer(PlanResult r, std::vector<std::string> ids) {
  PyPlanResult out{std::move(r), std::move(ids)};
  if (!is_answer(out.r.status)) {
    Diagnostics ds = out.r.diagnostics;
    const std::string status = status_name(out.r.status);
    py::dict extra;
    extra["status"] = status;
    extra["result"] = py::cast(std::move(out));
    raise_error("PlanError", "planning failed (" + status + "):\n" + joined(ds), ds, extra);
  }
  return out;
}

void require_integers(const py::array& a, const char* name) {
  const char kind = a.dtype().kind();
  if (kind != 'i' && kind != 'u' && a.size() != 0)  // [] is float64 to NumPy
    throw py::type_error(std::string(name) + " must be an integer array, not dtype " +
                         py::str(a.dtype()).cast<std::string>());
  if (a.ndim() != 1) throw py::value_error(std::string(name) + " must be one-dimensional");
}

IntArray int_array(const py::object& obj, const char* name) {
  py::array a = py::array::ensure(obj);
  if (!a) throw py::type_error(std::string(name) + " must be array-like");
  require_integers(a, name);
  return IntArray::ensure(a);
}

}  // namespace

Problem problem_from_arrays(const py::object& sizes_in, const py::object& begins_in, const py::object& ends_in,
                            const py::object& alignments_in, const py::object& arenas_in,
                            const py::object& capacity) {
  IntArray sizes = int_array(sizes_in, "sizes"), begins = int_array(begins_in, "begins"),
           ends = int_array(ends_in, "ends");
  const auto n = static_cast<std::size_t>(sizes.shape(0));
  std::optional<IntArray> alignments, arenas;
  if (!alignments_in.is_none()) alignments = int_array(alignments_in, "alignments");
  if (!arenas_in.is_none()) arenas = int_array(arenas_in, "arenas");
  for (auto [arr, name] : {std::pair{&begins, "begins"}, std::pair{&ends, "ends"}})
    if (static_cast<std::size_t>(arr->shape(0)) != n)
      throw py::value_error(std::string(name) + " has " + std::to_string(arr->shape(0)) + " entries, sizes " +
                            std::to_string(n));
  for (auto [arr, name] : {std::pair{&alignments, "alignments"}, std::pair{&arenas, "arenas"}})
    if (*arr && static_cast<std::size_t>((*arr)->shape(0)) != n)
      throw py::value_error(std::string(name) + " has " + std::to_string((*arr)->shape(0)) + " entries, sizes " +
                            std::to_string(n));

  Problem p;
  Diagnostics bad;
  {
    py::gil_scoped_release release;
    const std::int64_t* s = sizes.data();
    const std::int64_t* b = begins.data();
    const std::int64_t* e = ends.data();
    const std::int64_t* al = alignments ? alignments->data() : nullptr;
    const std::int64_t* ar = arenas ? arenas->data() : nullptr;
    p.buffers.resize(n);
    std::vector<std::int64_t> arena_ids;
    for (std::size_t i = 0; i < n; ++i) {
      BufferSpec& x = p.buffers[i];
      x.id = std::to_string(i);
      if (s[i] < 0 || (al && al[i] < 0)) {
        if (bad.size() < 20)
          bad.push_back(error("buffer " + x.id + ": " + (s[i] < 0 ? "size " + std::to_string(s[i])
                                                                    : "alignment " + std::to_string(al[i])) +
                              " is negative; sizes and alignments are byte counts"));
        continue;
      }
      x.size = static_cast<Addr>(s[i]);
      x.alignment = al ? static_cast<Addr>(al[i]) : 1;
      x.arena = ar ? ar[i] : 0;
      x.lifetime = Interval{b[i], e[i]};
      if (ar) arena_ids.push_back(ar[i]);
    }
    if (!ar) arena_ids.push_back(0);
    std::sort(arena_ids.begin(), arena_ids.end());
    arena_ids.erase(std::unique(arena_ids.begin(), arena_ids.end()), arena_ids.end());
    for (auto id : arena_ids) p.arenas.push_back(Arena{id, "arena" + std::to_string(id), 0, {}});
  }
  raise_if_errors(bad);
  // Arenas without a given capacity get one every placement fits into.
  for (auto& a : p.arenas) a.capacity = always_fitting_capacity(p, a.id);
  apply_capacity(p, capacity);
  return p;
}

namespace {

py::dict statistics_dict(const Statistics& s) {
  py::dict d;
  d["candidates_evaluated"] = s.candidates_evaluated;
  d["orders_evaluated"] = s.orders_evaluated;
  d["selected_order"] = s.selected_order;
  d["first_fit_feasible"] = s.first_fit_feasible;
  d["selected_first_fit"] = s.selected_first_fit;
  for (const auto& [k, v] : s.extra) d[py::str(k)] = v;
  return d;
}

}  // namespace

Placement placement_from(const Problem& p, py::handle offsets) {
  const std::size_t n = p.buffers.size();
  Placement pl;
  auto fail = [](const std::string& message) {
    Diagnostics ds{error(message)};
    raise_error("InputError", message, ds);
  };
  if (py::isinstance<PyPlanResult>(offsets)) {
    const auto& r = offsets.cast<const PyPlanResult&>();
    if (!r.r.placement) fail("the plan result has no placement (status " + status_name(r.r.status) + ")");
    if (r.ids.size() != n) fail("the plan result is for " + std::to_string(r.ids.size()) +
                                " buffers, the problem has " + std::to_string(n));
    return *r.r.placement;
  }
  if (py::isinstance<py::dict>(offsets)) {
    const ProblemIndex index(p);
    pl.offsets.assign(n, std::nullopt);
    for (auto [k, v] : offsets.cast<py::dict>()) {
      const std::string id = py::isinstance<py::str>(k) ? k.cast<std::string>() : py::str(k).cast<std::string>();
      auto i = index.buffer(id);
      if (!i) fail("offsets: the problem has no buffer '" + id + "'");
      if (v.is_none()) continue;
      const auto off = v.cast<std::int64_t>();
      if (off < 0) fail("offsets: buffer '" + id + "' has a negative offset " + std::to_string(off));
      pl.offsets[*i] = static_cast<Addr>(off);
    }
    return pl;
  }
  if (py::isinstance<py::array>(offsets)) {
    IntArray a = int_array(py::reinterpret_borrow<py::object>(offsets), "offsets");
    if (static_cast<std::size_t>(a.shape(0)) != n)
      fail("offsets has " + std::to_string(a.shape(0)) + " entries, the problem " + std::to_string(n) + " buffers");
    const std::int64_t* d = a.data();
    pl.offsets.resize(n);
    for (std::size_t i = 0; i < n; ++i)
      if (d[i] >= 0) pl.offsets[i] = static_cast<Addr>(d[i]);
    return pl;
  }
  if (py::isinstance<py::sequence>(offsets) && !py::isinstance<py::str>(offsets)) {
    auto seq = offsets.cast<py::sequence>();
    if (seq.size() != n)
      fail("offsets has " + std::to_string(seq.size()) + " entries, the problem " + std::to_string(n) + " buffers");
    pl.offsets.resize(n);
    for (std::size_t i = 0; i < n; ++i) {
      py::object v = seq[i];
      if (v.is_none()) continue;
      const auto off = v.cast<std::int64_t>();
      if (off < 0) fail("offsets: buffer '" + p.buffers[i].id + "' has a negative offset " + std::to_string(off));
      pl.offsets[i] = static_cast<Addr>(off);
    }
    return pl;
  }
  throw py::type_error("offsets must be a PlanResult, a dict {id: offset}, a NumPy array or a sequence of int/None");
}

void bind_plan(py::module_& m) {
  py::class_<Objective>(m, "Objective", "Penalty paid, then total and largest arena peak (smaller is better).")
      .def_readonly("penalty", &Objective::penalty)
      .def_readonly("total_peak", &Objective::total_peak)
      .def_readonly("max_peak", &Objective::max_peak)
      .def_readonly("peak_by_arena", &Objective::peak_by_arena)
      .def("__repr__", [](const Objective& o) {
        return "Objective(penalty=" + std::to_string(o.penalty) + ", total_peak=" + std::to_string(o.total_peak) +
               ", max_peak=" + std::to_string(o.max_peak) + ")";
      });

  py::class_<PyPlanResult>(m, "PlanResult", "What plan() found: status, offsets, objective, bounds, statistics.")
      .def_property_readonly("status", [](const PyPlanResult& r) { return status_name(r.r.status); })
      .def_property_readonly("fits", [](const PyPlanResult& r) { return r.r.fits(); })
      .def_property_readonly("strategy", [](const PyPlanResult& r) { return r.r.strategy; })
      .def_property_readonly("offsets", [](const PyPlanResult& r) {
        py::dict d;
        if (r.r.placement)
          for (std::size_t i = 0; i < r.ids.size(); ++i)
            if (const auto& o = r.r.placement->offsets[i]) d[py::str(r.ids[i])] = to_int64(*o);
        return d;
      })
      .def_property_readonly("placement", [](const PyPlanResult& r) {
        py::list out;
        for (std::size_t i = 0; i < r.ids.size(); ++i) {
          const auto& o = r.r.placement ? r.r.placement->offsets[i] : std::nullopt;
          if (o) out.append(to_int64(*o));
          else out.append(py::none());
        }
        return out;
      })
      .def_property_readonly("offsets_array", [](const PyPlanResult& r) {
        py::array_t<std::int64_t> a(static_cast<py::ssize_t>(r.ids.size()));
        std::int64_t* d = a.mutable_data();
        for (std::size_t i = 0; i < r.ids.size(); ++i) {
          const auto& o = r.r.placement ? r.r.placement->offsets[i] : std::nullopt;
          d[i] = o ? to_int64(*o) : -1;
        }
        return a;
      })
      .def_property_readonly("objective", [](const PyPlanResult& r) { return r.r.objective; })
      .def_property_readonly("lower_bound", [](const PyPlanResult& r) { return r.r.lower_bound; })
      .def_property_readonly("statistics", [](const PyPlanResult& r) { return statistics_dict(r.r.statistics); })
      .def_property_readonly("diagnostics", [](const PyPlanResult& r) { return r.r.diagnostics; })
      .def_property_readonly("time_s", [](const PyPlanResult& r) { return r.r.time_s; })
      .def("__len__", [](const PyPlanResult& r) { return r.ids.size(); })
      .def("__repr__", [](const PyPlanResult& r) {
        return "<PlanResult " + status_name(r.r.status) + " by " + r.r.strategy + ": " + std::to_string(r.ids.size()) +
               " buffers, total peak " + std::to_string(r.r.objective.total_peak) + ", penalty " +
               std::to_string(r.r.objective.penalty) + ">";
      });

  m.def("strategies", [] { return strategies(); });

  m.def("plan", [](const Problem& problem, const std::string& strategy, const std::string& goal, double time_limit,
                   std::uint64_t node_limit, unsigned threads, std::uint64_t seed, std::size_t restarts,
                   bool compat_pypto, const py::object& capacity) {
    const PlanOptions o = options_from(strategy, goal, time_limit, node_limit, threads, seed, restarts, compat_pypto);
    std::vector<std::string> ids;
    ids.reserve(problem.buffers.size());
    for (const auto& b : problem.buffers) ids.push_back(b.id);
    if (capacity.is_none()) return answer(plan_interruptible(problem, o), std::move(ids));
    Problem copy = problem;
    apply_capacity(copy, capacity);
    return answer(plan_interruptible(copy, o), std::move(ids));
  }, py::arg("problem"), py::kw_only(), py::arg("strategy") = "portfolio", py::arg("goal") = "minimise",
     py::arg("time_limit") = 10.0, py::arg("node_limit") = 0, py::arg("threads") = 0, py::arg("seed") = 0,
     py::arg("restarts") = 4, py::arg("compat_pypto") = false, py::arg("capacity") = py::none());

  m.def("plan_arrays", [](const py::object& sizes, const py::object& begins, const py::object& ends,
                          const py::object& alignments, const py::object& arenas, const py::object& capacity,
                          const std::string& strategy, const std::string& goal, double time_limit,
                          std::uint64_t node_limit, unsigned threads, std::uint64_t seed, std::size_t restarts) {
    const PlanOptions o = options_from(strategy, goal, time_limit, node_limit, threads, seed, restarts, false);
    Problem p = problem_from_arrays(sizes, begins, ends, alignments, arenas, capacity);
    std::vector<std::string> ids;
    ids.reserve(p.buffers.size());
    for (const auto& b : p.buffers) ids.push_back(b.id);
    return answer(plan_interruptible(p, o), std::move(ids));
  }, py::arg("sizes"), py::arg("begins"), py::arg("ends"), py::arg("alignments") = py::none(), py::kw_only(),
     py::arg("arenas") = py::none(), py::arg("capacity") = py::none(), py::arg("strategy") = "portfolio",
     py::arg("goal") = "minimise", py::arg("time_limit") = 10.0, py::arg("node_limit") = 0, py::arg("threads") = 0,
     py::arg("seed") = 0, py::arg("restarts") = 4);

}

}  // namespace pto_mem::python
