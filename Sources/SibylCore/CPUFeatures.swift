import Foundation

/// What the processor (and the operating system, which must save the wider registers) supports,
/// so the AVX-512 kernels (TextEmbeddingAVX512, VectorIndexAVX512) run only where they can.
public enum CPUFeatures {
    /// AVX-512 Foundation with FMA and AVX2.
    public static let hasAVX512: Bool = {
        #if arch(x86_64)
        #if os(Linux)
        // The kernel lists a feature in /proc/cpuinfo only when it also enables its register state.
        guard let info = try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8),
              let flagsLine = info.split(separator: "\n").first(where: { $0.hasPrefix("flags") })
        else { return false }
        let flags = Set(flagsLine.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == ":" }))
        return ["avx512f", "avx2", "fma"].allSatisfy { flags.contains(Substring($0)) }
        #elseif canImport(Darwin)
        return ["hw.optional.avx512f", "hw.optional.avx2_0", "hw.optional.fma"].allSatisfy { name in
            var value: Int32 = 0
            var size = MemoryLayout<Int32>.size
            return sysctlbyname(name, &value, &size, nil, 0) == 0 && value != 0
        }
        #else
        return false
        #endif
        #else
        return false
        #endif
    }()
}
