/* The recorded arguments of one op, parsed without a DOM: the profiler writes them as short JSON lists
 * ([[32, 3, 224, 224], [64, 3, 7, 7], []], ["float", "float", ""], ["", "", "[1, 1]"]). Anything else is a
 * malformed record, reported as such, never a crash. */
#include "trace/ops/op_args.h"

#include <math.h>
#include <string.h>

/* A shape's dimension above this is not a tensor anyone allocated; the bound also keeps products finite. */
#define DIM_MAX 1e15

typedef struct {
	const char *p, *end;
} cursor;

static void skip_space(cursor *c)
{
	while (c->p < c->end && (*c->p == ' ' || *c->p == '\n' || *c->p == '\t' || *c->p == '\r'))
		c->p++;
}

static bool eat(cursor *c, char ch)
{
	skip_space(c);
	if (c->p < c->end && *c->p == ch) {
		c->p++;
		return true;
	}
	return false;
}

static bool peek(cursor *c, char ch)
{
	skip_space(c);
	return c->p < c->end && *c->p == ch;
}

static bool read_dim(cursor *c, double *out)
{
	double v = 0.0;
	const char *start;

	skip_space(c);
	start = c->p;
	while (c->p < c->end && *c->p >= '0' && *c->p <= '9' && v <= DIM_MAX)
		v = v * 10.0 + (*c->p++ - '0');
	if (c->p == start || v > DIM_MAX)
		return false;
	*out = v;
	return true;
}

/* "[d, d, ...]" (the opening bracket already eaten) into a tensor argument. */
static bool read_shape_rest(cursor *c, op_arg *arg)
{
	arg->kind = OPA_TENSOR;
	arg->rank = 0;
	arg->numel = 1.0;
	if (eat(c, ']'))
		return true;
	do {
		double d;
		if (arg->rank == NS_OP_MAX_RANK || !read_dim(c, &d))
			return false;
		arg->d[arg->rank++] = d;
		arg->numel *= d;
	} while (eat(c, ','));
	return eat(c, ']');
}

/* One element of Input Dims: a shape, or a list of shapes (a TensorList). */
static bool read_arg(cursor *c, op_arg *arg)
{
	memset(arg, 0, sizeof(*arg));
	if (!eat(c, '['))
		return false;
	if (!peek(c, '['))
		return read_shape_rest(c, arg);
	arg->kind = OPA_LIST;
	do {
		op_arg one;
		memset(&one, 0, sizeof(one));
		if (arg->count == NS_OP_MAX_LIST || !eat(c, '[') || !read_shape_rest(c, &one))
			return false;
		arg->numel += one.numel;
		if (arg->count++ == 0) { /* the first member's shape, for models that read one */
			arg->rank = one.rank;
			memcpy(arg->d, one.d, sizeof(arg->d));
		}
	} while (eat(c, ','));
	return eat(c, ']');
}

/* A JSON string: the raw bytes between the quotes (escapes as written). */
static bool read_string(cursor *c, const char **s, size_t *len)
{
	const char *start;

	if (!eat(c, '"'))
		return false;
	start = c->p;
	while (c->p < c->end && *c->p != '"') {
		if (*c->p == '\\' && c->p + 1 < c->end)
			c->p++;
		c->p++;
	}
	if (c->p >= c->end)
		return false;
	*s = start;
	*len = (size_t)(c->p - start);
	c->p++;
	return true;
}

static bool parse_dims(const char *text, size_t len, op_args *out)
{
	cursor c = {text, text + len};

	out->n = 0;
	if (!eat(&c, '['))
		return false;
	if (!eat(&c, ']')) {
		do {
			if (out->n == NS_OP_MAX_ARGS || !read_arg(&c, &out->a[out->n]))
				return false;
			out->n++;
		} while (eat(&c, ','));
		if (!eat(&c, ']'))
			return false;
	}
	skip_space(&c);
	return c.p == c.end;
}

/* A list of strings with one per argument, into the types or the values; false if it is not one. */
static bool parse_strings(const char *text, size_t len, op_args *a, bool types)
{
	cursor c;
	int i = 0;

	if (text == NULL)
		return false;
	c = (cursor){text, text + len};
	if (!eat(&c, '['))
		return false;
	if (!eat(&c, ']')) {
		do {
			const char *s;
			size_t n;
			if (i == a->n || !read_string(&c, &s, &n))
				return false;
			if (types) {
				a->a[i].type = s;
				a->a[i].type_len = n;
			} else {
				a->a[i].value = s;
				a->a[i].value_len = n;
			}
			i++;
		} while (eat(&c, ','));
		if (!eat(&c, ']'))
			return false;
	}
	skip_space(&c);
	return c.p == c.end && i == a->n;
}

static void clear_strings(op_args *a, bool types)
{
	for (int i = 0; i < a->n; i++) {
		if (types) {
			a->a[i].type = NULL;
			a->a[i].type_len = 0;
		} else {
			a->a[i].value = NULL;
			a->a[i].value_len = 0;
		}
	}
}

bool op_type_size(const char *type, size_t len, double *elt, bool *has_dtype, ns_dtype *dtype)
{
	static const struct {
		const char *name;
		double bytes;
		int dtype; /* -1: no roof */
	} sizes[] = {
	    {"float", 4, NS_DTYPE_FP32},
	    {"double", 8, NS_DTYPE_FP64},
	    {"c10::Half", 2, NS_DTYPE_FP16},
	    {"c10::BFloat16", 2, NS_DTYPE_BF16},
	    {"c10::Float8_e4m3fn", 1, NS_DTYPE_FP8},
	    {"c10::Float8_e5m2", 1, NS_DTYPE_FP8},
	    {"c10::Float8_e4m3fnuz", 1, NS_DTYPE_FP8},
	    {"c10::Float8_e5m2fnuz", 1, NS_DTYPE_FP8},
	    {"c10::Float8_e8m0fnu", 1, -1},
	    {"c10::Float4_e2m1fn_x2", 1, NS_DTYPE_FP4}, /* two values a byte */
	    {"signed char", 1, NS_DTYPE_INT8},
	    {"unsigned char", 1, -1},
	    {"bool", 1, -1},
	    {"short int", 2, -1},
	    {"int", 4, -1},
	    {"long int", 8, -1},
	    {"long", 8, -1},
	    {"long long int", 8, -1},
	    {"c10::complex<float>", 8, -1},
	    {"c10::complex<double>", 16, -1},
	    {"c10::complex<c10::Half>", 4, -1},
	};

	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		if (strlen(sizes[i].name) == len && memcmp(sizes[i].name, type, len) == 0) {
			*elt = sizes[i].bytes;
			*has_dtype = sizes[i].dtype >= 0;
			*dtype = sizes[i].dtype >= 0 ? (ns_dtype)sizes[i].dtype : NS_DTYPE_FP32;
			return true;
		}
	}
	return false;
}

/* Sizes from the types; a [] recorded for a tensor type is a 0-d tensor, a shape for a non-tensor type (a
 * list of ints printed as a shape by older profilers) stays a tensor only when its type is unknown. */
static void apply_types(op_args *a, const ns_op_record *op)
{
	int lists = 0;

	for (int i = 0; i < a->n; i++) {
		op_arg *x = &a->a[i];
		bool tensor_type =
		    x->type != NULL && op_type_size(x->type, x->type_len, &x->elt, &x->has_dtype, &x->dtype);
		if (!tensor_type && !op->force_dtype && op->has_list_dtype && x->kind == OPA_LIST) {
			/* a converting copy's second list is its source */
			ns_dtype t =
			    lists++ == 1 && op->has_list_src_dtype ? op->list_src_dtype : op->list_dtype;
			x->elt = ns_dtype_bytes(t);
			x->has_dtype = true;
			x->dtype = t;
			tensor_type = true;
		}
		if (op->force_dtype && (tensor_type || x->rank > 0 || x->kind == OPA_LIST)) {
			x->elt = ns_dtype_bytes(op->dtype);
			x->has_dtype = true;
			x->dtype = op->dtype;
			tensor_type = true;
		}
		if (x->kind == OPA_TENSOR && x->rank == 0 && !tensor_type)
			x->kind = OPA_NONE;
		if (x->kind == OPA_LIST && x->count == 0)
			x->kind = OPA_NONE;
	}
}

ns_op_gap op_args_parse(const ns_op_record *op, op_args *out)
{
	memset(out, 0, sizeof(*out));
	if (op->dims == NULL || op->dims_len == 0)
		return NS_OPG_NO_SHAPES;
	if (!parse_dims(op->dims, op->dims_len, out))
		return NS_OPG_BAD_SHAPES;
	out->has_types = parse_strings(op->types, op->types_len, out, true);
	if (!out->has_types)
		clear_strings(out, true);
	if (!parse_strings(op->concrete, op->concrete_len, out, false))
		clear_strings(out, false);
	apply_types(out, op);
	return NS_OPG_NONE;
}

bool op_args_first_shape(const char *text, size_t len, op_arg *arg)
{
	return op_args_first_typed(text, len, NULL, 0, arg);
}

bool op_args_first_typed(const char *dims, size_t dims_len, const char *types, size_t types_len, op_arg *arg)
{
	op_args a;
	ns_op_record r = {0};

	r.dims = dims;
	r.dims_len = dims_len;
	r.types = types;
	r.types_len = types_len;
	if (op_args_parse(&r, &a) != NS_OPG_NONE)
		return false;
	for (int i = 0; i < a.n; i++) {
		if (a.a[i].kind == OPA_TENSOR && a.a[i].rank > 0) {
			*arg = a.a[i];
			return true;
		}
	}
	return false;
}

bool op_arg_ints(const op_args *a, int i, long long *v, int max, int *n)
{
	cursor c;
	bool list;

	*n = 0;
	if (i < 0 || i >= a->n || a->a[i].value == NULL || a->a[i].value_len == 0)
		return false;
	c = (cursor){a->a[i].value, a->a[i].value + a->a[i].value_len};
	list = eat(&c, '[');
	do {
		long long x = 0;
		bool neg = eat(&c, '-');
		const char *start;
		skip_space(&c);
		start = c.p;
		while (c.p < c.end && *c.p >= '0' && *c.p <= '9' && x < 1000000000000LL)
			x = x * 10 + (*c.p++ - '0');
		if (c.p == start || *n == max || x >= 1000000000000LL)
			return false;
		v[(*n)++] = neg ? -x : x;
	} while (list && eat(&c, ','));
	if (list && !eat(&c, ']'))
		return false;
	skip_space(&c);
	return c.p == c.end;
}

bool op_arg_is(const op_args *a, int i, const char *s)
{
	size_t len = strlen(s);

	return i >= 0 && i < a->n && a->a[i].value != NULL && a->a[i].value_len == len &&
	       memcmp(a->a[i].value, s, len) == 0;
}

bool op_arg_bool(const op_args *a, int i, bool *v)
{
	if (op_arg_is(a, i, "True") || op_arg_is(a, i, "1")) {
		*v = true;
		return true;
	}
	if (op_arg_is(a, i, "False") || op_arg_is(a, i, "0")) {
		*v = false;
		return true;
	}
	return false;
}

const op_arg *op_tensor(const op_args *a, int i)
{
	return i >= 0 && i < a->n && a->a[i].kind == OPA_TENSOR ? &a->a[i] : NULL;
}

double op_arg_bytes(const op_args *a, int i)
{
	if (i < 0 || i >= a->n || a->a[i].kind == OPA_NONE)
		return 0.0;
	return a->a[i].numel * a->a[i].elt;
}
