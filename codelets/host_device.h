/* Functions shared verbatim by the CPU and CUDA kernels are marked HINES_HOST_DEVICE, so that
 * both compile the same source. */
#ifndef HINES_HOST_DEVICE_H
#define HINES_HOST_DEVICE_H

#ifdef __CUDACC__
#define HINES_HOST_DEVICE __host__ __device__
#define HINES_RESTRICT __restrict__
#else
#define HINES_HOST_DEVICE
#define HINES_RESTRICT restrict
#endif

/* A load of read-only data: through the GPU's read-only data cache in device code, a plain load
 * elsewhere. */
#ifdef __CUDA_ARCH__
#define HINES_LDG(pointer) __ldg(pointer)
#else
#define HINES_LDG(pointer) (*(pointer))
#endif

#endif
