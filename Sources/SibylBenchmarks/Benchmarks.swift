import ArgumentParser

/// `sibyl-bench`: Sibyl's performance figures, each measured against its reference tool in the same run.
@main
struct Benchmarks: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sibyl-bench",
        abstract: "Measure Sibyl against reference tools, in the same run, and print both figures and the ratio.",
        discussion: "Build with -c release. The engines must be installed (`sibyl models install`).",
        subcommands: [ChatBenchmark.self, MiniLMBenchmark.self, PDFExtractionBenchmark.self, VectorBenchmark.self, IngestBenchmark.self, MonocleBenchmark.self, GlassesBenchmark.self, ServeBenchmark.self, StoresBenchmark.self, VoiceBenchmark.self, CaptionsBenchmark.self]
    )
}
