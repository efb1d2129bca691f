import Foundation

/// What the processor (and the operating system, which must save the wider registers) supports,
/// so the AVX-512 and AVX2 kernels (TextEmbeddingAVX512/AVX2, VectorIndexAVX512/AVX2) run only
/// where they can.
public enum CPUFeatures {
    /// AVX-512 Foundation with FMA and AVX2.
    public static let hasAVX512: Bool = supports(linux: ["avx512f", "avx2", "fma"], darwin: ["avx512f", "avx2_0", "fma"])

    /// AVX2 with FMA (Intel since Haswell, AMD since Excavator/Zen).
    public static let hasAVX2: Bool = supports(linux: ["avx2", "fma"], darwin: ["avx2_0", "fma"])

    private static func supports(linux: [String], darwin: [String]) -> Bool {
        #if arch(x86_64)
        #if os(Linux)
        // The kernel lists a feature in /proc/cpuinfo only when it also enables its register state.
        guard let flags = cpuinfoFlags else { return false }
        return linux.allSatisfy { flags.contains(Substring($0)) }
        #elseif canImport(Darwin)
        return darwin.allSatisfy { name in
            var value: Int32 = 0
            var size = MemoryLayout<Int32>.size
            return sysctlbyname("hw.optional." + name, &value, &size, nil, 0) == 0 && value != 0
        }
        #else
        return false
        #endif
        #else
        return false
        #endif
    }

    #if os(Linux)
    private static let cpuinfoFlags: Set<Substring>? = {
        guard let info = try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8),
              let flagsLine = info.split(separator: "\n").first(where: { $0.hasPrefix("flags") })
        else { return nil }
        return Set(flagsLine.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == ":" }))
    }()
    #endif
}

/// Which build of the SIMD kernels a process runs, chosen once from the CPU; the environment
/// variable named by each user (`SIBYL_VECTOR_KERNELS`, `SIBYL_MINILM_BACKEND`) may ask for a
/// narrower one, to compare kernels or to measure the AVX2 path on an AVX-512 machine.
public enum KernelLevel: String, Sendable, CaseIterable, Comparable {
    /// The baseline target (SSE2 on x86-64, NEON on arm64).
    case portable
    /// 256-bit AVX2 with FMA.
    case avx2
    /// 512-bit AVX-512F with FMA.
    case avx512

    /// The widest level this CPU runs.
    public static let best: KernelLevel = CPUFeatures.hasAVX512 ? .avx512 : CPUFeatures.hasAVX2 ? .avx2 : .portable

    /// Whether this CPU can run the level.
    public var isAvailable: Bool { self <= Self.best }

    /// The level to use: `requested` (an environment value, say) where it names a level this CPU
    /// runs, else the best one.
    public static func chosen(requested: String?) -> KernelLevel {
        guard let requested, let level = KernelLevel(rawValue: requested.lowercased()), level.isAvailable else { return best }
        return level
    }

    /// For reports: "AVX-512", "AVX2 + FMA" or "portable SIMD".
    public var description: String {
        switch self {
        case .portable: "portable SIMD"
        case .avx2: "AVX2 + FMA"
        case .avx512: "AVX-512"
        }
    }

    private var rank: Int { Self.allCases.firstIndex(of: self)! }
    public static func < (lhs: KernelLevel, rhs: KernelLevel) -> Bool { lhs.rank < rhs.rank }
}
