#if defined(__linux__)
#include <malloc.h>
#endif
#include "COnnxRuntime.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// ONNX Runtime hands out its C API as a table of function pointers (`OrtApi`) from
// `OrtGetApiBase()->GetApi(version)`. Entries are only ever appended, so a slot's number never
// changes; the slots below are those of the public header `onnxruntime_c_api.h`. Version 13 is
// asked for: every library since 1.13 serves it.

#define API_VERSION 13

enum Slot {
    SLOT_GET_ERROR_MESSAGE = 2,
    SLOT_CREATE_ENV = 3,
    SLOT_CREATE_SESSION = 7,
    SLOT_RUN = 9,
    SLOT_CREATE_SESSION_OPTIONS = 10,
    SLOT_DISABLE_CPU_MEM_ARENA = 19,
    SLOT_SET_GRAPH_OPTIMIZATION_LEVEL = 23,
    SLOT_SET_INTRA_OP_THREADS = 24,
    SLOT_SET_INTER_OP_THREADS = 25,
    SLOT_CREATE_TENSOR = 48,
    SLOT_GET_TENSOR_MUTABLE_DATA = 51,
    SLOT_GET_DIMENSIONS_COUNT = 61,
    SLOT_GET_DIMENSIONS = 62,
    SLOT_GET_TENSOR_TYPE_AND_SHAPE = 65,
    SLOT_GET_DEFAULT_ALLOCATOR = 78,
    SLOT_RELEASE_STATUS = 93,
    SLOT_RELEASE_SESSION = 95,
    SLOT_RELEASE_VALUE = 96,
    SLOT_RELEASE_TYPE_AND_SHAPE = 99,
    SLOT_RELEASE_SESSION_OPTIONS = 100,
};

typedef void *Status;  // OrtStatus*: NULL means success
typedef void (*AnyFunction)(void);

struct ApiBase {
    const AnyFunction *(*get_api)(uint32_t version);
    const char *(*get_version_string)(void);
};

struct SibylOrtRuntime {
    const AnyFunction *api;
    const char *version;
    void *env;        // OrtEnv*
    void *allocator;  // OrtAllocator*
};

struct SibylOrtSession {
    void *session;  // OrtSession*
};

#define CALL(runtime, slot, type) ((type)(runtime)->api[slot])

/// Copies a failed status's message into `error` and releases the status; returns -1 (0 on success).
static int check(const SibylOrtRuntime *runtime, Status status, const char *doing, char *error, size_t error_size) {
    if (status == NULL) return 0;
    const char *message = CALL(runtime, SLOT_GET_ERROR_MESSAGE, const char *(*)(const void *))(status);
    if (error && error_size) snprintf(error, error_size, "%s: %s", doing, message ? message : "no reason given");
    CALL(runtime, SLOT_RELEASE_STATUS, void (*)(void *))(status);
    return -1;
}

SibylOrtRuntime *sibyl_ort_open(const char *library_path, char *error, size_t error_size) {
    void *library = dlopen(library_path, RTLD_NOW | RTLD_LOCAL);
    if (!library) {
        if (error_size) snprintf(error, error_size, "cannot open %s: %s", library_path, dlerror());
        return NULL;
    }
    const struct ApiBase *(*get_base)(void) = (const struct ApiBase *(*)(void))dlsym(library, "OrtGetApiBase");
    const struct ApiBase *base = get_base ? get_base() : NULL;
    const AnyFunction *api = base ? base->get_api(API_VERSION) : NULL;
    if (!api) {
        if (error_size) snprintf(error, error_size, "%s offers no ONNX Runtime C API of version %d", library_path, API_VERSION);
        dlclose(library);
        return NULL;
    }
    SibylOrtRuntime *runtime = calloc(1, sizeof *runtime);
    runtime->api = api;
    runtime->version = base->get_version_string();
    // Warnings and errors only (level 2), under Sibyl's name.
    if (check(runtime, CALL(runtime, SLOT_CREATE_ENV, Status (*)(int, const char *, void **))(2, "sibyl", &runtime->env), "creating the environment", error, error_size) ||
        check(runtime, CALL(runtime, SLOT_GET_DEFAULT_ALLOCATOR, Status (*)(void **))(&runtime->allocator), "getting the allocator", error, error_size)) {
        free(runtime);
        return NULL;
    }
    return runtime;
}

const char *sibyl_ort_version(const SibylOrtRuntime *runtime) {
    return runtime->version;
}

SibylOrtSession *sibyl_ort_load(SibylOrtRuntime *runtime, const char *model_path, int threads, int keep_memory, char *error, size_t error_size) {
    void *options = NULL;
    if (check(runtime, CALL(runtime, SLOT_CREATE_SESSION_OPTIONS, Status (*)(void **))(&options), "creating session options", error, error_size)) return NULL;
    void *session = NULL;
    int failed = check(runtime, CALL(runtime, SLOT_SET_INTRA_OP_THREADS, Status (*)(void *, int))(options, threads), "setting threads", error, error_size)
        || check(runtime, CALL(runtime, SLOT_SET_INTER_OP_THREADS, Status (*)(void *, int))(options, 1), "setting threads", error, error_size)
        || check(runtime, CALL(runtime, SLOT_SET_GRAPH_OPTIMIZATION_LEVEL, Status (*)(void *, int))(options, 99), "setting optimisation", error, error_size)
        || (!keep_memory && check(runtime, CALL(runtime, SLOT_DISABLE_CPU_MEM_ARENA, Status (*)(void *))(options), "turning off the memory arena", error, error_size))
        || check(runtime, CALL(runtime, SLOT_CREATE_SESSION, Status (*)(const void *, const char *, const void *, void **))(runtime->env, model_path, options, &session), "loading the model", error, error_size);
    CALL(runtime, SLOT_RELEASE_SESSION_OPTIONS, void (*)(void *))(options);
    if (failed) return NULL;
    SibylOrtSession *result = calloc(1, sizeof *result);
    result->session = session;
    return result;
}

void sibyl_ort_unload(SibylOrtRuntime *runtime, SibylOrtSession *session) {
    if (!session) return;
    CALL(runtime, SLOT_RELEASE_SESSION, void (*)(void *))(session->session);
    free(session);
}

int sibyl_ort_run(SibylOrtRuntime *runtime, SibylOrtSession *session,
                  const char *const *input_names, SibylOrtValue *const *inputs, size_t input_count,
                  const char *const *output_names, SibylOrtValue **outputs, size_t output_count,
                  char *error, size_t error_size) {
    typedef Status (*Run)(void *, const void *, const char *const *, const void *const *, size_t, const char *const *, size_t, void **);
    Status status = CALL(runtime, SLOT_RUN, Run)(session->session, NULL, input_names, (const void *const *)inputs, input_count, output_names, output_count, outputs);
    return check(runtime, status, "running the model", error, error_size);
}

SibylOrtValue *sibyl_ort_tensor(SibylOrtRuntime *runtime, int element_type, const int64_t *shape, size_t rank,
                                void **data, char *error, size_t error_size) {
    void *value = NULL;
    typedef Status (*Create)(void *, const int64_t *, size_t, int, void **);
    if (check(runtime, CALL(runtime, SLOT_CREATE_TENSOR, Create)(runtime->allocator, shape, rank, element_type, &value), "making a tensor", error, error_size)) return NULL;
    *data = sibyl_ort_tensor_data(runtime, value);
    return value;
}

void *sibyl_ort_tensor_data(SibylOrtRuntime *runtime, SibylOrtValue *value) {
    void *data = NULL;
    if (check(runtime, CALL(runtime, SLOT_GET_TENSOR_MUTABLE_DATA, Status (*)(void *, void **))(value, &data), "reading a tensor", NULL, 0)) return NULL;
    return data;
}

long sibyl_ort_tensor_shape(SibylOrtRuntime *runtime, const SibylOrtValue *value, int64_t *dims, size_t capacity) {
    void *info = NULL;
    if (check(runtime, CALL(runtime, SLOT_GET_TENSOR_TYPE_AND_SHAPE, Status (*)(const void *, void **))(value, &info), "reading a shape", NULL, 0)) return -1;
    size_t rank = 0;
    long result = -1;
    if (!check(runtime, CALL(runtime, SLOT_GET_DIMENSIONS_COUNT, Status (*)(const void *, size_t *))(info, &rank), "reading a rank", NULL, 0) && rank <= capacity &&
        !check(runtime, CALL(runtime, SLOT_GET_DIMENSIONS, Status (*)(const void *, int64_t *, size_t))(info, dims, rank), "reading dimensions", NULL, 0)) {
        result = (long)rank;
    }
    CALL(runtime, SLOT_RELEASE_TYPE_AND_SHAPE, void (*)(void *))(info);
    return result;
}

void sibyl_ort_release(SibylOrtRuntime *runtime, SibylOrtValue *value) {
    if (value) CALL(runtime, SLOT_RELEASE_VALUE, void (*)(void *))(value);
}

void sibyl_ort_give_back_memory(void) {
#ifdef __GLIBC__
    malloc_trim(0);
#endif
}
