// ArchTraits<ExecutionSpace>: the compile-time layout and launch policy of each backend, as
// Cabana's PerformanceTraits. The primary template holds the defaults (arch_traits_default.hpp);
// each backend's specialisation lives in its own folder and is selected by Kokkos' own backend
// macros.
#pragma once

#include <kqcd/arch/arch_traits_default.hpp>
#include <kqcd/arch/cuda/arch_traits_cuda.hpp>
#include <kqcd/arch/openmp/arch_traits_openmp.hpp>
#include <kqcd/arch/serial/arch_traits_serial.hpp>
