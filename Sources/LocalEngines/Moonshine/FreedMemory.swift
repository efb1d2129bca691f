import COnnxRuntime

/// Returns freed heap memory to the system. A voice's run needs hundreds of megabytes for a long
/// sentence; freed, glibc would keep them in the process for good.
enum FreedMemory {
    static func giveBack() {
        sibyl_ort_give_back_memory()
    }
}
