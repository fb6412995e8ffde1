# Proves the package works the three ways a user takes it:
#   1. cmake --install into a temporary prefix, then find_package(pto_mem CONFIG);
#   2. pkg-config --cflags pto_mem against that prefix, and pto_mem_compiled,
#      pto_mem_io and pto_mem_pypto (cflags and libs) each linked into a program;
#   3. add_subdirectory of the source tree.
# Each consumer is built and run. Inputs: PTO_MEM_SOURCE_DIR,
# PTO_MEM_BINARY_DIR, WORK_DIR, CXX_COMPILER, GENERATOR.
cmake_minimum_required(VERSION 3.20)

function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    string(JOIN " " cmd ${ARGN})
    message(FATAL_ERROR "failed (${rc}): ${cmd}\n${out}\n${err}")
  endif()
  set(last_output "${out}" PARENT_SCOPE)
endfunction()

# pkg-config PACKAGE: its flags define DEFINE, link -lLIB and force no
# -std=; tests/install/SOURCE (with the extra flags in ARGN) compiled and
# linked with them into EXE, and run.
function(pkg_config_consumer package define lib source exe)
  run(pkg-config --cflags --libs ${package})
  string(STRIP "${last_output}" flags)
  if(NOT flags MATCHES "-D${define}" OR NOT flags MATCHES "-l${lib}" OR flags MATCHES "-std=")
    message(FATAL_ERROR "pkg-config --cflags --libs ${package} gave '${flags}'")
  endif()
  separate_arguments(flag_list UNIX_COMMAND "${flags}")
  run(${CXX_COMPILER} -std=c++20 ${ARGN} "${PTO_MEM_SOURCE_DIR}/tests/install/${source}" ${flag_list}
      -o "${WORK_DIR}/${exe}")
  run("${WORK_DIR}/${exe}")
  message(STATUS "pkg-config, ${package}: ${last_output}")
endfunction()

set(prefix "${WORK_DIR}/prefix")
file(REMOVE_RECURSE "${WORK_DIR}")

# 1. Install, then find_package from a separate project.
run(${CMAKE_COMMAND} --install "${PTO_MEM_BINARY_DIR}" --prefix "${prefix}")
foreach(f include/pto_mem/planner.hpp include/pto_mem/planner_impl.hpp include/pto_mem/io/csv.hpp
          share/cmake/pto_mem/pto_memConfig.cmake share/cmake/pto_mem/pto_memConfigVersion.cmake
          share/pkgconfig/pto_mem.pc share/pkgconfig/pto_mem_compiled.pc)
  if(NOT EXISTS "${prefix}/${f}")
    message(FATAL_ERROR "cmake --install did not install ${f}")
  endif()
endforeach()
# No optimisation: these builds prove packaging, not speed.
set(common -G "${GENERATOR}" -DCMAKE_CXX_COMPILER=${CXX_COMPILER} -DCMAKE_BUILD_TYPE=)
run(${CMAKE_COMMAND} -S "${PTO_MEM_SOURCE_DIR}/tests/install" -B "${WORK_DIR}/find-package" ${common}
    "-DCMAKE_PREFIX_PATH=${prefix}")
run(${CMAKE_COMMAND} --build "${WORK_DIR}/find-package")
run("${WORK_DIR}/find-package/consumer")
message(STATUS "find_package: ${last_output}")
run("${WORK_DIR}/find-package/consumer_compiled")  # pto_mem::compiled: the light header and the library
message(STATUS "find_package, pto_mem::compiled: ${last_output}")
if(EXISTS "${WORK_DIR}/find-package/consumer_io_compiled")  # built when nlohmann-json was found
  run("${WORK_DIR}/find-package/consumer_io_compiled")
  message(STATUS "find_package, pto_mem::io_compiled: ${last_output}")
endif()

# 2. pkg-config finds the headers in the prefix (the .pc file is relocatable).
set(ENV{PKG_CONFIG_PATH} "${prefix}/share/pkgconfig")
run(pkg-config --cflags pto_mem)
string(STRIP "${last_output}" cflags)
# No -std flag: a C++23 consumer keeps its own standard.
if(cflags MATCHES "-std=" OR NOT cflags MATCHES "-I([^ ]+)")
  message(FATAL_ERROR "pkg-config --cflags pto_mem gave '${cflags}'")
endif()
string(REGEX MATCH "-I([^ ]+)" _ "${cflags}")
if(NOT EXISTS "${CMAKE_MATCH_1}/pto_mem/planner.hpp")
  message(FATAL_ERROR "pkg-config's include directory ${CMAKE_MATCH_1} holds no pto_mem/planner.hpp")
endif()
separate_arguments(cflag_list UNIX_COMMAND "${cflags}")
run(${CXX_COMPILER} -std=c++20 ${cflag_list} -fsyntax-only "${PTO_MEM_SOURCE_DIR}/tests/install/consumer.cpp")
message(STATUS "pkg-config: ${cflags}")
# pkg-config pto_mem_compiled: the light header and libpto_mem.a, compiled,
# linked and run.
pkg_config_consumer(pto_mem_compiled PTO_MEM_COMPILED pto_mem consumer.cpp pkg-config-compiled)

# pkg-config pto_mem_io (installed when nlohmann-json was found): the file
# formats compiled once; a JSON round trip compiled, linked and run.
if(EXISTS "${prefix}/share/pkgconfig/pto_mem_io.pc")
  pkg_config_consumer(pto_mem_io PTO_MEM_IO_COMPILED pto_mem_io consumer.cpp pkg-config-io -DCONSUMER_HAS_IO=1)
endif()

# pkg-config pto_mem_pypto (installed when nlohmann-json was found): the
# PyPTO adapter compiled once; a kernel parsed, planned and printed.
if(EXISTS "${prefix}/share/pkgconfig/pto_mem_pypto.pc")
  pkg_config_consumer(pto_mem_pypto PTO_MEM_PYPTO_COMPILED pto_mem_pypto pypto_consumer.cpp pkg-config-pypto)
endif()

# 3. add_subdirectory of the source tree (pto_mem::io was proven in 1).
run(${CMAKE_COMMAND} -S "${PTO_MEM_SOURCE_DIR}/tests/install" -B "${WORK_DIR}/subdirectory" ${common}
    -DUSE_SUBDIRECTORY=ON -DWITH_IO=OFF "-DPTO_MEM_SOURCE=${PTO_MEM_SOURCE_DIR}")
run(${CMAKE_COMMAND} --build "${WORK_DIR}/subdirectory")
run("${WORK_DIR}/subdirectory/consumer")
message(STATUS "add_subdirectory: ${last_output}")
run("${WORK_DIR}/subdirectory/consumer_compiled")
message(STATUS "add_subdirectory, pto_mem::compiled: ${last_output}")
# Under add_subdirectory pto_mem's install rules are off: installing the
# parent installs nothing of pto_mem's.
run(${CMAKE_COMMAND} --install "${WORK_DIR}/subdirectory" --prefix "${WORK_DIR}/parent-prefix")
if(EXISTS "${WORK_DIR}/parent-prefix/include/pto_mem" OR EXISTS "${WORK_DIR}/parent-prefix/share/cmake/pto_mem")
  message(FATAL_ERROR "add_subdirectory: installing the parent project installed pto_mem's files")
endif()
