// Single-precision matrix products for TensorFlow.js through OpenBLAS, as a Node-API addon.
// Row-major, C = A·B (+ beta·C), on the Float32Arrays' own memory (no copies). Every argument is
// checked here because a wrong length would make BLAS read or write past a buffer: the caller gets
// a TypeError or RangeError naming the argument instead of a crashed process.
#define NAPI_VERSION 8
#include <node_api.h>
#include <cblas.h>
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

// Declared again because a non-OpenBLAS cblas.h (the reference one) lacks them; we link -lopenblas.
void openblas_set_num_threads(int num_threads);
int openblas_get_num_threads(void);

#define MAX_THREADS 1024

typedef struct {
  float *data;
  size_t length;
} FloatView;

// Returns false after throwing; the caller returns NULL so the pending exception reaches JS.
static bool fail_type(napi_env env, const char *fn, const char *what) {
  char message[256];
  snprintf(message, sizeof message, "%s: %s", fn, what);
  napi_throw_type_error(env, "ERR_INVALID_ARG_TYPE", message);
  return false;
}

static bool fail_range(napi_env env, const char *fn, const char *what) {
  char message[256];
  snprintf(message, sizeof message, "%s: %s", fn, what);
  napi_throw_range_error(env, "ERR_OUT_OF_RANGE", message);
  return false;
}

static bool read_bool(napi_env env, const char *fn, const char *name, napi_value value, bool *out) {
  napi_valuetype type;
  if (napi_typeof(env, value, &type) != napi_ok || type != napi_boolean) {
    char what[128];
    snprintf(what, sizeof what, "%s must be a boolean", name);
    return fail_type(env, fn, what);
  }
  return napi_get_value_bool(env, value, out) == napi_ok;
}

// A whole number in [min, max]; BLAS takes int sizes, so max is at most INT_MAX.
static bool read_int(napi_env env, const char *fn, const char *name, napi_value value, int64_t min, int64_t max, int64_t *out) {
  napi_valuetype type;
  char what[160];
  if (napi_typeof(env, value, &type) != napi_ok || type != napi_number) {
    snprintf(what, sizeof what, "%s must be a number", name);
    return fail_type(env, fn, what);
  }
  double number;
  napi_get_value_double(env, value, &number);
  if (!isfinite(number) || number != floor(number) || number < (double)min || number > (double)max) {
    snprintf(what, sizeof what, "%s must be a whole number in [%lld, %lld], got %g", name, (long long)min, (long long)max, number);
    return fail_range(env, fn, what);
  }
  *out = (int64_t)number;
  return true;
}

static bool read_number(napi_env env, const char *fn, const char *name, napi_value value, double *out) {
  napi_valuetype type;
  if (napi_typeof(env, value, &type) != napi_ok || type != napi_number) {
    char what[128];
    snprintf(what, sizeof what, "%s must be a number", name);
    return fail_type(env, fn, what);
  }
  napi_get_value_double(env, value, out);
  if (!isfinite(*out)) {
    char what[128];
    snprintf(what, sizeof what, "%s must be finite", name);
    return fail_range(env, fn, what);
  }
  return true;
}

static bool read_floats(napi_env env, const char *fn, const char *name, napi_value value, FloatView *out) {
  bool is_typed = false;
  napi_is_typedarray(env, value, &is_typed);
  napi_typedarray_type type = napi_int8_array;
  char what[128];
  if (is_typed) napi_get_typedarray_info(env, value, &type, &out->length, (void **)&out->data, NULL, NULL);
  if (!is_typed || type != napi_float32_array) {
    snprintf(what, sizeof what, "%s must be a Float32Array", name);
    return fail_type(env, fn, what);
  }
  return true;
}

static bool need_length(napi_env env, const char *fn, const char *name, const FloatView *view, uint64_t needed) {
  if (view->length >= needed) return true;
  char what[192];
  snprintf(what, sizeof what, "%s has %zu elements but the shapes need at least %llu", name, view->length, (unsigned long long)needed);
  return fail_range(env, fn, what);
}

// BLAS gives no meaning to an output that shares memory with an input.
static bool need_disjoint(napi_env env, const char *fn, const char *name, const float *c, uint64_t c_len, const float *x, uint64_t x_len) {
  if (c_len == 0 || x_len == 0 || c + c_len <= x || x + x_len <= c) return true;
  char what[128];
  snprintf(what, sizeof what, "c must not share memory with %s", name);
  return fail_range(env, fn, what);
}

// Extent of `batch` matrices of `size` elements laid `stride` apart (stride 0: one shared matrix).
static uint64_t extent(int64_t batch, int64_t stride, uint64_t size) {
  if (batch == 0 || size == 0) return 0;
  return (uint64_t)(batch - 1) * (uint64_t)stride + size;
}

typedef struct {
  bool trans_a, trans_b;
  int64_t m, n, k;
} GemmShape;

// C[m×n] = op(A)·op(B) + beta·C, all row-major with packed rows.
static void gemm(const GemmShape *s, const float *a, const float *b, float *c, float beta) {
  if (s->m == 0 || s->n == 0) return;
  if (s->k == 0) {
    // BLAS rejects a zero leading dimension; an empty sum is zero.
    for (int64_t i = 0; i < s->m * s->n; i++) c[i] = beta == 0.0f ? 0.0f : beta * c[i];
    return;
  }
  const int lda = (int)(s->trans_a ? s->m : s->k);
  const int ldb = (int)(s->trans_b ? s->k : s->n);
  cblas_sgemm(CblasRowMajor, s->trans_a ? CblasTrans : CblasNoTrans, s->trans_b ? CblasTrans : CblasNoTrans,
              (int)s->m, (int)s->n, (int)s->k, 1.0f, a, lda, b, ldb, beta, c, (int)s->n);
}

static bool read_shape(napi_env env, const char *fn, napi_value *argv, GemmShape *s) {
  return read_bool(env, fn, "transA", argv[0], &s->trans_a) && read_bool(env, fn, "transB", argv[1], &s->trans_b) &&
         read_int(env, fn, "m", argv[2], 0, INT_MAX, &s->m) && read_int(env, fn, "n", argv[3], 0, INT_MAX, &s->n) &&
         read_int(env, fn, "k", argv[4], 0, INT_MAX, &s->k);
}

static bool read_args(napi_env env, napi_callback_info info, const char *fn, size_t min_argc, size_t max_argc, napi_value *argv, size_t *argc) {
  *argc = max_argc;
  napi_get_cb_info(env, info, argc, argv, NULL, NULL);
  if (*argc >= min_argc) return true;
  char what[96];
  snprintf(what, sizeof what, "expects at least %zu arguments, got %zu", min_argc, *argc);
  return fail_type(env, fn, what);
}

// sgemm(transA, transB, m, n, k, a, b, c, beta = 0)
static napi_value sgemm(napi_env env, napi_callback_info info) {
  const char *fn = "sgemm";
  napi_value argv[9];
  size_t argc;
  GemmShape s;
  FloatView a, b, c;
  double beta = 0.0;
  if (!read_args(env, info, fn, 8, 9, argv, &argc) || !read_shape(env, fn, argv, &s)) return NULL;
  if (!read_floats(env, fn, "a", argv[5], &a) || !read_floats(env, fn, "b", argv[6], &b) || !read_floats(env, fn, "c", argv[7], &c)) return NULL;
  if (argc > 8 && !read_number(env, fn, "beta", argv[8], &beta)) return NULL;
  const uint64_t a_size = (uint64_t)s.m * s.k, b_size = (uint64_t)s.k * s.n, c_size = (uint64_t)s.m * s.n;
  if (!need_length(env, fn, "a", &a, a_size) || !need_length(env, fn, "b", &b, b_size) || !need_length(env, fn, "c", &c, c_size)) return NULL;
  if (!need_disjoint(env, fn, "a", c.data, c_size, a.data, a_size) || !need_disjoint(env, fn, "b", c.data, c_size, b.data, b_size)) return NULL;
  gemm(&s, a.data, b.data, c.data, (float)beta);
  return NULL;
}

// sgemmBatched(batch, transA, transB, m, n, k, a, aStride, b, bStride, c, cStride, beta = 0)
static napi_value sgemm_batched(napi_env env, napi_callback_info info) {
  const char *fn = "sgemmBatched";
  napi_value argv[13];
  size_t argc;
  GemmShape s;
  FloatView a, b, c;
  int64_t batch, a_stride, b_stride, c_stride;
  double beta = 0.0;
  if (!read_args(env, info, fn, 12, 13, argv, &argc)) return NULL;
  if (!read_int(env, fn, "batch", argv[0], 0, INT_MAX, &batch) || !read_shape(env, fn, argv + 1, &s)) return NULL;
  if (!read_floats(env, fn, "a", argv[6], &a) || !read_int(env, fn, "aStride", argv[7], 0, INT64_C(1) << 52, &a_stride) ||
      !read_floats(env, fn, "b", argv[8], &b) || !read_int(env, fn, "bStride", argv[9], 0, INT64_C(1) << 52, &b_stride) ||
      !read_floats(env, fn, "c", argv[10], &c) || !read_int(env, fn, "cStride", argv[11], 0, INT64_C(1) << 52, &c_stride)) return NULL;
  if (argc > 12 && !read_number(env, fn, "beta", argv[12], &beta)) return NULL;
  const uint64_t a_size = (uint64_t)s.m * s.k, b_size = (uint64_t)s.k * s.n, c_size = (uint64_t)s.m * s.n;
  // Outputs that overlap would race each other's writes; inputs may be shared (stride 0 broadcasts).
  if (batch > 1 && c_size > 0 && (uint64_t)c_stride < c_size) {
    fail_range(env, fn, "cStride must be at least m*n so the outputs do not overlap");
    return NULL;
  }
  const uint64_t a_extent = extent(batch, a_stride, a_size), b_extent = extent(batch, b_stride, b_size), c_extent = extent(batch, c_stride, c_size);
  if (!need_length(env, fn, "a", &a, a_extent) || !need_length(env, fn, "b", &b, b_extent) || !need_length(env, fn, "c", &c, c_extent)) return NULL;
  if (!need_disjoint(env, fn, "a", c.data, c_extent, a.data, a_extent) || !need_disjoint(env, fn, "b", c.data, c_extent, b.data, b_extent)) return NULL;
  for (int64_t i = 0; i < batch; i++) {
    gemm(&s, a.data + i * a_stride, b.data + i * b_stride, c.data + i * c_stride, (float)beta);
  }
  return NULL;
}

static napi_value openblas_threads(napi_env env, napi_callback_info info) {
  (void)info;
  napi_value result;
  napi_create_int32(env, openblas_get_num_threads(), &result);
  return result;
}

static napi_value set_openblas_threads(napi_env env, napi_callback_info info) {
  const char *fn = "setOpenblasThreads";
  napi_value argv[1];
  size_t argc;
  int64_t threads;
  if (!read_args(env, info, fn, 1, 1, argv, &argc) || !read_int(env, fn, "threads", argv[0], 1, MAX_THREADS, &threads)) return NULL;
  openblas_set_num_threads((int)threads);
  return NULL;
}

static napi_value init(napi_env env, napi_value exports) {
  napi_property_descriptor methods[] = {
      {"sgemm", NULL, sgemm, NULL, NULL, NULL, napi_enumerable, NULL},
      {"sgemmBatched", NULL, sgemm_batched, NULL, NULL, NULL, napi_enumerable, NULL},
      {"openblasThreads", NULL, openblas_threads, NULL, NULL, NULL, napi_enumerable, NULL},
      {"setOpenblasThreads", NULL, set_openblas_threads, NULL, NULL, NULL, napi_enumerable, NULL},
  };
  napi_define_properties(env, exports, sizeof methods / sizeof methods[0], methods);
  return exports;
}

NAPI_MODULE(reins_blas, init)
