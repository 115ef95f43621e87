/* Host/device portability for headers shared by gcc (CPU backend) and nvcc (CUDA kernels).
 *
 * Headers that include this file contain only DT_HD static inline functions written in the
 * common subset of C11 and C++: no VLAs, no compound literals, no designated initializers,
 * no `restrict` (use DT_RESTRICT), no allocation, no I/O. See STYLE.md §3. */
#ifndef DT_HD_H
#define DT_HD_H

#ifdef __CUDACC__
#define DT_HD __host__ __device__
#define DT_RESTRICT __restrict__
#elif defined(__cplusplus)
#define DT_HD
#define DT_RESTRICT __restrict__
#else
#define DT_HD
#define DT_RESTRICT restrict
#endif

#endif
