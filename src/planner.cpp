// pto_mem::compiled: everything behind the front door that is not a
// template over the user's types -- building the Problem from the records
// the templates read (core/make_problem_impl.hpp), plan(problem, options)
// and every solver it runs (planner_impl.hpp) -- compiled once. With
// PTO_MEM_COMPILED defined (the target defines it for its users too),
// planner.hpp and core/make_problem.hpp only declare these functions; this
// file holds their one definition.
#ifndef PTO_MEM_COMPILED
#define PTO_MEM_COMPILED 1
#endif
#include "pto_mem/planner.hpp"
#include "pto_mem/core/make_problem_impl.hpp"
#include "pto_mem/planner_impl.hpp"
