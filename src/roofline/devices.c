#define _POSIX_C_SOURCE 200809L
#include "nextstep/devices.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <cJSON.h>

#include "nextstep/json_file.h"
#include "util/vec.h"

typedef struct {
	ns_dtype dtype;
	const char *name;
	double bytes;
} dtype_info;

static const dtype_info dtypes[NS_DTYPE_COUNT] = {
    {NS_DTYPE_FP64, "fp64", 8.0}, {NS_DTYPE_FP32, "fp32", 4.0}, {NS_DTYPE_TF32, "tf32", 4.0},
    {NS_DTYPE_BF16, "bf16", 2.0}, {NS_DTYPE_FP16, "fp16", 2.0}, {NS_DTYPE_FP8, "fp8", 1.0},
    {NS_DTYPE_INT8, "int8", 1.0}, {NS_DTYPE_FP4, "fp4", 0.5},
};

static const struct {
	const char *alias;
	ns_dtype dtype;
} dtype_aliases[] = {
    {"float64", NS_DTYPE_FP64},  {"double", NS_DTYPE_FP64},  {"f64", NS_DTYPE_FP64},
    {"float32", NS_DTYPE_FP32},  {"float", NS_DTYPE_FP32},   {"f32", NS_DTYPE_FP32},
    {"bfloat16", NS_DTYPE_BF16}, {"float16", NS_DTYPE_FP16}, {"half", NS_DTYPE_FP16},
    {"f16", NS_DTYPE_FP16},      {"e4m3", NS_DTYPE_FP8},     {"e5m2", NS_DTYPE_FP8},
    {"float8", NS_DTYPE_FP8},    {"nvfp4", NS_DTYPE_FP4},    {"mxfp4", NS_DTYPE_FP4},
};

/* Vendor words a trace puts before the model name; dropped for the second, looser match. */
static const char *const vendor_words[] = {"nvidia", "tesla", "amd", "instinct", "geforce", "radeon"};

static const char *const file_keys[] = {"schema", "about", "devices", NULL};
static const char *const device_keys[] = {
    "name",      "vendor", "aliases", "peak_tflops", "memory_bandwidth_gbs",
    "memory_gb", "sms",    "source",  "notes",       NULL};

const char *ns_dtype_name(ns_dtype d)
{
	return (unsigned)d < NS_DTYPE_COUNT ? dtypes[d].name : NULL;
}

bool ns_dtype_from_name(const char *name, ns_dtype *out)
{
	for (int i = 0; i < NS_DTYPE_COUNT; i++)
		if (strcasecmp(name, dtypes[i].name) == 0) {
			*out = dtypes[i].dtype;
			return true;
		}
	for (size_t i = 0; i < sizeof(dtype_aliases) / sizeof(dtype_aliases[0]); i++)
		if (strcasecmp(name, dtype_aliases[i].alias) == 0) {
			*out = dtype_aliases[i].dtype;
			return true;
		}
	return false;
}

bool ns_dtype_from_torch_type(const char *name, ns_dtype *out)
{
	static const struct {
		const char *torch;
		ns_dtype dtype;
	} types[] = {
	    {"float", NS_DTYPE_FP32},
	    {"double", NS_DTYPE_FP64},
	    {"c10::Half", NS_DTYPE_FP16},
	    {"c10::BFloat16", NS_DTYPE_BF16},
	    {"c10::Float8_e4m3fn", NS_DTYPE_FP8},
	    {"c10::Float8_e5m2", NS_DTYPE_FP8},
	    {"c10::Float8_e4m3fnuz", NS_DTYPE_FP8},
	    {"c10::Float8_e5m2fnuz", NS_DTYPE_FP8},
	    {"signed char", NS_DTYPE_INT8},
	};

	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		if (strcmp(name, types[i].torch) == 0) {
			*out = types[i].dtype;
			return true;
		}
	return false;
}

double ns_dtype_bytes(ns_dtype d)
{
	return (unsigned)d < NS_DTYPE_COUNT ? dtypes[d].bytes : 0.0;
}

double ns_device_ridge(const ns_device *dev, ns_dtype d)
{
	if ((unsigned)d >= NS_DTYPE_COUNT || dev->peak[d] <= 0.0 || dev->mem_bw <= 0.0)
		return 0.0;
	return dev->peak[d] / dev->mem_bw;
}

void ns_devices_init(ns_device_table *t)
{
	memset(t, 0, sizeof(*t));
}

static void device_free(ns_device *d)
{
	free(d->name);
	free(d->vendor);
	for (size_t i = 0; i < d->naliases; i++)
		free(d->aliases[i]);
	free(d->aliases);
	free(d->source);
	free(d->notes);
	memset(d, 0, sizeof(*d));
}

void ns_devices_free(ns_device_table *t)
{
	for (size_t i = 0; i < t->n; i++)
		device_free(&t->dev[i]);
	free(t->dev);
	ns_devices_init(t);
}

static bool device_copy(const ns_device *from, ns_device *to)
{
	*to = *from;
	to->name = to->vendor = to->source = to->notes = NULL;
	to->aliases = NULL;
	to->naliases = 0;
	if ((to->name = strdup(from->name)) == NULL ||
	    (from->vendor != NULL && (to->vendor = strdup(from->vendor)) == NULL) ||
	    (from->source != NULL && (to->source = strdup(from->source)) == NULL) ||
	    (from->notes != NULL && (to->notes = strdup(from->notes)) == NULL))
		return false;
	if (from->naliases > 0 && (to->aliases = calloc(from->naliases, sizeof(*to->aliases))) == NULL)
		return false;
	for (; to->naliases < from->naliases; to->naliases++)
		if ((to->aliases[to->naliases] = strdup(from->aliases[to->naliases])) == NULL)
			return false;
	return true;
}

bool ns_devices_copy(const ns_device_table *from, ns_device_table *to)
{
	if (from->n == 0)
		return true;
	if ((to->dev = calloc(from->n, sizeof(*to->dev))) == NULL)
		return false;
	to->cap = from->n;
	for (; to->n < from->n; to->n++)
		if (!device_copy(&from->dev[to->n], &to->dev[to->n])) {
			to->n++; /* freed with the table */
			return false;
		}
	return true;
}

/* A name's byte as it counts in its key: letters lower-cased, digits as they are, anything else 0 (left
 * out), so "H100-SXM", "h100 sxm" and "H100_SXM" are one key. */
static char key_byte(char c)
{
	return isalnum((unsigned char)c) ? (char)tolower((unsigned char)c) : '\0';
}

static void normalize(const char *in, char *out, size_t size)
{
	size_t n = 0;

	for (; *in != '\0' && n + 1 < size; in++) {
		char c = key_byte(*in);
		if (c != '\0')
			out[n++] = c;
	}
	out[n] = '\0';
}

/* Whether raw, normalized, is key: compared as it is read, with no copy. Loading the table checks every name
 * against every device: normalizing into a buffer each time was 18 % of the instructions a trace run on a
 * small fixture executes, since every trace run loads the table. */
static bool same_as_key(const char *raw, const char *key)
{
	for (; *raw != '\0'; raw++) {
		char c = key_byte(*raw);
		if (c == '\0')
			continue;
		if (c != *key)
			return false;
		key++;
	}
	return *key == '\0';
}

static bool device_has_key(const ns_device *d, const char *key)
{
	if (same_as_key(d->name, key))
		return true;
	for (size_t i = 0; i < d->naliases; i++)
		if (same_as_key(d->aliases[i], key))
			return true;
	return false;
}

static ns_device *find_by_key(const ns_device *dev, size_t n, const char *key)
{
	if (key[0] == '\0')
		return NULL;
	for (size_t i = 0; i < n; i++)
		if (device_has_key(&dev[i], key))
			return (ns_device *)&dev[i];
	return NULL;
}

const ns_device *ns_devices_find(const ns_device_table *t, const char *name)
{
	char key[NS_DEVICE_TEXT_MAX];

	normalize(name, key, sizeof(key));
	return find_by_key(t->dev, t->n, key);
}

static const char *strip_vendor_word(const char *key)
{
	for (size_t i = 0; i < sizeof(vendor_words) / sizeof(vendor_words[0]); i++) {
		size_t len = strlen(vendor_words[i]);
		if (strncmp(key, vendor_words[i], len) == 0)
			return key + len;
	}
	return key;
}

const ns_device *ns_devices_match_trace_name(const ns_device_table *t, const char *trace_name)
{
	char key[NS_DEVICE_TEXT_MAX];
	const char *stripped, *next;
	const ns_device *d;

	normalize(trace_name, key, sizeof(key));
	if ((d = find_by_key(t->dev, t->n, key)) != NULL)
		return d;
	stripped = key;
	while ((next = strip_vendor_word(stripped)) != stripped)
		stripped = next;
	return stripped != key ? find_by_key(t->dev, t->n, stripped) : NULL;
}

static ns_status copy_text(const cJSON *v, const char *what, bool required, char **out, ns_error *err)
{
	if (v == NULL) {
		if (required)
			return ns_error_set(err, NS_ERR_VALUE, "%s is missing", what);
		*out = NULL;
		return NS_OK;
	}
	if (!cJSON_IsString(v) || v->valuestring[0] == '\0')
		return ns_error_set(err, NS_ERR_VALUE, "%s must be a non-empty string", what);
	if (strlen(v->valuestring) >= NS_DEVICE_TEXT_MAX)
		return ns_error_set(err, NS_ERR_LIMIT, "%s is longer than %d bytes", what,
		                    NS_DEVICE_TEXT_MAX - 1);
	if ((*out = strdup(v->valuestring)) == NULL)
		return ns_error_set(err, NS_ERR_NOMEM, "out of memory");
	return NS_OK;
}

static ns_status read_positive(const cJSON *v, const char *what, bool required, double *out, ns_error *err)
{
	if (v == NULL) {
		if (required)
			return ns_error_set(err, NS_ERR_VALUE, "%s is missing", what);
		*out = 0.0;
		return NS_OK;
	}
	if (!cJSON_IsNumber(v) || !(v->valuedouble > 0.0) || v->valuedouble > 1e12)
		return ns_error_set(err, NS_ERR_VALUE, "%s must be a positive number", what);
	*out = v->valuedouble;
	return NS_OK;
}

static ns_status read_aliases(const cJSON *v, const char *who, ns_device *d, ns_error *err)
{
	const cJSON *item;
	int n;

	if (v == NULL)
		return NS_OK;
	if (!cJSON_IsArray(v))
		return ns_error_set(err, NS_ERR_VALUE, "%s: aliases must be an array of strings", who);
	n = cJSON_GetArraySize(v);
	if (n > NS_DEVICE_ALIASES_MAX)
		return ns_error_set(err, NS_ERR_LIMIT, "%s: more than %d aliases", who,
		                    NS_DEVICE_ALIASES_MAX);
	if (n == 0)
		return NS_OK;
	if ((d->aliases = calloc((size_t)n, sizeof(*d->aliases))) == NULL)
		return ns_error_set(err, NS_ERR_NOMEM, "out of memory");
	cJSON_ArrayForEach(item, v)
	{
		char what[320];
		snprintf(what, sizeof(what), "%s: alias %zu", who, d->naliases + 1);
		if (copy_text(item, what, true, &d->aliases[d->naliases], err) != NS_OK)
			return err->status;
		d->naliases++;
	}
	return NS_OK;
}

static ns_status read_peaks(const cJSON *v, const char *who, ns_device *d, ns_error *err)
{
	const cJSON *item;
	size_t count = 0;

	if (v == NULL) /* a part whose vendor publishes no peak: only its memory roof is known */
		return NS_OK;
	if (!cJSON_IsObject(v))
		return ns_error_set(err, NS_ERR_VALUE,
		                    "%s: peak_tflops must be an object of dtype: dense TFLOP/s", who);
	cJSON_ArrayForEach(item, v)
	{
		ns_dtype dt;
		char what[320];
		if (!ns_dtype_from_name(item->string, &dt) ||
		    strcasecmp(item->string, ns_dtype_name(dt)) != 0)
			return ns_error_set(err, NS_ERR_KEY, "%s: peak_tflops: unknown dtype \"%s\"", who,
			                    item->string);
		if (d->peak[dt] > 0.0)
			return ns_error_set(err, NS_ERR_KEY, "%s: peak_tflops: \"%s\" given twice", who,
			                    item->string);
		snprintf(what, sizeof(what), "%s: peak_tflops.%s", who, item->string);
		if (read_positive(item, what, true, &d->peak[dt], err) != NS_OK)
			return err->status;
		d->peak[dt] *= 1e12;
		count++;
	}
	if (count == 0)
		return ns_error_set(err, NS_ERR_VALUE, "%s: peak_tflops lists no dtype", who);
	return NS_OK;
}

static ns_status read_sms(const cJSON *v, const char *who, int *out, ns_error *err)
{
	*out = 0;
	if (v == NULL)
		return NS_OK;
	if (!cJSON_IsNumber(v) || v->valuedouble < 1 || v->valuedouble > 100000 ||
	    v->valuedouble != (double)(int)v->valuedouble)
		return ns_error_set(err, NS_ERR_VALUE, "%s: sms must be a positive whole number", who);
	*out = (int)v->valuedouble;
	return NS_OK;
}

static ns_status read_device(const cJSON *obj, size_t index, ns_device *d, ns_error *err)
{
	char who[256];
	const cJSON *name = cJSON_GetObjectItemCaseSensitive(obj, "name");
	double bw_gbs = 0.0, mem_gb = 0.0;

	memset(d, 0, sizeof(*d));
	if (!cJSON_IsObject(obj))
		return ns_error_set(err, NS_ERR_VALUE, "device %zu must be an object", index + 1);
	snprintf(who, sizeof(who), "device %zu", index + 1);
	if (!cJSON_IsString(name) || name->valuestring[0] == '\0')
		return ns_error_set(err, NS_ERR_VALUE, "%s: \"name\" must be a non-empty string", who);
	if (copy_text(name, who, true, &d->name, err) != NS_OK)
		return err->status;
	snprintf(who, sizeof(who), "device \"%.200s\"", d->name);
	if (ns_json_check_keys(obj, device_keys, who, err) != NS_OK ||
	    copy_text(cJSON_GetObjectItemCaseSensitive(obj, "vendor"), "vendor", false, &d->vendor, err) !=
	        NS_OK ||
	    copy_text(cJSON_GetObjectItemCaseSensitive(obj, "source"), "source", false, &d->source, err) !=
	        NS_OK ||
	    copy_text(cJSON_GetObjectItemCaseSensitive(obj, "notes"), "notes", false, &d->notes, err) !=
	        NS_OK ||
	    read_aliases(cJSON_GetObjectItemCaseSensitive(obj, "aliases"), who, d, err) != NS_OK ||
	    read_peaks(cJSON_GetObjectItemCaseSensitive(obj, "peak_tflops"), who, d, err) != NS_OK ||
	    read_sms(cJSON_GetObjectItemCaseSensitive(obj, "sms"), who, &d->sms, err) != NS_OK)
		return err->status;
	char what[320];
	snprintf(what, sizeof(what), "%s: memory_bandwidth_gbs", who);
	if (read_positive(cJSON_GetObjectItemCaseSensitive(obj, "memory_bandwidth_gbs"), what, true, &bw_gbs,
	                  err) != NS_OK)
		return err->status;
	snprintf(what, sizeof(what), "%s: memory_gb", who);
	if (read_positive(cJSON_GetObjectItemCaseSensitive(obj, "memory_gb"), what, false, &mem_gb, err) !=
	    NS_OK)
		return err->status;
	d->mem_bw = bw_gbs * 1e9;
	d->mem_bytes = mem_gb * 1e9;
	return NS_OK;
}

static ns_status read_devices(const cJSON *doc, ns_device **out, size_t *count, ns_error *err)
{
	const cJSON *list, *item;
	ns_device *devs;
	size_t n = 0;
	int size;

	if (!cJSON_IsObject(doc))
		return ns_error_set(err, NS_ERR_VALUE,
		                    "a device file is a JSON object with a \"devices\" array");
	if (ns_json_check_keys(doc, file_keys, "device file", err) != NS_OK)
		return err->status;
	list = cJSON_GetObjectItemCaseSensitive(doc, "devices");
	if (!cJSON_IsArray(list))
		return ns_error_set(err, NS_ERR_VALUE, "\"devices\" must be an array of device objects");
	size = cJSON_GetArraySize(list);
	if (size > NS_DEVICES_MAX)
		return ns_error_set(err, NS_ERR_LIMIT, "more than %d devices", NS_DEVICES_MAX);
	if ((devs = calloc(size > 0 ? (size_t)size : 1, sizeof(*devs))) == NULL)
		return ns_error_set(err, NS_ERR_NOMEM, "out of memory");
	cJSON_ArrayForEach(item, list)
	{
		char key[NS_DEVICE_TEXT_MAX];
		if (read_device(item, n, &devs[n], err) != NS_OK) {
			n++;
			goto fail;
		}
		normalize(devs[n].name, key, sizeof(key));
		if (find_by_key(devs, n, key) != NULL) {
			ns_error_set(err, NS_ERR_KEY, "device \"%s\" is listed twice", devs[n].name);
			n++;
			goto fail;
		}
		n++;
	}
	*out = devs;
	*count = n;
	return NS_OK;
fail:
	for (size_t i = 0; i < n; i++)
		device_free(&devs[i]);
	free(devs);
	return err->status;
}

/* An overlay stands for the same part, so every spelling that found the old entry still finds the new one.
 * The old strings move over; old keeps only what is left to free. */
static ns_status reserve_aliases(ns_device *d, size_t extra, ns_error *err)
{
	size_t cap = d->naliases; /* what is allocated, at least: the table keeps no spare capacity */
	char **grown = ns_grow(d->aliases, &cap, d->naliases + extra, sizeof(*grown));

	if (grown == NULL)
		return ns_error_set(err, NS_ERR_NOMEM, "out of memory");
	d->aliases = grown;
	return NS_OK;
}

static void inherit_names(ns_device *d, ns_device *old)
{
	char a[NS_DEVICE_TEXT_MAX], b[NS_DEVICE_TEXT_MAX];

	normalize(d->name, a, sizeof(a));
	normalize(old->name, b, sizeof(b));
	if (strcmp(a, b) != 0) {
		d->aliases[d->naliases++] = old->name;
		old->name = NULL;
	}
	for (size_t i = 0; i < old->naliases; i++)
		d->aliases[d->naliases++] = old->aliases[i];
	old->naliases = 0;
}

static ns_status merge_devices(ns_device_table *t, ns_device *add, size_t n, ns_error *err)
{
	size_t appended = 0;

	for (size_t i = 0; i < n; i++) {
		char key[NS_DEVICE_TEXT_MAX];
		normalize(add[i].name, key, sizeof(key));
		appended += find_by_key(t->dev, t->n, key) == NULL;
	}
	if (t->n + appended > NS_DEVICES_MAX)
		return ns_error_set(err, NS_ERR_LIMIT, "more than %d devices in all", NS_DEVICES_MAX);
	for (size_t i = 0; i < n; i++) {
		char key[NS_DEVICE_TEXT_MAX];
		const ns_device *old;
		normalize(add[i].name, key, sizeof(key));
		old = find_by_key(t->dev, t->n, key);
		if (old != NULL && reserve_aliases(&add[i], old->naliases + 1, err) != NS_OK)
			return err->status;
	}
	if (t->n + appended > t->cap) {
		ns_device *grown = ns_grow(t->dev, &t->cap, t->n + appended, sizeof(*grown));
		if (grown == NULL)
			return ns_error_set(err, NS_ERR_NOMEM, "out of memory");
		t->dev = grown;
	}
	for (size_t i = 0; i < n; i++) {
		char key[NS_DEVICE_TEXT_MAX];
		ns_device *old;
		normalize(add[i].name, key, sizeof(key));
		old = find_by_key(t->dev, t->n, key);
		if (old != NULL) {
			inherit_names(&add[i], old);
			device_free(old);
			*old = add[i];
		} else {
			t->dev[t->n++] = add[i];
		}
	}
	return NS_OK;
}

ns_status ns_devices_load_file(ns_device_table *t, const char *path, ns_error *err)
{
	cJSON *doc = NULL;
	ns_device *add = NULL;
	size_t n = 0;
	ns_status st;

	if (ns_json_parse_file(path, &doc, err) != NS_OK)
		return err->status;
	st = read_devices(doc, &add, &n, err);
	cJSON_Delete(doc);
	if (st != NS_OK)
		return st;
	st = merge_devices(t, add, n, err);
	if (st != NS_OK)
		for (size_t i = 0; i < n; i++)
			device_free(&add[i]);
	free(add);
	return st;
}

ns_status ns_devices_load_dir(ns_device_table *t, const char *dir, char *path, size_t size, ns_error *err)
{
	int n = snprintf(path, size, "%s/%s", dir, NS_DEVICES_FILE);

	if (n < 0 || (size_t)n >= size)
		return ns_error_set(err, NS_ERR_LIMIT, "data directory path is longer than %zu bytes",
		                    size - 1);
	return ns_devices_load_file(t, path, err);
}
