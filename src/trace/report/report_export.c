/* What the report says of an Nsight Systems export: what the export lacks and what it shows of the program
 * (the -v "export:" line, the JSON "export" member), and the host routes worded by what it shows. An export
 * records the calls nsys traced (CUDA, NVTX, OS runtime, MPI) and, where sampling was on, CPU samples that
 * nextstep does not read: host time outside the traced calls is untraced, not nothing, and advice to record
 * Python frames fits only a Python program (docs/nsys.md, "Python or not"). */
#include <stdio.h>
#include <string.h>

#include "trace/report/report_private.h"
#include "util/text.h"

static bool is_python(const ns_split_result *res)
{
	return res->program.kind == NS_PROGRAM_PYTHON;
}

/* Why the report takes the program for Python or not, as the export line says it. */
static const char *evidence_words(const ns_program_info *p)
{
	switch (p->by) {
	case NS_PROGRAM_BY_NVTX:
		return "PyTorch's NVTX ranges";
	case NS_PROGRAM_BY_THREAD:
		return "a thread named pt_main_thread";
	case NS_PROGRAM_BY_PROCESS:
		return p->kind == NS_PROGRAM_PYTHON
		           ? "its process name"
		           : "its process name, and no NVTX range or thread of PyTorch";
	case NS_PROGRAM_BY_NONE:
		break;
	}
	return "no process name, no NVTX range or thread of PyTorch";
}

static const char *evidence_key(ns_program_evidence by)
{
	static const char *const keys[] = {[NS_PROGRAM_BY_NONE] = "none",
	                                   [NS_PROGRAM_BY_NVTX] = "nvtx",
	                                   [NS_PROGRAM_BY_PROCESS] = "process_name",
	                                   [NS_PROGRAM_BY_THREAD] = "thread_name"};

	return (unsigned)by < sizeof(keys) / sizeof(keys[0]) ? keys[by] : "none";
}

void report_print_export(FILE *out, const ns_split_result *res)
{
	const ns_program_info *p = &res->program;

	fprintf(out, "export: Nsight Systems%s%s%s", res->nsys_schema[0] != '\0' ? " (schema " : "",
	        res->nsys_schema, res->nsys_schema[0] != '\0' ? ")" : "");
	if (p->process[0] != '\0') {
		fputs(", program ", out);
		ns_fput_text(out, p->process);
	}
	fprintf(out, ": %s (%s); %scollectives without names or sizes; ",
	        p->kind == NS_PROGRAM_PYTHON   ? "Python"
	        : p->kind == NS_PROGRAM_NATIVE ? "not Python"
	                                       : "not known to be Python",
	        evidence_words(p), p->kind == NS_PROGRAM_NATIVE ? "" : "no Python frames, ");
	if (res->nsys_ops > 0)
		fprintf(out,
		        "ops from %ld NVTX ranges named like code (aten::..., Class::method: docs/nsys.md)",
		        res->nsys_ops);
	else if (is_python(res))
		fputs("no ops (PyTorch writes them as NVTX ranges under torch.autograd.profiler.emit_nvtx)",
		      out);
	else
		fputs("no ops (no NVTX range named like code)", out);
	fprintf(out, "; OS runtime calls %s; CPU samples %s\n", p->osrt ? "traced" : "not traced",
	        p->samples_read  ? "read"
	        : p->cpu_samples ? "recorded, not read"
	                         : "not recorded");
}

cJSON *report_export_json(const ns_split_result *res)
{
	const ns_program_info *p = &res->program;
	cJSON *o = cJSON_CreateObject(), *prog = cJSON_CreateObject();

	if (o == NULL || prog == NULL || !cJSON_AddItemToObject(o, "program", prog)) {
		cJSON_Delete(prog);
		cJSON_Delete(o);
		return NULL;
	}
	cJSON_AddStringToObject(o, "format", "nsys");
	if (res->nsys_schema[0] != '\0')
		cJSON_AddStringToObject(o, "schema", res->nsys_schema);
	else
		cJSON_AddNullToObject(o, "schema");
	cJSON_AddNumberToObject(o, "ops", (double)res->nsys_ops);
	cJSON_AddBoolToObject(o, "python_frames", false);
	cJSON_AddBoolToObject(o, "collective_metadata", false);
	cJSON_AddBoolToObject(o, "os_runtime", p->osrt);
	cJSON_AddBoolToObject(o, "cpu_samples", p->cpu_samples);
	cJSON_AddBoolToObject(o, "cpu_samples_read", p->samples_read);
	cJSON_AddBoolToObject(o, "mpi", p->mpi);
	if (p->process[0] != '\0')
		cJSON_AddStringToObject(prog, "process", p->process);
	else
		cJSON_AddNullToObject(prog, "process");
	if (p->kind == NS_PROGRAM_UNKNOWN)
		cJSON_AddNullToObject(prog, "python");
	else
		cJSON_AddBoolToObject(prog, "python", p->kind == NS_PROGRAM_PYTHON);
	cJSON_AddStringToObject(prog, "evidence", evidence_key(p->by));
	return o;
}

/* How to see host code the export holds no call for, inside a fix's parentheses. */
static const char *see_words(const ns_program_info *p)
{
	bool python = p->kind == NS_PROGRAM_PYTHON;

	if (p->cpu_samples)
		return python ? "the export's CPU samples show it in Nsight Systems' Bottom-Up view, "
		                "which nextstep does not read"
		              : "the export's CPU samples show which code it is, in Nsight Systems' "
		                "Bottom-Up view; nextstep does not read them";
	return python ? "sample it with py-spy record --native or nsys profile --python-sampling=true"
	              : "sample it: nsys profile --sample=process-tree, or perf record -g";
}

void ns_report_export_hint(const ns_split_result *res, char *buf, size_t size)
{
	if (is_python(res)) {
		snprintf(
		    buf, size,
		    "an Nsight Systems export holds no Python frames nextstep reads: sample the step "
		    "thread with py-spy (py-spy record --native) or nsys profile --python-sampling=true, or "
		    "capture the same steps with torch.profiler.profile(with_stack=True)");
		return;
	}
	snprintf(
	    buf, size, "the export holds no traced call for most of it: %s%s",
	    res->program.samples_read  ? "its CPU samples name the code (-v, sampled code behind host time)"
	    : res->program.cpu_samples ? "its CPU samples show the code (Nsight Systems' Bottom-Up view; "
	                                 "nextstep does not read samples)"
	                               : "sample the CPU to see the code (nsys profile "
	                                 "--sample=process-tree, or perf record -g)",
	    res->program.osrt ? ""
	                      : "; trace OS calls too (nsys profile -t cuda,nvtx,osrt) for blocking "
	                        "I/O, waits and locks");
}

void report_export_routes(const ns_program_info *program, const ns_routes *in, ns_routes *out,
                          char fixes[][NS_REPORT_FIX_MAX])
{
	const ns_route *untraced =
	    &in->finding[program->kind == NS_PROGRAM_PYTHON ? NS_FINDING_HOST_UNTRACED_PYTHON
	                                                    : NS_FINDING_HOST_UNTRACED];
	bool native = program->kind == NS_PROGRAM_NATIVE;

	/* the OS calls explain the gap when report_python_route() routed it; else it is untraced code */
	if (out->cause[NS_CAUSE_HOST_GAP].fix == in->cause[NS_CAUSE_HOST_GAP].fix && untraced->fix != NULL) {
		out->cause[NS_CAUSE_HOST_GAP] = *untraced;
		out->cause[NS_CAUSE_HOST_GAP].fix =
		    report_subst(untraced->fix, "{see}", see_words(program), fixes[REPORT_FIX_HOST_GAP],
		                 NS_REPORT_FIX_MAX);
	}
	if (out->cause[NS_CAUSE_HOST_GAP].fix != in->cause[NS_CAUSE_HOST_GAP].fix)
		out->route[NS_REGIME_IDLE] = out->cause[NS_CAUSE_HOST_GAP];
	if (program->mpi && in->finding[NS_FINDING_MPI_HOST].fix != NULL)
		out->cause[NS_CAUSE_HOST_COMM] = in->finding[NS_FINDING_MPI_HOST];
	if (out->cause[NS_CAUSE_INIT].fix == in->cause[NS_CAUSE_INIT].fix &&
	    in->finding[NS_FINDING_STARTUP_NSYS].fix != NULL)
		out->cause[NS_CAUSE_INIT] = in->finding[NS_FINDING_STARTUP_NSYS];
	if (native && in->finding[NS_FINDING_SYNC_NATIVE].fix != NULL)
		out->cause[NS_CAUSE_SYNC] = in->finding[NS_FINDING_SYNC_NATIVE];
	if (native && in->finding[NS_FINDING_SYNC_WAIT_NATIVE].fix != NULL)
		out->cause[NS_CAUSE_SYNC_WAIT] = in->finding[NS_FINDING_SYNC_WAIT_NATIVE];
	if (native && in->finding[NS_FINDING_TRANSFER_NATIVE].fix != NULL)
		out->cause[NS_CAUSE_TRANSFER] = in->finding[NS_FINDING_TRANSFER_NATIVE];
	if (native && out->cause[NS_CAUSE_LAUNCH].fix == in->cause[NS_CAUSE_LAUNCH].fix &&
	    in->finding[NS_FINDING_LAUNCH_NATIVE].fix != NULL)
		out->cause[NS_CAUSE_LAUNCH] = in->finding[NS_FINDING_LAUNCH_NATIVE];
}

void ns_report_export_roofline(const ns_split_result *res, char *buf, size_t size)
{
	snprintf(
	    buf, size,
	    "an Nsight Systems export places no kernel on the roofline: nsys records each kernel's name, "
	    "grid and block, not the FLOPs and bytes of the work behind it, and no id links a kernel to "
	    "an op (emit_nvtx's ranges give input shapes without dtypes); measure the kernels with Nsight "
	    "Compute (ncu --section SpeedOfLight_RooflineChart) or place one by hand (nextstep roofline "
	    "--flops F --bytes B --time T)%s",
	    is_python(res) ? ", or capture the same steps with torch.profiler (record_shapes=True) and "
	                     "give nextstep that trace"
	                   : "");
}
