// OpenBLAS's CBLAS interface plus its thread-count controls, as packaged by Debian
// (libopenblas-dev; pkg-config name `openblas`). macOS uses Accelerate instead.
#ifndef SIBYL_CBLAS_SHIM_H
#define SIBYL_CBLAS_SHIM_H
#include <cblas.h>
#endif
