# Fortran bindings and the C++ wrapper (src/binding/fortran). Included from
# tests/CMakeLists.txt. The Fortran and C++ programs are built with the project's own
# bin/mpifort and bin/mpicxx, as a user would build them; the C test is an ordinary target.
#   fortran.c2f_unit            c2f/f2c of every handle kind and the status conversions (C)
#   fortran.{f77,f90,f08}.CFG   mpif.h, use mpi, use mpi_f08 programs at 4 ranks in the
#                               configurations vms (one VM per rank) and hosts (two simulated
#                               hosts of two VMs: the network channel between them)
#   fortran.f90_more.CFG        more of the generated glue, one check per family (use mpi)
#   fortran.f08_more.CFG        the generated glue's less common paths (use mpi_f08)
#   fortran.f90_conform.CFG     what MPICH's Fortran tests found: info blanks and absent keys,
#                               Info_get_string's buflen, Grequest EXTRA_STATE, type names
#   fortran.f90_attrlang.CFG    attributes crossing C and Fortran (with the C helper f_attrlang.c)
#   fortran.{f90,f08}_real16.CFG  REAL(16), COMPLEX(16), INTEGER(16) as MPI_REAL16, MPI_COMPLEX32,
#                               MPI_INTEGER16: names, MPI_Sizeof/Type_match_size, a ring,
#                               exact Allreduce results (use mpi, use mpi_f08)
#   fortran.f08_subarray.CFG    array sections as mpi_f08 choice buffers (MPI_SUBARRAYS_SUPPORTED):
#                               nonblocking, blocking, persistent, reductions, the refusal
#   fortran.cxx.vms             mpi.h from C++ (-Wall -Wextra -pedantic -Werror), 2 ranks
#   fortran.install             cmake --install, then the prefix's mpifort and ivcrun

add_executable(fortran_c2f_unit ${CMAKE_CURRENT_LIST_DIR}/c2f_unit.c)
target_link_libraries(fortran_c2f_unit PRIVATE mpi)
set_target_properties(fortran_c2f_unit PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/tests)
add_test(NAME fortran.c2f_unit COMMAND fortran_c2f_unit)
set_tests_properties(fortran.c2f_unit PROPERTIES TIMEOUT 60 SKIP_RETURN_CODE 77 LABELS "fortran;unit")

set(ivcf_dir ${PROJECT_BINARY_DIR}/tests/fortran)
file(MAKE_DIRECTORY ${ivcf_dir})

# ivc_fortran_mpi_test(<name> <np> <program> CONFIGS...): registers fortran.<name>.<cfg>.
function(ivc_fortran_mpi_test name np prog)
  foreach(cfg IN LISTS ARGN)
    if(cfg STREQUAL "vms")
      set(flags --vms ${np})
    else()
      set(flags --hosts 2 --vms-per-host 2)
    endif()
    add_test(NAME fortran.${name}.${cfg} COMMAND $<TARGET_FILE:ivcrun> -n ${np} ${flags} ${prog})
    set_tests_properties(fortran.${name}.${cfg} PROPERTIES TIMEOUT 180 SKIP_RETURN_CODE 77
                         LABELS "fortran;mpi;${cfg}")
  endforeach()
endfunction()

# C++: mpi.h must compile cleanly as C++ (report the first offending line otherwise).
find_program(IVC_CXX_FOR_TESTS NAMES c++ g++ clang++)
if(IVC_CXX_FOR_TESTS)
  add_custom_command(OUTPUT ${ivcf_dir}/cxx_basic
    COMMAND ${PROJECT_BINARY_DIR}/bin/mpicxx -Wall -Wextra -pedantic -Werror -O1
            -o ${ivcf_dir}/cxx_basic ${CMAKE_CURRENT_LIST_DIR}/cxx_basic.cpp
    DEPENDS ${CMAKE_CURRENT_LIST_DIR}/cxx_basic.cpp mpi ${PROJECT_SOURCE_DIR}/include/mpi.h
    VERBATIM)
  add_custom_target(fortran_cxx_tests ALL DEPENDS ${ivcf_dir}/cxx_basic)
  ivc_fortran_mpi_test(cxx 2 ${ivcf_dir}/cxx_basic vms)
else()
  message(STATUS "tests: no C++ compiler; fortran.cxx (mpi.h from C++) not registered")
endif()

include(CheckLanguage)
check_language(Fortran)
if(NOT CMAKE_Fortran_COMPILER OR
   (IS_ABSOLUTE "${CMAKE_Fortran_COMPILER}" AND NOT EXISTS "${CMAKE_Fortran_COMPILER}"))
  message(STATUS "tests: no Fortran compiler; the Fortran tests are not registered")
  return()
endif()

# Each program compiles in its own directory (gfortran writes the test's own .mod files into
# the working directory).
foreach(t f77:f77_basic.f f90:f90_basic.f90 f08:f08_basic.f90 f90_more:f90_more.f90
          f08_more:f08_more.f90 f08_io:f08_io.f90 f90_conform:f90_conform.f90
          f90_attrlang:f90_attrlang.f90 f90_real16:f90_real16.f90 f08_real16:f08_real16.f90
          f90_datarep:f90_datarep.f90 f08_datarep:f08_datarep.f90 f08_subarray:f08_subarray.f90)
  string(REPLACE ":" ";" t ${t})
  list(GET t 0 name)
  list(GET t 1 src)
  set(extra "")
  if(name STREQUAL "f77" OR name STREQUAL "f90")
    set(extra ${CMAKE_CURRENT_LIST_DIR}/f_c2f_helper.c)
  elseif(name STREQUAL "f90_attrlang")
    set(extra ${CMAKE_CURRENT_LIST_DIR}/f_attrlang.c)
  endif()
  file(MAKE_DIRECTORY ${ivcf_dir}/${name}.mod)
  string(REGEX REPLACE "\\.f(90)?$" "" prog ${src})
  add_custom_command(OUTPUT ${ivcf_dir}/${prog}
    COMMAND ${PROJECT_BINARY_DIR}/bin/mpifort -O1 -o ${ivcf_dir}/${prog}
            ${CMAKE_CURRENT_LIST_DIR}/${src} ${extra}
    DEPENDS ${CMAKE_CURRENT_LIST_DIR}/${src} ${extra} mpi mpifort ivc_fortran_alias
    WORKING_DIRECTORY ${ivcf_dir}/${name}.mod VERBATIM)
  list(APPEND ivcf_progs ${ivcf_dir}/${prog})
  ivc_fortran_mpi_test(${name} 4 ${ivcf_dir}/${prog} vms hosts)
endforeach()
# Dynamic processes (spawn, spawn_multiple's 2-D argv, ports) from Fortran: 2 ranks, vms.
foreach(t f90_dyn:f90_dyn.f90 f08_dyn:f08_dyn.f90)
  string(REPLACE ":" ";" t ${t})
  list(GET t 0 name)
  list(GET t 1 src)
  file(MAKE_DIRECTORY ${ivcf_dir}/${name}.mod)
  string(REGEX REPLACE "\\.f(90)?$" "" prog ${src})
  add_custom_command(OUTPUT ${ivcf_dir}/${prog}
    COMMAND ${PROJECT_BINARY_DIR}/bin/mpifort -O1 -o ${ivcf_dir}/${prog}
            ${CMAKE_CURRENT_LIST_DIR}/${src}
    DEPENDS ${CMAKE_CURRENT_LIST_DIR}/${src} mpi mpifort ivc_fortran_alias
    WORKING_DIRECTORY ${ivcf_dir}/${name}.mod VERBATIM)
  list(APPEND ivcf_progs ${ivcf_dir}/${prog})
  ivc_fortran_mpi_test(${name} 2 ${ivcf_dir}/${prog} vms)
endforeach()
add_custom_target(fortran_tests ALL DEPENDS ${ivcf_progs})

add_test(NAME fortran.install COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/install_f08.sh)
set_tests_properties(fortran.install PROPERTIES TIMEOUT 300 SKIP_RETURN_CODE 77
  LABELS "fortran;install"
  ENVIRONMENT "BUILD_DIR=${PROJECT_BINARY_DIR};SOURCE_DIR=${PROJECT_SOURCE_DIR}")
