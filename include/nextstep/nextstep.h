/* libnextstep: names the bottleneck of a training or inference step. The one header a program includes.
 *
 *   #include <nextstep/nextstep.h>      the stable API (below), exported by libnextstep.so.SOVERSION:
 *                                       a trace analysed in one call (analysis.h),
 *                                       routing a profile (regime, profile, classify, routes, format) and
 *                                       errors. Its functions and the layouts of the structs it declares
 *                                       change only with the SOVERSION.
 *   #define NEXTSTEP_STATIC_LINKING_ONLY
 *   #include <nextstep/nextstep.h>      also the unstable tier: the trace reader, split and reports, the
 *                                       roofline, jobs, diff and HTML, whose structs (ns_split_result,
 *                                       ns_split_window, ...) are their layouts and change between any two
 *                                       releases. libnextstep.so hides it: link libnextstep.a
 *                                       (`pkg-config --static --libs nextstep`) of the exact version.
 *
 * Conventions: functions return ns_status and fill an ns_error (error.h); a struct's owner frees it with
 * the function named next to it; nothing here prints unless handed a FILE *, exits or reads the
 * environment. */
#ifndef NEXTSTEP_NEXTSTEP_H
#define NEXTSTEP_NEXTSTEP_H

#include "nextstep/analysis.h"
#include "nextstep/api.h"
#include "nextstep/cause.h"
#include "nextstep/classify.h"
#include "nextstep/error.h"
#include "nextstep/format.h"
#include "nextstep/parse_flags.h"
#include "nextstep/profile.h"
#include "nextstep/regime.h"
#include "nextstep/routes.h"
#include "nextstep/version.h"

#ifdef NEXTSTEP_STATIC_LINKING_ONLY
#include "nextstep/budget.h"
#include "nextstep/budget_report.h"
#include "nextstep/device_memory.h"
#include "nextstep/devices.h"
#include "nextstep/diff.h"
#include "nextstep/gpu_util.h"
#include "nextstep/html.h"
#include "nextstep/input.h"
#include "nextstep/job.h"
#include "nextstep/job_report.h"
#include "nextstep/json_file.h"
#include "nextstep/kernel_identity.h"
#include "nextstep/kernel_names.h"
#include "nextstep/kernel_rules.h"
#include "nextstep/next_step.h"
#include "nextstep/nsys_read.h"
#include "nextstep/op_models.h"
#include "nextstep/parse_json.h"
#include "nextstep/roofline.h"
#include "nextstep/roofline_report.h"
#include "nextstep/roofline_svg.h"
#include "nextstep/step_period.h"
#include "nextstep/trace_categories.h"
#include "nextstep/trace_input.h"
#include "nextstep/trace_kernels.h"
#include "nextstep/trace_read.h"
#include "nextstep/trace_report.h"
#include "nextstep/trace_roofline.h"
#include "nextstep/trace_split.h"
#include "nextstep/transformer.h"
#include "nextstep/transformer_report.h"
#include "nextstep/units.h"
#endif

#endif
