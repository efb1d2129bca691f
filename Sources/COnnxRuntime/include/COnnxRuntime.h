#ifndef SIBYL_CONNXRUNTIME_H
#define SIBYL_CONNXRUNTIME_H

// Sibyl's window onto ONNX Runtime's C API. The library is opened at run time (it is installed
// with the models, after Sibyl is built), and only the handful of calls Sibyl needs are offered:
// open the runtime, load a model, make tensors, run, read results.

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Element types Sibyl's tensors use (ONNX's numbering).
enum {
    SIBYL_ORT_FLOAT = 1,
    SIBYL_ORT_INT64 = 7,
    SIBYL_ORT_BOOL = 9,
};

typedef struct SibylOrtRuntime SibylOrtRuntime;
typedef struct SibylOrtSession SibylOrtSession;
/// An `OrtValue` (a tensor).
typedef void SibylOrtValue;

/// Opens the ONNX Runtime library at `library_path`; NULL, with the reason in `error`, when it
/// cannot be opened or offers no API this code understands.
SibylOrtRuntime *sibyl_ort_open(const char *library_path, char *error, size_t error_size);

/// The library's version ("1.22.1").
const char *sibyl_ort_version(const SibylOrtRuntime *runtime);

/// Loads a model (`.onnx` or `.ort`) for sequential runs on `threads` threads. `keep_memory`: the
/// session keeps the memory of its largest run for the next (ONNX Runtime's arena: quicker); 0
/// gives it back after each run (for a model whose runs vary widely in size, such as a voice).
SibylOrtSession *sibyl_ort_load(SibylOrtRuntime *runtime, const char *model_path, int threads, int keep_memory, char *error, size_t error_size);

void sibyl_ort_unload(SibylOrtRuntime *runtime, SibylOrtSession *session);

/// Returns the heap's freed memory to the system (glibc keeps it otherwise): after a run whose
/// working memory was large.
void sibyl_ort_give_back_memory(void);

/// Runs a model: `inputs` named `input_names`; `outputs` (set to NULL by the caller) receive new
/// values the caller releases. Returns 0, or -1 with the reason in `error`.
int sibyl_ort_run(SibylOrtRuntime *runtime, SibylOrtSession *session,
                  const char *const *input_names, SibylOrtValue *const *inputs, size_t input_count,
                  const char *const *output_names, SibylOrtValue **outputs, size_t output_count,
                  char *error, size_t error_size);

/// A new tensor of `element_type` and `shape`, its memory owned by ONNX Runtime; `data` receives
/// where to write its elements. NULL, with the reason in `error`, on failure.
SibylOrtValue *sibyl_ort_tensor(SibylOrtRuntime *runtime, int element_type, const int64_t *shape, size_t rank,
                                void **data, char *error, size_t error_size);

/// A tensor's elements.
void *sibyl_ort_tensor_data(SibylOrtRuntime *runtime, SibylOrtValue *value);

/// A tensor's shape: its rank, with up to `capacity` dimensions written to `dims`; -1 on failure.
long sibyl_ort_tensor_shape(SibylOrtRuntime *runtime, const SibylOrtValue *value, int64_t *dims, size_t capacity);

void sibyl_ort_release(SibylOrtRuntime *runtime, SibylOrtValue *value);

#ifdef __cplusplus
}
#endif

#endif
