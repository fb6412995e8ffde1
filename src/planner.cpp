// pto_mem::compiled: everything behind the front door that is not a
// template over the user's types -- building the Problem from the records
// the templates read (core/make_problem_impl.hpp), plan(problem, options)
// and every solver it runs (planner_impl.hpp; the DSA-RP driver of
// algorithms/dsa_rp_impl.hpp, which the PyPTO passes call too), the validator
// (algorithms/validator_impl.hpp), must-alias unification
// (algorithms/alias_impl.hpp), and the analyses most users of a Problem
// reach for: ProblemIndex's constructor (core/problem_impl.hpp),
// alias_classes and the max-load sweep arena_loads
// (analysis/{alias_classes,lower_bound}_impl.hpp) -- compiled once. With
// PTO_MEM_COMPILED defined (the target defines it for its users too),
// planner.hpp, core/make_problem.hpp, core/problem.hpp,
// algorithms/dsa_rp.hpp, algorithms/validator.hpp, algorithms/alias.hpp and
// analysis/{alias_classes,lower_bound}.hpp only declare these functions;
// this file holds their one definition.
#ifndef PTO_MEM_COMPILED
#define PTO_MEM_COMPILED 1
#endif
#include "pto_mem/planner.hpp"
#include "pto_mem/algorithms/alias_impl.hpp"
#include "pto_mem/algorithms/dsa_rp_impl.hpp"
#include "pto_mem/algorithms/validator_impl.hpp"
#include "pto_mem/analysis/alias_classes_impl.hpp"
#include "pto_mem/analysis/lower_bound_impl.hpp"
#include "pto_mem/core/make_problem_impl.hpp"
#include "pto_mem/core/problem_impl.hpp"
#include "pto_mem/planner_impl.hpp"
