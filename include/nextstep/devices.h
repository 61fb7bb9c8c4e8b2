/* The device table: datasheet peaks per dtype (dense, not sparse) and memory bandwidth, loaded from a
 * devices.json the caller names (the shipped one is data/devices.json, installed as share/nextstep/) and
 * optional overlay files. The library never looks for the file itself. */
#ifndef NEXTSTEP_DEVICES_H
#define NEXTSTEP_DEVICES_H

#ifndef NEXTSTEP_STATIC_LINKING_ONLY
#error "nextstep/devices.h is libnextstep's unstable tier: define NEXTSTEP_STATIC_LINKING_ONLY"
#endif

#include <stdbool.h>
#include <stddef.h>

#include "nextstep/api.h"
#include "nextstep/error.h"

NS_BEGIN_DECLS

/* Element types a roof can be drawn for; enum order is the order tables and plots list them in. */
typedef enum {
	NS_DTYPE_FP64,
	NS_DTYPE_FP32,
	NS_DTYPE_TF32,
	NS_DTYPE_BF16,
	NS_DTYPE_FP16,
	NS_DTYPE_FP8,
	NS_DTYPE_INT8,
	NS_DTYPE_FP4,
	NS_DTYPE_COUNT
} ns_dtype;

/* Limits on a device file (untrusted input). */
#define NS_DEVICES_MAX        256
#define NS_DEVICE_ALIASES_MAX 32
#define NS_DEVICE_TEXT_MAX    512

/* "fp64", "bf16", ... */
NS_STATIC_API const char *ns_dtype_name(ns_dtype d);
/* Case-insensitive; also float32/f32/float/half/float16/bfloat16/e4m3/e5m2/nvfp4/mxfp4. */
NS_STATIC_API bool ns_dtype_from_name(const char *name, ns_dtype *out);
/* The dtype of a PyTorch scalar type as a profiler trace's "Input type" writes it ("c10::BFloat16", "float",
 * "c10::Half", "double", "c10::Float8_e4m3fn", "signed char"); false for anything else, never a guess. An
 * fp32 matmul may have run as tf32: the trace does not say, so the caller decides. */
NS_STATIC_API bool ns_dtype_from_torch_type(const char *name, ns_dtype *out);
/* Bytes per element as stored in memory (tf32 is stored as fp32: 4; fp4 packs two per byte: 0.5). */
NS_STATIC_API double ns_dtype_bytes(ns_dtype d);

typedef struct {
	char *name; /* display name: "H100 SXM" */
	char *vendor;
	char **aliases; /* other spellings, trace deviceProperties names among them */
	size_t naliases;
	double peak[NS_DTYPE_COUNT]; /* dense FLOP/s (OP/s for int8); 0 when the datasheet lists none */
	double mem_bw;               /* bytes/s */
	double mem_bytes;            /* memory size, bytes (as the datasheet states it, decimal GB) */
	int sms;                     /* SMs (NVIDIA) or compute units (AMD); 0 when unknown */
	char *source;                /* the datasheet the numbers come from */
	char *notes;                 /* may be NULL */
} ns_device;

/* Owns its devices; release with ns_devices_free(). */
typedef struct {
	ns_device *dev;
	size_t n, cap;
} ns_device_table;

NS_STATIC_API void ns_devices_init(ns_device_table *t);
NS_STATIC_API void ns_devices_free(ns_device_table *t);
/* to (initialised, empty) as a deep copy of from; false when out of memory (to then holds what was copied:
 * free it). */
NS_STATIC_API bool ns_devices_copy(const ns_device_table *from, ns_device_table *to);
/* The table's file name inside a data directory. */
#define NS_DEVICES_FILE "devices.json"
/* Adds the devices of a JSON file; a device whose name (or an alias) matches one already loaded replaces it.
 * On error the table is unchanged and err->line is set for syntax errors. */
NS_STATIC_API ns_status ns_devices_load_file(ns_device_table *t, const char *path, ns_error *err);
/* ns_devices_load_file() of DIR/devices.json; the path read is written to path (for messages), cut to size.
 */
NS_STATIC_API ns_status ns_devices_load_dir(ns_device_table *t, const char *dir, char *path, size_t size,
                                            ns_error *err);
/* Name or alias, ignoring case, spaces, '-' and '_'. NULL when unknown. */
NS_STATIC_API const ns_device *ns_devices_find(const ns_device_table *t, const char *name);
/* The device a trace's deviceProperties "name" stands for ("NVIDIA H100 80GB HBM3"): an exact alias match
 * first, then the same with the vendor words (NVIDIA, Tesla, AMD, Instinct) removed. NULL rather than a
 * guess. */
NS_STATIC_API const ns_device *ns_devices_match_trace_name(const ns_device_table *t, const char *trace_name);
/* FLOP/B where the memory roof meets the compute roof for d; 0 when the dtype has no peak. */
NS_STATIC_API double ns_device_ridge(const ns_device *dev, ns_dtype d);

NS_END_DECLS

#endif
