// Header-only or compiled. The functions the front door needs that are not
// templates over the user's types (building the Problem from plain records,
// running the planners) are declared with PTO_MEM_PLAN_INLINE. Header-only
// (the default): they are `inline` and their definitions (the *_impl.hpp
// headers) are included by the headers that declare them. With
// PTO_MEM_COMPILED defined (pto_mem::compiled defines it for its users):
// they are ordinary declarations, defined once in the library (src/).
//
// Every translation unit of a program must agree: define PTO_MEM_COMPILED in
// all of them (link pto_mem::compiled) or in none.
#pragma once

#if defined(PTO_MEM_COMPILED)
#define PTO_MEM_PLAN_INLINE
#else
#define PTO_MEM_PLAN_INLINE inline
#endif
