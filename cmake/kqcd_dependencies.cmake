# Third-party dependencies besides Kokkos. Each one either comes from the build root's Debian
# packages or, on the GPU machine, from unpacked packages named through CMAKE_PREFIX_PATH.

find_program(KQCD_CCACHE ccache)
if(KQCD_CCACHE AND NOT CMAKE_CXX_COMPILER_LAUNCHER)
  set(CMAKE_CXX_COMPILER_LAUNCHER ${KQCD_CCACHE})
endif()

# Random123: header-only, no CMake package; used inside device kernels.
find_path(KQCD_RANDOM123_INCLUDE_DIR Random123/philox.h REQUIRED)

# Kokkos Kernels: optional. Standalone installs export Kokkos::kokkoskernels with a version
# file; Trilinos' (TriBITS) installs export KokkosKernels::all_libs without one, so the version
# (4.7 or newer) is checked at compile time in kqcd/core/kokkos_kernels.hpp instead.
set(KQCD_HAVE_KOKKOS_KERNELS OFF)
if(NOT KQCD_ENABLE_KOKKOS_KERNELS STREQUAL "OFF")
  if(KQCD_ENABLE_KOKKOS_KERNELS STREQUAL "ON")
    find_package(KokkosKernels CONFIG REQUIRED)
  else()
    find_package(KokkosKernels CONFIG QUIET)
  endif()
  if(TARGET Kokkos::kokkoskernels)
    set(KQCD_KOKKOS_KERNELS_TARGET Kokkos::kokkoskernels)
  elseif(TARGET KokkosKernels::all_libs)
    set(KQCD_KOKKOS_KERNELS_TARGET KokkosKernels::all_libs)
  endif()
  if(KQCD_KOKKOS_KERNELS_TARGET)
    set(KQCD_HAVE_KOKKOS_KERNELS ON)
    message(STATUS "kqcd: Kokkos Kernels (${KQCD_KOKKOS_KERNELS_TARGET})")
  elseif(KQCD_ENABLE_KOKKOS_KERNELS STREQUAL "ON")
    message(FATAL_ERROR "KQCD_ENABLE_KOKKOS_KERNELS=ON but the Kokkos Kernels package defines no known target")
  endif()
endif()

# MPI: optional.
set(KQCD_HAVE_MPI OFF)
if(NOT KQCD_ENABLE_MPI STREQUAL "OFF")
  if(KQCD_ENABLE_MPI STREQUAL "ON")
    find_package(MPI REQUIRED COMPONENTS CXX)
  else()
    find_package(MPI QUIET COMPONENTS CXX)
  endif()
  if(MPI_CXX_FOUND)
    set(KQCD_HAVE_MPI ON)
    message(STATUS "kqcd: MPI ${MPI_CXX_VERSION} (${MPIEXEC_EXECUTABLE})")
  endif()
endif()

# NCCL: the device halo transport between GPUs (comm/device_comm.hpp). It needs Kokkos' CUDA
# backend and MPI (which starts the ranks and hands NCCL its id).
set(KQCD_HAVE_NCCL OFF)
if(NOT KQCD_ENABLE_NCCL STREQUAL "OFF")
  kokkos_check(DEVICES CUDA RETURN_VALUE _kqcd_kokkos_cuda)
  set(_kqcd_nccl_missing "")
  if(NOT _kqcd_kokkos_cuda)
    set(_kqcd_nccl_missing "Kokkos' CUDA backend")
  elseif(NOT KQCD_HAVE_MPI)
    set(_kqcd_nccl_missing "MPI")
  else()
    list(APPEND CMAKE_MODULE_PATH ${CMAKE_CURRENT_LIST_DIR})
    find_package(NCCL QUIET)
    if(NOT NCCL_FOUND)
      set(_kqcd_nccl_missing "the NCCL library (set NCCL_ROOT to its prefix)")
    endif()
  endif()
  if(_kqcd_nccl_missing STREQUAL "")
    set(KQCD_HAVE_NCCL ON)
    message(STATUS "kqcd: NCCL ${NCCL_VERSION} (${NCCL_LIBRARY})")
  elseif(KQCD_ENABLE_NCCL STREQUAL "ON")
    message(FATAL_ERROR "KQCD_ENABLE_NCCL=ON but this build lacks ${_kqcd_nccl_missing}")
  endif()
endif()

# nlohmann-json: header-only, used privately by src/ (the tune cache) and by the tool.
find_package(nlohmann_json 3 CONFIG REQUIRED)
if(KQCD_ENABLE_APPS OR KQCD_ENABLE_BENCHMARKS)
  find_package(CLI11 CONFIG REQUIRED)
endif()
if(KQCD_ENABLE_TESTS)
  find_package(Catch2 3 CONFIG REQUIRED)
endif()

# Warnings, sanitizers and target options for our own targets only. The options that change the
# generated code are collected in KQCD_TARGET_OPTIONS too, so that benchmark provenance records
# exactly the flags the kernels were compiled with (cmake/build_info.hpp.in).
add_library(kqcd_warnings INTERFACE)
target_compile_options(kqcd_warnings INTERFACE $<$<COMPILE_LANG_AND_ID:CXX,GNU,Clang>:-Wall -Wextra -Wno-unknown-pragmas>)
# KQCD_CODEGEN_OPTIONS, the subset that decides the kernels' instruction set and arithmetic, is
# also exported with the installed package (src/CMakeLists.txt): a user's translation unit that
# compiles kqcd's header-only kernels must generate them as kqcd's own objects do.
set(KQCD_TARGET_OPTIONS)
set(KQCD_CODEGEN_OPTIONS)
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
  # Kokkos forces CMAKE_CXX_EXTENSIONS off, and GCC's strict -std=c++20 then stops contracting
  # a*b+c into fused multiply-adds, which the kernels are written for.
  list(APPEND KQCD_TARGET_OPTIONS -ffp-contract=fast)
  list(APPEND KQCD_CODEGEN_OPTIONS -ffp-contract=fast)
endif()
if(KQCD_SANITIZE)
  list(APPEND KQCD_TARGET_OPTIONS -fsanitize=address,undefined -fno-omit-frame-pointer)
  target_link_options(kqcd_warnings INTERFACE -fsanitize=address,undefined)
endif()
if(KQCD_NATIVE AND CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang")
  list(APPEND KQCD_TARGET_OPTIONS -march=native)
  list(APPEND KQCD_CODEGEN_OPTIONS -march=native)
endif()
target_compile_options(kqcd_warnings INTERFACE ${KQCD_TARGET_OPTIONS})
