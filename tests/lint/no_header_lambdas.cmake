# Fails when a header under ROOT/include or ROOT/arch launches an extended lambda (KOKKOS_LAMBDA,
# KOKKOS_CLASS_LAMBDA): a header's templates are instantiated by many translation units, and nvcc's
# extended lambdas keep per-translation-unit helper state that such a program can call through as a
# null pointer (include/kqcd/linalg/blas.hpp). Kernels in headers are functors.
#   cmake -DROOT=<source tree> -P no_header_lambdas.cmake
file(GLOB_RECURSE headers "${ROOT}/include/*.hpp" "${ROOT}/arch/*.hpp")
set(found "")
foreach(h IN LISTS headers)
  file(STRINGS "${h}" lines REGEX "KOKKOS_(CLASS_)?LAMBDA[ \t]*\\(")
  foreach(l IN LISTS lines)
    file(RELATIVE_PATH rel "${ROOT}" "${h}")
    string(STRIP "${l}" l)
    string(APPEND found "\n  ${rel}: ${l}")
  endforeach()
endforeach()
list(LENGTH headers n)
if(n EQUAL 0)
  message(FATAL_ERROR "no headers found under ${ROOT}/include")
endif()
if(found)
  message(FATAL_ERROR "extended lambdas in headers (write a functor):${found}")
endif()
message(STATUS "${n} headers, no extended lambdas")
