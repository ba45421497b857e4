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
char *openblas_get_corename(void);

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
static bool need_disjoint_named(napi_env env, const char *fn, const char *out_name, const char *name, const float *c, uint64_t c_len, const float *x,
                                uint64_t x_len) {
  if (c_len == 0 || x_len == 0 || c + c_len <= x || x + x_len <= c) return true;
  char what[128];
  snprintf(what, sizeof what, "%s must not share memory with %s", out_name, name);
  return fail_range(env, fn, what);
}

static bool need_disjoint(napi_env env, const char *fn, const char *name, const float *c, uint64_t c_len, const float *x, uint64_t x_len) {
  return need_disjoint_named(env, fn, "c", name, c, c_len, x, x_len);
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

// The kernels OpenBLAS chose for this CPU (e.g. "SkylakeX", "Haswell"; "Prescott" is its SSE3 fallback).
static napi_value openblas_core(napi_env env, napi_callback_info info) {
  (void)info;
  napi_value result;
  napi_create_string_utf8(env, openblas_get_corename(), NAPI_AUTO_LENGTH, &result);
  return result;
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

// ---- The RSSM recurrence's element-wise steps (main/worldmodel/backend/rssmSequence*.ts) --------
// The fused sequence kernel's forward spends most of its non-product time in exp, tanh and log;
// glibc's float versions here take a fraction of what V8's Math functions take per element.

static float sigmoidf(float x) { return 1.0f / (1.0f + expf(-x)); }

static bool read_sized_floats(napi_env env, const char *fn, const char *name, napi_value value, uint64_t needed, FloatView *out) {
  return read_floats(env, fn, name, value, out) && need_length(env, fn, name, out, needed);
}

// gruCell(fromInput, fromHidden, hidden | null, rows, size, reset, update, candidate, hiddenCandidate, next):
// PyTorch's GRUCell from the gate pre-activations ([rows, 3·size]: reset | update | candidate columns).
static napi_value gru_cell(napi_env env, napi_callback_info info) {
  const char *fn = "gruCell";
  napi_value argv[10];
  size_t argc;
  int64_t rows, size;
  FloatView from_input, from_hidden, hidden = {NULL, 0}, reset, update, candidate, hidden_candidate, next;
  if (!read_args(env, info, fn, 10, 10, argv, &argc)) return NULL;
  if (!read_int(env, fn, "rows", argv[3], 0, INT_MAX, &rows) || !read_int(env, fn, "size", argv[4], 0, INT_MAX, &size)) return NULL;
  const uint64_t state = (uint64_t)rows * size, gates = 3 * state;
  napi_valuetype hidden_type;
  napi_typeof(env, argv[2], &hidden_type);
  if (hidden_type != napi_null && hidden_type != napi_undefined && !read_sized_floats(env, fn, "hidden", argv[2], state, &hidden)) return NULL;
  if (!read_sized_floats(env, fn, "fromInput", argv[0], gates, &from_input) || !read_sized_floats(env, fn, "fromHidden", argv[1], gates, &from_hidden) ||
      !read_sized_floats(env, fn, "reset", argv[5], state, &reset) || !read_sized_floats(env, fn, "update", argv[6], state, &update) ||
      !read_sized_floats(env, fn, "candidate", argv[7], state, &candidate) || !read_sized_floats(env, fn, "hiddenCandidate", argv[8], state, &hidden_candidate) ||
      !read_sized_floats(env, fn, "next", argv[9], state, &next)) return NULL;
  for (int64_t row = 0; row < rows; row++) {
    const float *in = from_input.data + row * 3 * size, *hid = from_hidden.data + row * 3 * size;
    for (int64_t j = 0; j < size; j++) {
      const int64_t at = row * size + j;
      const float r = sigmoidf(in[j] + hid[j]);
      const float u = sigmoidf(in[size + j] + hid[size + j]);
      const float hn = hid[2 * size + j];
      const float n = tanhf(in[2 * size + j] + r * hn);
      const float h = hidden.data ? hidden.data[at] : 0.0f;
      reset.data[at] = r;
      update.data[at] = u;
      candidate.data[at] = n;
      hidden_candidate.data[at] = hn;
      next.data[at] = n + u * (h - n);
    }
  }
  return NULL;
}

// layerNormSilu(pre, gain, shift, epsilon, rows, normalised, reciprocalStd, scaled, gate, activated):
// silu(layerNorm(pre)) per row of gain.length values, keeping what the backward pass reads.
static napi_value layer_norm_silu(napi_env env, napi_callback_info info) {
  const char *fn = "layerNormSilu";
  napi_value argv[10];
  size_t argc;
  double epsilon;
  int64_t rows;
  FloatView pre, gain, shift, normalised, rstd, scaled, gate, activated;
  if (!read_args(env, info, fn, 10, 10, argv, &argc) || !read_floats(env, fn, "gain", argv[1], &gain)) return NULL;
  if (!read_number(env, fn, "epsilon", argv[3], &epsilon) || !read_int(env, fn, "rows", argv[4], 0, INT_MAX, &rows)) return NULL;
  const int64_t width = (int64_t)gain.length;
  const uint64_t cells = (uint64_t)rows * width;
  if (!read_sized_floats(env, fn, "pre", argv[0], cells, &pre) || !read_sized_floats(env, fn, "shift", argv[2], width, &shift) ||
      !read_sized_floats(env, fn, "normalised", argv[5], cells, &normalised) || !read_sized_floats(env, fn, "reciprocalStd", argv[6], rows, &rstd) ||
      !read_sized_floats(env, fn, "scaled", argv[7], cells, &scaled) || !read_sized_floats(env, fn, "gate", argv[8], cells, &gate) ||
      !read_sized_floats(env, fn, "activated", argv[9], cells, &activated)) return NULL;
  for (int64_t row = 0; row < rows; row++) {
    const float *x = pre.data + row * width;
    double sum = 0.0, squares = 0.0;
    for (int64_t j = 0; j < width; j++) sum += x[j];
    const double mean = sum / width;
    for (int64_t j = 0; j < width; j++) squares += (x[j] - mean) * (x[j] - mean);
    const double reciprocal = 1.0 / sqrt(squares / width + epsilon);
    rstd.data[row] = (float)reciprocal;
    for (int64_t j = 0; j < width; j++) {
      const int64_t at = row * width + j;
      const float norm = (float)((x[j] - mean) * reciprocal);
      const float y = norm * gain.data[j] + shift.data[j];
      const float s = sigmoidf(y);
      normalised.data[at] = norm;
      scaled.data[at] = y;
      gate.data[at] = s;
      activated.data[at] = y * s;
    }
  }
  return NULL;
}

// categoricalDraw(logits, noise, classes, uniformMix, softmax, probs, sample): per group of `classes`,
// softmax, probs = softmax·(1 − mix) + mix/classes, and the one-hot of argmax(log probs − log(−log noise)).
// The draw rounds each step to float as the tensor ops do (log in double, then to float), so the
// same probabilities give the same samples; ties go to the first class, as argMax's.
static napi_value categorical_draw(napi_env env, napi_callback_info info) {
  const char *fn = "categoricalDraw";
  napi_value argv[7];
  size_t argc;
  int64_t classes;
  double mix;
  FloatView logits, noise, softmax, probs, sample;
  if (!read_args(env, info, fn, 7, 7, argv, &argc) || !read_floats(env, fn, "logits", argv[0], &logits)) return NULL;
  if (!read_int(env, fn, "classes", argv[2], 1, INT_MAX, &classes) || !read_number(env, fn, "uniformMix", argv[3], &mix)) return NULL;
  if (logits.length % classes != 0) {
    fail_range(env, fn, "logits must hold whole groups of classes");
    return NULL;
  }
  if (!read_sized_floats(env, fn, "noise", argv[1], logits.length, &noise) || !read_sized_floats(env, fn, "softmax", argv[4], logits.length, &softmax) ||
      !read_sized_floats(env, fn, "probs", argv[5], logits.length, &probs) || !read_sized_floats(env, fn, "sample", argv[6], logits.length, &sample)) return NULL;
  const float keep = (float)(1.0 - mix), floor_share = (float)(mix / classes);
  for (size_t group = 0; group < logits.length; group += classes) {
    const float *x = logits.data + group;
    double max = -INFINITY, sum = 0.0;
    for (int64_t k = 0; k < classes; k++) max = x[k] > max ? x[k] : max;
    for (int64_t k = 0; k < classes; k++) sum += exp(x[k] - max);
    int64_t best = 0;
    float best_score = -INFINITY;
    for (int64_t k = 0; k < classes; k++) {
      const double p = exp(x[k] - max) / sum;
      const float mixed = (float)p * keep + floor_share;
      softmax.data[group + k] = (float)p;
      probs.data[group + k] = mixed;
      sample.data[group + k] = 0.0f;
      const float gumbel = -(float)log(-(double)(float)log(noise.data[group + k]));
      const float score = (float)log(mixed) + gumbel;
      if (score > best_score) {
        best_score = score;
        best = k;
      }
    }
    sample.data[group + best] = 1.0f;
  }
  return NULL;
}

// layerNormSiluBackward(dActivated, normalised, reciprocalStd, scaled, gate, gain, rows, dPre, dGain, dShift):
// the backward of layerNormSilu from what it kept: d(pre) into dPre, the gain's and shift's
// gradients added onto dGain and dShift (so several row blocks can share them). dPre may be dActivated
// itself: each element is read before it is overwritten.
static napi_value layer_norm_silu_backward(napi_env env, napi_callback_info info) {
  const char *fn = "layerNormSiluBackward";
  napi_value argv[10];
  size_t argc;
  int64_t rows;
  FloatView d_activated, normalised, rstd, scaled, gate, gain, d_pre, d_gain, d_shift;
  if (!read_args(env, info, fn, 10, 10, argv, &argc) || !read_floats(env, fn, "gain", argv[5], &gain)) return NULL;
  if (!read_int(env, fn, "rows", argv[6], 0, INT_MAX, &rows)) return NULL;
  const int64_t width = (int64_t)gain.length;
  const uint64_t cells = (uint64_t)rows * width;
  if (!read_sized_floats(env, fn, "dActivated", argv[0], cells, &d_activated) || !read_sized_floats(env, fn, "normalised", argv[1], cells, &normalised) ||
      !read_sized_floats(env, fn, "reciprocalStd", argv[2], rows, &rstd) || !read_sized_floats(env, fn, "scaled", argv[3], cells, &scaled) ||
      !read_sized_floats(env, fn, "gate", argv[4], cells, &gate) || !read_sized_floats(env, fn, "dPre", argv[7], cells, &d_pre) ||
      !read_sized_floats(env, fn, "dGain", argv[8], width, &d_gain) || !read_sized_floats(env, fn, "dShift", argv[9], width, &d_shift)) return NULL;
  for (int64_t row = 0; row < rows; row++) {
    const int64_t base = row * width;
    float *dp = d_pre.data + base;
    const float *norm = normalised.data + base;
    double d_norm_sum = 0.0, d_norm_dot_norm = 0.0;
    for (int64_t j = 0; j < width; j++) {
      const float s = gate.data[base + j];
      // silu'(y) = σ(y)·(1 + y·(1 − σ(y)))
      const float d_scaled = d_activated.data[base + j] * s * (1.0f + scaled.data[base + j] * (1.0f - s));
      d_gain.data[j] += d_scaled * norm[j];
      d_shift.data[j] += d_scaled;
      const float d_norm = d_scaled * gain.data[j];
      dp[j] = d_norm;
      d_norm_sum += d_norm;
      d_norm_dot_norm += d_norm * norm[j];
    }
    const float r = rstd.data[row], mean_d_norm = (float)(d_norm_sum / width), mean_d_norm_dot_norm = (float)(d_norm_dot_norm / width);
    for (int64_t j = 0; j < width; j++) dp[j] = r * (dp[j] - mean_d_norm - norm[j] * mean_d_norm_dot_norm);
  }
  return NULL;
}

// ---- The world-model trainer's optimiser step (main/worldmodel/backend/fusedAdam*.ts) -----------

// sumOfSquares(values): Σ values², accumulated in double, for the gradients' global norm.
static napi_value sum_of_squares(napi_env env, napi_callback_info info) {
  const char *fn = "sumOfSquares";
  napi_value argv[1], result;
  size_t argc;
  FloatView values;
  if (!read_args(env, info, fn, 1, 1, argv, &argc) || !read_floats(env, fn, "values", argv[0], &values)) return NULL;
  double sum = 0.0;
  for (size_t i = 0; i < values.length; i++) sum += (double)values.data[i] * values.data[i];
  napi_create_double(env, sum, &result);
  return result;
}

// adamUpdate(weight, gradient | null, firstMoment, secondMoment, gradientScale, learningRate, beta1, beta2,
// epsilon, firstCorrection, secondCorrection): one Adam step in place, in tf.train.adam's order of float
// operations: g·scale, m = β1·m + (1 − β1)·g, v = β2·v + (1 − β2)·g², w += −lr·(m/c1)/(√(v/c2) + ε)
// with c = 1 − βᵗ. A null gradient is zero (the moments still decay and the weight still moves).
static napi_value adam_update(napi_env env, napi_callback_info info) {
  const char *fn = "adamUpdate";
  napi_value argv[11];
  size_t argc;
  FloatView weight, gradient = {NULL, 0}, first, second;
  double scale, lr, beta1, beta2, epsilon, c1, c2;
  if (!read_args(env, info, fn, 11, 11, argv, &argc) || !read_floats(env, fn, "weight", argv[0], &weight)) return NULL;
  const uint64_t size = weight.length;
  napi_valuetype gradient_type;
  napi_typeof(env, argv[1], &gradient_type);
  if (gradient_type != napi_null && gradient_type != napi_undefined && !read_sized_floats(env, fn, "gradient", argv[1], size, &gradient)) return NULL;
  if (!read_sized_floats(env, fn, "firstMoment", argv[2], size, &first) || !read_sized_floats(env, fn, "secondMoment", argv[3], size, &second)) return NULL;
  if (!read_number(env, fn, "gradientScale", argv[4], &scale) || !read_number(env, fn, "learningRate", argv[5], &lr) ||
      !read_number(env, fn, "beta1", argv[6], &beta1) || !read_number(env, fn, "beta2", argv[7], &beta2) || !read_number(env, fn, "epsilon", argv[8], &epsilon) ||
      !read_number(env, fn, "firstCorrection", argv[9], &c1) || !read_number(env, fn, "secondCorrection", argv[10], &c2)) return NULL;
  if (c1 <= 0.0 || c2 <= 0.0) {
    fail_range(env, fn, "the bias corrections must be positive");
    return NULL;
  }
  const float s = (float)scale, b1 = (float)beta1, b2 = (float)beta2, keep1 = (float)(1.0 - beta1), keep2 = (float)(1.0 - beta2);
  const float corr1 = (float)c1, corr2 = (float)c2, eps = (float)epsilon, step = (float)-lr;
  for (uint64_t i = 0; i < size; i++) {
    const float g = gradient.data ? gradient.data[i] * s : 0.0f;
    const float m = first.data[i] * b1 + g * keep1;
    const float v = second.data[i] * b2 + (g * g) * keep2;
    first.data[i] = m;
    second.data[i] = v;
    weight.data[i] = ((m / corr1) / (sqrtf(v / corr2) + eps)) * step + weight.data[i];
  }
  return NULL;
}

// ---- Element-wise ops for the 'native' backend (main/worldmodel/backend/fastElementwiseKernels.ts) --
// Each output element is computed in double from the float32 inputs and rounded once, as the cpu
// backend's JavaScript loops do (so +, −, ×, ÷ give the same floats, the others within an ulp).

enum { OP_ADD, OP_SUB, OP_MUL, OP_DIV, OP_MAX, OP_MIN, OP_SQUARED_DIFFERENCE, BINARY_OP_COUNT };
// How an operand's index follows the output's i: the same i, one value, a row of `size` repeated
// (i mod size), or a column where each value repeats `size` times along the last axis (i / size).
enum { LAYOUT_SAME, LAYOUT_SCALAR, LAYOUT_ROW, LAYOUT_COLUMN, LAYOUT_COUNT };

static inline double binary_value(int op, double x, double y) {
  switch (op) {
    case OP_ADD: return x + y;
    case OP_SUB: return x - y;
    case OP_MUL: return x * y;
    case OP_DIV: return x / y;
    // Math.max/min: NaN wins, and +0 is above −0.
    case OP_MAX: return isnan(x) || isnan(y) ? NAN : x == y ? (signbit(x) ? y : x) : x > y ? x : y;
    case OP_MIN: return isnan(x) || isnan(y) ? NAN : x == y ? (signbit(x) ? x : y) : x < y ? x : y;
    default: return (x - y) * (x - y);
  }
}

// One loop per op with the op fixed, so the compiler keeps the arithmetic inline.
#define BINARY_LOOP(OP)                                                                                  \
  static void binary_loop_##OP(const float *a, int a_layout, uint64_t a_size, const float *b, int b_layout, uint64_t b_size, float *out, \
                               uint64_t n) {                                                               \
    if (a_layout == LAYOUT_SAME && b_layout == LAYOUT_SAME) {                                           \
      for (uint64_t i = 0; i < n; i++) out[i] = (float)binary_value(OP, a[i], b[i]);                     \
    } else if (a_layout == LAYOUT_SAME && b_layout == LAYOUT_SCALAR) {                                  \
      const double y = b[0];                                                                              \
      for (uint64_t i = 0; i < n; i++) out[i] = (float)binary_value(OP, a[i], y);                        \
    } else if (a_layout == LAYOUT_SCALAR && b_layout == LAYOUT_SAME) {                                  \
      const double x = a[0];                                                                              \
      for (uint64_t i = 0; i < n; i++) out[i] = (float)binary_value(OP, x, b[i]);                        \
    } else if (a_layout == LAYOUT_SAME && b_layout == LAYOUT_ROW) {                                     \
      for (uint64_t start = 0; start < n; start += b_size)                                               \
        for (uint64_t j = 0; j < b_size; j++) out[start + j] = (float)binary_value(OP, a[start + j], b[j]); \
    } else if (a_layout == LAYOUT_ROW && b_layout == LAYOUT_SAME) {                                     \
      for (uint64_t start = 0; start < n; start += a_size)                                               \
        for (uint64_t j = 0; j < a_size; j++) out[start + j] = (float)binary_value(OP, a[j], b[start + j]); \
    } else if (a_layout == LAYOUT_SAME && b_layout == LAYOUT_COLUMN) {                                  \
      for (uint64_t row = 0, start = 0; start < n; row++, start += b_size) {                             \
        const double y = b[row];                                                                          \
        for (uint64_t j = 0; j < b_size; j++) out[start + j] = (float)binary_value(OP, a[start + j], y); \
      }                                                                                                   \
    } else if (a_layout == LAYOUT_COLUMN && b_layout == LAYOUT_SAME) {                                  \
      for (uint64_t row = 0, start = 0; start < n; row++, start += a_size) {                             \
        const double x = a[row];                                                                          \
        for (uint64_t j = 0; j < a_size; j++) out[start + j] = (float)binary_value(OP, x, b[start + j]); \
      }                                                                                                   \
    } else {                                                                                              \
      for (uint64_t i = 0; i < n; i++) {                                                                 \
        const uint64_t ai = a_layout == LAYOUT_SAME ? i : a_layout == LAYOUT_SCALAR ? 0 : a_layout == LAYOUT_ROW ? i % a_size : i / a_size; \
        const uint64_t bi = b_layout == LAYOUT_SAME ? i : b_layout == LAYOUT_SCALAR ? 0 : b_layout == LAYOUT_ROW ? i % b_size : i / b_size; \
        out[i] = (float)binary_value(OP, a[ai], b[bi]);                                                  \
      }                                                                                                   \
    }                                                                                                     \
  }
BINARY_LOOP(OP_ADD)
BINARY_LOOP(OP_SUB)
BINARY_LOOP(OP_MUL)
BINARY_LOOP(OP_DIV)
BINARY_LOOP(OP_MAX)
BINARY_LOOP(OP_MIN)
BINARY_LOOP(OP_SQUARED_DIFFERENCE)

typedef void (*BinaryLoop)(const float *, int, uint64_t, const float *, int, uint64_t, float *, uint64_t);
static const BinaryLoop BINARY_LOOPS[BINARY_OP_COUNT] = {binary_loop_OP_ADD, binary_loop_OP_SUB, binary_loop_OP_MUL, binary_loop_OP_DIV,
                                                        binary_loop_OP_MAX, binary_loop_OP_MIN, binary_loop_OP_SQUARED_DIFFERENCE};

// The elements an operand of this layout needs for an output of n, or false (after throwing) when the
// layout cannot map onto n.
static bool operand_extent(napi_env env, const char *fn, const char *name, int64_t layout, int64_t size, uint64_t n, uint64_t *needed) {
  char what[160];
  switch (layout) {
    case LAYOUT_SAME: *needed = n; return true;
    case LAYOUT_SCALAR: *needed = n > 0 ? 1 : 0; return true;
    case LAYOUT_ROW:
    case LAYOUT_COLUMN:
      if (size < 1 || n % (uint64_t)size != 0) {
        snprintf(what, sizeof what, "%sSize must be ≥ 1 and divide the output's %llu elements, got %lld", name, (unsigned long long)n, (long long)size);
        return fail_range(env, fn, what);
      }
      *needed = layout == LAYOUT_ROW ? (n > 0 ? (uint64_t)size : 0) : n / (uint64_t)size;
      return true;
    default:
      snprintf(what, sizeof what, "%sLayout must be 0–%d, got %lld", name, LAYOUT_COUNT - 1, (long long)layout);
      return fail_range(env, fn, what);
  }
}

// elementwiseBinary(op, a, aLayout, aSize, b, bLayout, bSize, out): out[i] = op(a[·], b[·]) for every i of out.
static napi_value elementwise_binary(napi_env env, napi_callback_info info) {
  const char *fn = "elementwiseBinary";
  napi_value argv[8];
  size_t argc;
  int64_t op, a_layout, a_size, b_layout, b_size;
  FloatView a, b, out;
  uint64_t a_needed, b_needed;
  if (!read_args(env, info, fn, 8, 8, argv, &argc) || !read_int(env, fn, "op", argv[0], 0, BINARY_OP_COUNT - 1, &op)) return NULL;
  if (!read_floats(env, fn, "a", argv[1], &a) || !read_int(env, fn, "aLayout", argv[2], INT_MIN, INT_MAX, &a_layout) ||
      !read_int(env, fn, "aSize", argv[3], 0, INT64_C(1) << 52, &a_size) || !read_floats(env, fn, "b", argv[4], &b) ||
      !read_int(env, fn, "bLayout", argv[5], INT_MIN, INT_MAX, &b_layout) || !read_int(env, fn, "bSize", argv[6], 0, INT64_C(1) << 52, &b_size) ||
      !read_floats(env, fn, "out", argv[7], &out)) return NULL;
  const uint64_t n = out.length;
  if (!operand_extent(env, fn, "a", a_layout, a_size, n, &a_needed) || !operand_extent(env, fn, "b", b_layout, b_size, n, &b_needed)) return NULL;
  if (!need_length(env, fn, "a", &a, a_needed) || !need_length(env, fn, "b", &b, b_needed)) return NULL;
  if (!need_disjoint_named(env, fn, "out", "a", out.data, n, a.data, a_needed) || !need_disjoint_named(env, fn, "out", "b", out.data, n, b.data, b_needed))
    return NULL;
  BINARY_LOOPS[op](a.data, (int)a_layout, (uint64_t)a_size, b.data, (int)b_layout, (uint64_t)b_size, out.data, n);
  return NULL;
}

enum { OP_ABS, OP_EXP, OP_EXPM1, OP_LOG, OP_LOG1P, OP_NEG, OP_RSQRT, OP_SIGMOID, OP_SIGN, OP_SQRT, OP_SQUARE, OP_TANH, UNARY_OP_COUNT };

#define UNARY_LOOP(OP, EXPRESSION)                                                        \
  static void unary_loop_##OP(const float *input, float *out, uint64_t n) {               \
    for (uint64_t i = 0; i < n; i++) {                                                    \
      const double x = input[i];                                                          \
      out[i] = (float)(EXPRESSION);                                                       \
    }                                                                                     \
  }
UNARY_LOOP(OP_ABS, fabs(x))
UNARY_LOOP(OP_EXP, exp(x))
UNARY_LOOP(OP_EXPM1, expm1(x))
UNARY_LOOP(OP_LOG, log(x))
UNARY_LOOP(OP_LOG1P, log1p(x))
UNARY_LOOP(OP_NEG, -x)
UNARY_LOOP(OP_RSQRT, 1.0 / sqrt(x))
UNARY_LOOP(OP_SIGMOID, 1.0 / (1.0 + exp(-x)))
UNARY_LOOP(OP_SIGN, x < 0 ? -1.0 : x > 0 ? 1.0 : 0.0)
UNARY_LOOP(OP_SQRT, sqrt(x))
UNARY_LOOP(OP_SQUARE, x * x)
// From exp(−2|x|) (glibc's tanh took twice as long), with the series below 1e-4 where 1 − e would cancel.
static inline double fast_tanh(double x) {
  const double magnitude = fabs(x);
  if (magnitude < 1e-4) return x - x * x * x / 3.0;
  const double e = exp(-2.0 * magnitude);
  return copysign((1.0 - e) / (1.0 + e), x);
}
UNARY_LOOP(OP_TANH, fast_tanh(x))

typedef void (*UnaryLoop)(const float *, float *, uint64_t);
static const UnaryLoop UNARY_LOOPS[UNARY_OP_COUNT] = {unary_loop_OP_ABS,  unary_loop_OP_EXP,  unary_loop_OP_EXPM1,  unary_loop_OP_LOG,
                                                      unary_loop_OP_LOG1P, unary_loop_OP_NEG,  unary_loop_OP_RSQRT,  unary_loop_OP_SIGMOID,
                                                      unary_loop_OP_SIGN, unary_loop_OP_SQRT, unary_loop_OP_SQUARE, unary_loop_OP_TANH};

// elementwiseUnary(op, input, out): out[i] = op(input[i]) for every i of out.
static napi_value elementwise_unary(napi_env env, napi_callback_info info) {
  const char *fn = "elementwiseUnary";
  napi_value argv[3];
  size_t argc;
  int64_t op;
  FloatView input, out;
  if (!read_args(env, info, fn, 3, 3, argv, &argc) || !read_int(env, fn, "op", argv[0], 0, UNARY_OP_COUNT - 1, &op)) return NULL;
  if (!read_floats(env, fn, "input", argv[1], &input) || !read_floats(env, fn, "out", argv[2], &out)) return NULL;
  if (!need_length(env, fn, "input", &input, out.length)) return NULL;
  // In place is fine element by element; a partial overlap is not.
  if (input.data != out.data && !need_disjoint_named(env, fn, "out", "input", out.data, out.length, input.data, out.length)) return NULL;
  UNARY_LOOPS[op](input.data, out.data, out.length);
  return NULL;
}

static napi_value init(napi_env env, napi_value exports) {
  napi_property_descriptor methods[] = {
      {"sgemm", NULL, sgemm, NULL, NULL, NULL, napi_enumerable, NULL},
      {"sgemmBatched", NULL, sgemm_batched, NULL, NULL, NULL, napi_enumerable, NULL},
      {"openblasThreads", NULL, openblas_threads, NULL, NULL, NULL, napi_enumerable, NULL},
      {"openblasCore", NULL, openblas_core, NULL, NULL, NULL, napi_enumerable, NULL},
      {"setOpenblasThreads", NULL, set_openblas_threads, NULL, NULL, NULL, napi_enumerable, NULL},
      {"gruCell", NULL, gru_cell, NULL, NULL, NULL, napi_enumerable, NULL},
      {"layerNormSilu", NULL, layer_norm_silu, NULL, NULL, NULL, napi_enumerable, NULL},
      {"categoricalDraw", NULL, categorical_draw, NULL, NULL, NULL, napi_enumerable, NULL},
      {"layerNormSiluBackward", NULL, layer_norm_silu_backward, NULL, NULL, NULL, napi_enumerable, NULL},
      {"sumOfSquares", NULL, sum_of_squares, NULL, NULL, NULL, napi_enumerable, NULL},
      {"adamUpdate", NULL, adam_update, NULL, NULL, NULL, napi_enumerable, NULL},
      {"elementwiseBinary", NULL, elementwise_binary, NULL, NULL, NULL, napi_enumerable, NULL},
      {"elementwiseUnary", NULL, elementwise_unary, NULL, NULL, NULL, napi_enumerable, NULL},
  };
  napi_define_properties(env, exports, sizeof methods / sizeof methods[0], methods);
  return exports;
}

NAPI_MODULE(reins_blas, init)
