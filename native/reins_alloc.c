// The C library's allocator, tuned for a process that runs for hours (main/loop/allocatorTuning.ts
// says why), and what its heap holds. glibc only: elsewhere `fixMmapThreshold` and `trimHeap` do
// nothing and answer false, and `mallocStats` answers null.
#define NAPI_VERSION 8
#include <node_api.h>
#include <stdbool.h>
#include <stdint.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

// fixMmapThreshold(bytes): every allocation of `bytes` or more gets its own mapping, returned to the
// system when freed, and glibc stops raising that threshold by itself. Answers whether it took.
static napi_value fix_mmap_threshold(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
  int64_t bytes = 0;
  if (argc < 1 || napi_get_value_int64(env, argv[0], &bytes) != napi_ok || bytes < 4096 || bytes > (int64_t)32 * 1024 * 1024) {
    napi_throw_range_error(env, NULL, "fixMmapThreshold: bytes must be a whole number from 4096 to 33554432");
    return NULL;
  }
  bool took = false;
#if defined(__GLIBC__)
  took = mallopt(M_MMAP_THRESHOLD, (int)bytes) == 1;
#endif
  napi_value result;
  napi_get_boolean(env, took, &result);
  return result;
}

static void set_number(napi_env env, napi_value object, const char *name, double value) {
  napi_value number;
  napi_create_double(env, value, &number);
  napi_set_named_property(env, object, name, number);
}

// mallocStats(): where the C heap's bytes are, all arenas together (glibc's mallinfo2), or null off
// glibc. inUse: held by live allocations from the arenas; freeHeld: freed but kept by the arenas;
// mapped: live blocks with their own mappings (the large ones).
static napi_value heap_stats(napi_env env, napi_callback_info info) {
  (void)info;
  napi_value result;
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 33))
  struct mallinfo2 stats = mallinfo2();
  napi_create_object(env, &result);
  set_number(env, result, "inUse", (double)stats.uordblks);
  set_number(env, result, "freeHeld", (double)stats.fordblks);
  set_number(env, result, "mapped", (double)stats.hblkhd);
#else
  napi_get_null(env, &result);
#endif
  return result;
}

// trimHeap(): gives back to the system every whole free page the arenas hold, in every arena (glibc's
// malloc_trim(0), which also releases free pages in the middle of a heap, not only at its top).
// Answers whether any memory was given back; false off glibc.
static napi_value trim_heap(napi_env env, napi_callback_info info) {
  (void)info;
  bool released = false;
#if defined(__GLIBC__)
  released = malloc_trim(0) == 1;
#endif
  napi_value result;
  napi_get_boolean(env, released, &result);
  return result;
}

static napi_value init(napi_env env, napi_value exports) {
  napi_property_descriptor methods[] = {
      {"fixMmapThreshold", NULL, fix_mmap_threshold, NULL, NULL, NULL, napi_enumerable, NULL},
      {"mallocStats", NULL, heap_stats, NULL, NULL, NULL, napi_enumerable, NULL},
      {"trimHeap", NULL, trim_heap, NULL, NULL, NULL, napi_enumerable, NULL},
  };
  napi_define_properties(env, exports, sizeof methods / sizeof methods[0], methods);
  return exports;
}

NAPI_MODULE(reins_alloc, init)
