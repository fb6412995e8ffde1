// pto_mem::compiled: everything behind the front door that is not a
// template over the user's types -- building the Problem from the records
// the templates read (core/make_problem_impl.hpp), plan(problem, options)
// and every solver it runs (planner_impl.hpp; the DSA-RP driver of
// algorithms/dsa_rp_impl.hpp, which the PyPTO passes call too), the validator
// (algorithms/validator_impl.hpp) and must-alias unification
// (algorithms/alias_impl.hpp) -- compiled once. With PTO_MEM_COMPILED
// defined (the target defines it for its users too), planner.hpp,
// core/make_problem.hpp, algorithms/dsa_rp.hpp, algorithms/validator.hpp
// and algorithms/alias.hpp only declare these functions; this file holds
// their one definition.
#ifndef PTO_MEM_COMPILED
#define PTO_MEM_COMPILED 1
#endif
#include "pto_mem/planner.hpp"
#include "pto_mem/algorithms/alias_impl.hpp"
#include "pto_mem/algorithms/dsa_rp_impl.hpp"
#include "pto_mem/algorithms/validator_impl.hpp"
#include "pto_mem/core/make_problem_impl.hpp"
#include "pto_mem/planner_impl.hpp"
