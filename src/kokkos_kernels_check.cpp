// Compiled only when kqcd is built with Kokkos Kernels: enforces the supported versions, which
// Trilinos' CMake package cannot (it has no version file).
#include <KokkosKernels_config.h>

static_assert(KOKKOSKERNELS_VERSION >= 40700, "kqcd needs Kokkos Kernels 4.7 or newer");
static_assert(KOKKOSKERNELS_VERSION < 60000, "kqcd supports Kokkos Kernels up to 5.x");
