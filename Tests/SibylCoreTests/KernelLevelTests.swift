import SibylCore
import Testing

@Suite("Kernel levels chosen from the CPU", .timeLimit(.minutes(10)))
struct KernelLevelTests {
    @Test func levelsAreOrderedByWidth() {
        #expect(KernelLevel.portable < .avx2)
        #expect(KernelLevel.avx2 < .avx512)
    }

    @Test func theBestLevelMatchesTheCPUFeatures() {
        let expected: KernelLevel = CPUFeatures.hasAVX512 ? .avx512 : CPUFeatures.hasAVX2 ? .avx2 : .portable
        #expect(KernelLevel.best == expected)
        #expect(KernelLevel.portable.isAvailable)
        // AVX-512 here implies AVX2 and FMA (the check asks for all three).
        if CPUFeatures.hasAVX512 { #expect(CPUFeatures.hasAVX2) }
    }

    @Test func aRequestNamesANarrowerLevelOrIsIgnored() {
        #expect(KernelLevel.chosen(requested: nil) == .best)
        #expect(KernelLevel.chosen(requested: "portable") == .portable)
        #expect(KernelLevel.chosen(requested: "PORTABLE") == .portable)
        #expect(KernelLevel.chosen(requested: "sse9") == .best)
        // A level the CPU cannot run is never chosen.
        #expect(KernelLevel.chosen(requested: "avx512") == (KernelLevel.avx512.isAvailable ? .avx512 : .best))
        #expect(KernelLevel.chosen(requested: "avx2") == (KernelLevel.avx2.isAvailable ? .avx2 : .best))
    }
}
