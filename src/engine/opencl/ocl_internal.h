/*
 * ocl_internal.h - what the OpenCL engine's host files share: the device list, the per
 * process cache of contexts and built programs, and the rule code generator.
 */
#ifndef WL_OCL_INTERNAL_H
#define WL_OCL_INTERNAL_H

#define CL_TARGET_OPENCL_VERSION 120
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS
#include <CL/cl.h>

/* From cl_ext.h (the ICD loader's "no platform" code), defined here to need no extra header. */
#ifndef CL_PLATFORM_NOT_FOUND_KHR
#define CL_PLATFORM_NOT_FOUND_KHR -1001
#endif

#include "internal.h"

/* Longest build log quoted in an error message (the rest is cut with a note). */
#define WLOCL_LOG_MAX 3000

/* A device chosen by its index across all platforms (listing order), with the context the
 * process keeps for it (created on first use, never released: programs are cached in it). */
typedef struct wlocl_device {
    cl_platform_id platform;
    cl_device_id device;
    cl_context context;
    int is_cpu;           /* CL_DEVICE_TYPE_CPU (PoCL): smaller default tiles */
    int is_nv;            /* a GPU of NVIDIA's platform: inline PTX in `lop3v` (WL_NV) */
    size_t max_wg;        /* CL_DEVICE_MAX_WORK_GROUP_SIZE */
    cl_ulong local_mem;   /* CL_DEVICE_LOCAL_MEM_SIZE */
    cl_ulong max_alloc;   /* CL_DEVICE_MAX_MEM_ALLOC_SIZE */
    char name[256];
} wlocl_device;

/* Number of devices over all platforms; 0 with the error set (WL_ERR_UNAVAILABLE, saying
 * why) when there is no platform or no device. */
wl_status wlocl_count(int *n);

/* Fills *d (a copy; the context inside is shared and owned by the cache) for device
 * `index`.  WL_ERR_UNAVAILABLE if the index is out of range, WL_ERR_DEVICE if the context
 * cannot be made. */
wl_status wlocl_device_get(int index, wlocl_device *d);

/* Returns (through *prog) a program built from the embedded kernel source with `prefix`
 * (OpenCL C text placed before it: the generated rule function) and build `options`, for
 * device d.  Programs are cached per (device, prefix, options) for the life of the process,
 * so that tests creating many universes compile each variant once; the cache owns them.
 * On a build failure returns WL_ERR_DEVICE with the build log (truncated to WLOCL_LOG_MAX
 * characters) in the message. */
wl_status wlocl_program(const wlocl_device *d, const char *prefix, const char *options,
                        cl_program *prog);

/* A short text for an OpenCL error code ("CL_OUT_OF_RESOURCES", or the number). */
const char *wlocl_strerror(cl_int err);

/* Writes the rule logic for the outer-totalistic rule with the given birth / survive masks
 * (bit n: n live neighbours) into buf: the OpenCL C function `ulong wl_rule_eval(s0, s1,
 * s2, s3, c)` (s3..s0 the bit planes of the 9-cell sum, centre included; c the centre) and
 * the macro statement `WL_RULE5(n, x0, k, y1, y2, c)` (a LOP3 network, see ocl_rule.c).
 * Any masks work.  Returns WL_OK, or WL_ERR_INVALID if buf is too small (4096 bytes always
 * suffice). */
wl_status wlocl_rule_code(uint16_t birth, uint16_t survive, char *buf, size_t len);
/* The prefix for a rule that is not outer-totalistic: WL_RULE9, its network of
 * wl_rnet_synth (src/core/rulenet.c) for the lop3v kernel, and stubs for the others. */
wl_status wlocl_circuit_code(const wl_rule *rule, char *buf, size_t len);

/* Lists the devices (one line each: index, platform, name, type, compute units, memory)
 * on out.  WL_ERR_UNAVAILABLE with a message when there are none. */
wl_status wlocl_list_devices(FILE *out);

#endif /* WL_OCL_INTERNAL_H */
