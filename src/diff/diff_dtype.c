/* The dtype of a side's GEMMs, read from kernel names. A trace's kernels carry no dtype field, but vendor
 * libraries spell it in the name (cuBLAS/CUTLASS: "sm90_xmma_gemm_bf16bf16_bf16f32_f32_...", cuDNN on Volta:
 * "volta_scudnn_..." for FP32 and "volta_fp16_s884cudnn_fp16_..."). A change of dtype between two runs makes
 * a speed comparison suspect (a bf16 run against an fp32 one measures the precision change too). */
#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "diff_private.h"

typedef struct {
	const char *token; /* matched case-insensitively anywhere in the name */
	const char *dtype;
} dtype_token;

/* First match wins, so the tokens that contain others come first ("bf16" before "f16", the narrow input types
 * before the "f32" of an accumulator spelled after them). */
static const dtype_token dtype_tokens[] = {
    {"e4m3", "fp8"},    {"e5m2", "fp8"},    {"fp8", "fp8"},     {"mxf4", "fp4"},  {"e2m1", "fp4"},
    {"bf16", "bf16"},   {"fp16", "fp16"},   {"f16", "fp16"},    {"h884", "fp16"}, {"h1688", "fp16"},
    {"h16816", "fp16"}, {"hcudnn", "fp16"}, {"hgemm", "fp16"},  {"tf32", "tf32"}, {"int8", "int8"},
    {"imma", "int8"},   {"sgemm", "fp32"},  {"scudnn", "fp32"}, {"fp32", "fp32"}, {"f32", "fp32"},
    {"dgemm", "fp64"},  {"fp64", "fp64"},
};

static bool contains_icase(const char *hay, const char *needle)
{
	size_t n = strlen(needle);

	for (; *hay != '\0'; hay++) {
		size_t i = 0;
		while (i < n && hay[i] != '\0' && tolower((unsigned char)hay[i]) == needle[i])
			i++;
		if (i == n)
			return true;
	}
	return false;
}

const char *ns_diff_dtype_of_name(const char *name)
{
	for (size_t i = 0; i < sizeof(dtype_tokens) / sizeof(dtype_tokens[0]); i++)
		if (contains_icase(name, dtype_tokens[i].token))
			return dtype_tokens[i].dtype;
	return NULL;
}

void diff_guess_dtype(ns_diff_side *s)
{
	const char *kinds[sizeof(dtype_tokens) / sizeof(dtype_tokens[0])];
	double us[sizeof(dtype_tokens) / sizeof(dtype_tokens[0])] = {0};
	size_t nkinds = 0, best = 0;

	s->dtype[0] = '\0';
	for (size_t i = 0; i < s->nkernels; i++) {
		const char *d =
		    s->kernels[i].cls == NS_KCLASS_COMPUTE ? ns_diff_dtype_of_name(s->kernels[i].name) : NULL;
		size_t k = 0;
		if (d == NULL)
			continue;
		while (k < nkinds && strcmp(kinds[k], d) != 0)
			k++;
		if (k == nkinds)
			kinds[nkinds++] = d;
		us[k] += s->kernels[i].us;
	}
	for (size_t k = 1; k < nkinds; k++)
		if (us[k] > us[best])
			best = k;
	if (nkinds > 0)
		snprintf(s->dtype, sizeof(s->dtype), "%s", kinds[best]);
}
