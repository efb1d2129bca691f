#if canImport(Accelerate)
import Accelerate
#else
import CBLAS
#endif

/// The matrix products of the forward pass, on OpenBLAS (Linux) or Accelerate (macOS).
///
/// All matrices are row-major. The embedder runs its own threads, so OpenBLAS is kept to one
/// thread per call: splitting the work ourselves lets the non-BLAS steps run in parallel too and
/// avoids OpenBLAS's thread hand-offs on the many small attention products.
enum BLAS {
    /// `C = alpha · A · Bᵀ + beta · C` with `A` m×k and `B` n×k, the layout of a linear layer's
    /// `[out, in]` weight.
    @inline(__always)
    static func multiplyTransposed(
        m: Int, n: Int, k: Int, alpha: Float = 1,
        _ a: UnsafePointer<Float>, lda: Int,
        _ b: UnsafePointer<Float>, ldb: Int,
        beta: Float, _ c: UnsafeMutablePointer<Float>, ldc: Int
    ) {
        cblas_sgemm(
            CblasRowMajor, CblasNoTrans, CblasTrans, Int32(m), Int32(n), Int32(k),
            alpha, a, Int32(lda), b, Int32(ldb), beta, c, Int32(ldc)
        )
    }

    /// `C = alpha · A · B + beta · C` with `A` m×k and `B` k×n.
    @inline(__always)
    static func multiply(
        m: Int, n: Int, k: Int, alpha: Float = 1,
        _ a: UnsafePointer<Float>, lda: Int,
        _ b: UnsafePointer<Float>, ldb: Int,
        beta: Float, _ c: UnsafeMutablePointer<Float>, ldc: Int
    ) {
        cblas_sgemm(
            CblasRowMajor, CblasNoTrans, CblasNoTrans, Int32(m), Int32(n), Int32(k),
            alpha, a, Int32(lda), b, Int32(ldb), beta, c, Int32(ldc)
        )
    }

    /// Makes each BLAS call run on the calling thread only.
    static func useCallingThreadOnly() {
        #if !canImport(Accelerate)
        if openblas_get_num_threads() != 1 {
            openblas_set_num_threads(1)
        }
        #endif
    }

    /// The BLAS library's name for the kernels it picked (OpenBLAS only).
    static var kernelDescription: String {
        #if canImport(Accelerate)
        return "Accelerate"
        #else
        return "OpenBLAS (\(String(cString: openblas_get_corename())))"
        #endif
    }
}
