/* One op's recorded arguments, parsed: the shapes of "Input Dims", the types of "Input type" and the values
 * of "Concrete Inputs", aligned by position. Private to the op models. */
#ifndef NEXTSTEP_OP_ARGS_H
#define NEXTSTEP_OP_ARGS_H

#include <stdbool.h>
#include <stddef.h>

#include "nextstep/op_models.h"

typedef enum {
	OPA_NONE,   /* [] with no tensor type: a scalar, a list of ints, None */
	OPA_TENSOR, /* a shape; [] with a tensor type is a 0-d tensor of one element */
	OPA_LIST    /* a list of shapes (TensorList) */
} op_arg_kind;

typedef struct {
	op_arg_kind kind;
	int rank;                 /* OPA_TENSOR */
	double d[NS_OP_MAX_RANK]; /* OPA_TENSOR */
	double numel;             /* OPA_TENSOR: the product; OPA_LIST: the sum over its tensors */
	int count;                /* OPA_LIST: its tensors */
	double elt;               /* bytes per element from the type; 0 when unknown */
	bool has_dtype;           /* the type has a roof (float, half, bfloat16, fp8, int8, ...) */
	ns_dtype dtype;
	const char *type; /* the type as recorded (escapes as written), not terminated */
	size_t type_len;
	const char *value; /* the Concrete Inputs string, unquoted, not terminated; NULL if absent */
	size_t value_len;
} op_arg;

typedef struct {
	int n; /* arguments in Input Dims */
	op_arg a[NS_OP_MAX_ARGS];
	bool has_types; /* Input type was recorded and has one entry per argument */
} op_args;

/* Parses the record's three texts. NS_OPG_NO_SHAPES without Input Dims, NS_OPG_BAD_SHAPES when a text is not
 * what the profiler writes (a type list or value list of another length is ignored, not an error). */
ns_op_gap op_args_parse(const ns_op_record *op, op_args *out);
/* The shape list of a text such as a node's Input Dims: the first tensor of it into *arg. False if none. */
bool op_args_first_shape(const char *text, size_t len, op_arg *arg);
/* The same with its type from types (a node's Input type; NULL: none, elt 0). */
bool op_args_first_typed(const char *dims, size_t dims_len, const char *types, size_t types_len, op_arg *arg);

/* The Concrete Inputs value of argument i as integers: "[1, 1]" or "3". False when absent or not integers;
 * at most max values (more is false). */
bool op_arg_ints(const op_args *a, int i, long long *v, int max, int *n);
/* "True" / "False" (also "1" / "0"): false when absent or neither. */
bool op_arg_bool(const op_args *a, int i, bool *v);
/* Whether argument i is the string s exactly. */
bool op_arg_is(const op_args *a, int i, const char *s);
/* The argument when it is a tensor, else NULL (also past the end). */
const op_arg *op_tensor(const op_args *a, int i);
/* The bytes of argument i (a tensor or a list of them); 0 when it is neither or its size is unknown. */
double op_arg_bytes(const op_args *a, int i);

/* Bytes per element and the roof dtype of a torch type name (len bytes). False when unknown. */
bool op_type_size(const char *type, size_t len, double *elt, bool *has_dtype, ns_dtype *dtype);

#endif
