import ArgumentParser
import Foundation
import SibylCore
import VectorIndex

/// `sibyl-bench vectors`: exact search against faiss `IndexFlatIP` and HNSW against hnswlib,
/// on the same generated vectors, with the same thread count, in one run.
struct VectorBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "vectors",
        abstract: "Vector search speed: ExactIndex versus faiss IndexFlatIP, HNSWIndex versus hnswlib.",
        discussion: """
            Generates --count vectors and --queries queries (seeded; random vectors on the \
            sphere and a clustered, embedding-like set), writes them to a temporary directory \
            and measures, with --threads threads each: exact top-k queries per second one query \
            at a time and as one batch (Sibyl and faiss); HNSW build time with the same M and \
            efConstruction, then recall@k and batched queries per second over an ef sweep, \
            comparing each tool at the smallest ef reaching --target-recall and at exactly that \
            recall (queries per second interpolated between the two sweep points around it). Recall is measured \
            against Sibyl's exact results (faiss's agreement with them is printed). The \
            references need the environment made by scripts/bench/setup-vector-reference.sh. \
            Build with -c release.
            """
    )

    @Option(help: "Vectors in the collection.") var count = 100_000
    @Option(help: "Components per vector.") var dimension = 384
    @Option(help: "Queries.") var queries = 1_000
    @Option(help: "Results per query.") var k = 10
    @Option(help: "Threads for every measurement of both tools.") var threads = 2
    @Option(help: "Threads for the HNSW builds (default: --threads).") var buildThreads: Int?
    @Option(help: "Datasets, comma-separated: random, clustered.") var datasets = "random,clustered"
    @Option(help: "Seed of the generated vectors.") var seed: UInt64 = 42
    @Option(help: "HNSW links per node (M).") var m = 16
    @Option(help: "HNSW efConstruction.") var efConstruction = 200
    @Option(help: "The ef values to sweep, ascending; each tool stops at the first reaching --target-recall.")
    var efs = "10,12,14,16,18,20,24,28,32,40,48,56,64,80,96,112,128,160,192,224,256,320,384,448,512,640,768,896,1024,1280,1536,1792,2048,2560,3072,3584,4096,5120,6144,7168,8192"
    @Option(help: "The recall@k at which the HNSW implementations are compared.") var targetRecall = 0.95
    @Option(help: "Queries timed one at a time in the exact comparison.") var singleQueries = 200
    @Option(help: "Timed runs of each batched exact search; the best is reported.") var runs = 3
    @Option(help: "Python of the reference environment (default: $SIBYL_BENCH_VENV/bin/python or ~/.cache/sibyl/bench-venv/bin/python).")
    var python: String?
    @Option(help: "The reference script (default: scripts/bench/vector_reference.py of this checkout).") var referenceScript: String?
    @Option(help: "Instruction sets: best (all this CPU has) or avx2 (an AVX2-only CPU: Sibyl's AVX2 kernels, faiss's AVX2 build, hnswlib built for AVX2).")
    var isa: BenchmarkISA = .best
    @Flag(help: "Skip the exact-search comparison.") var skipExact = false
    @Flag(help: "Skip the HNSW comparison.") var skipHnsw = false
    @Flag(help: "Measure Sibyl only.") var skipReference = false
    @Flag(help: "Also print the results as one JSON object.") var json = false

    func validate() throws {
        guard count >= 100, dimension >= 1, queries >= 1, k >= 1, threads >= 1, runs >= 1, singleQueries >= 1 else {
            throw ValidationError("--count must be at least 100, and the other sizes at least 1")
        }
        guard !efList.isEmpty, !kinds.isEmpty else { throw ValidationError("--efs and --datasets need at least one value") }
    }

    private var efList: [Int] { efs.split(separator: ",").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) } }
    private var kinds: [VectorBenchmarkData.Kind] { datasets.split(separator: ",").compactMap { VectorBenchmarkData.Kind(rawValue: String($0)) } }

    /// One point of an ef sweep.
    struct SweepPoint: Codable {
        var ef: Int
        var recall: Double
        var qps: Double
    }

    /// What the reference script prints.
    struct ReferenceOutput: Decodable {
        struct Faiss: Decodable {
            var version: String
            var simd: String?
            var single_qps: Double
            var batch_qps: Double
            var agreement: Double
        }
        struct HNSWLib: Decodable {
            var version: String
            var build_seconds: Double
            var sweep: [SweepPoint]
        }
        var faiss: Faiss?
        var hnswlib: HNSWLib?
    }

    func run() async throws {
        if isa == .avx2 {
            guard KernelLevel.avx2.isAvailable else { throw ValidationError("--isa avx2 needs a CPU with AVX2 and FMA") }
            // Read once, at the kernels' first use, which is after this.
            setenv("SIBYL_VECTOR_KERNELS", "avx2", 1)
        }
        print("CPU: \(CPUDescription.current) · instruction sets: \(isa == .avx2 ? "AVX2 + FMA only, on both sides" : "all this CPU has")")
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("sibyl-vector-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        var report: [String: Any] = [
            "count": count, "dimension": dimension, "queries": queries, "k": k, "threads": threads,
            "kernels": ExactIndex.kernelDescription,
        ]
        var goals: [String] = []
        for (position, kind) in kinds.enumerated() {
            say("\n== \(kind.rawValue): \(count) × \(dimension) vectors, \(queries) queries, top-\(k), \(threads) thread\(threads == 1 ? "" : "s"), Sibyl kernels: \(ExactIndex.kernelDescription)")
            say("Generating the vectors …")
            let data = VectorBenchmarkData.make(kind, count: count, queryCount: queries, dimension: dimension, seed: seed)
            let files = (
                base: scratch.appendingPathComponent("\(kind.rawValue)-base.f32"),
                queries: scratch.appendingPathComponent("\(kind.rawValue)-queries.f32"),
                truth: scratch.appendingPathComponent("\(kind.rawValue)-truth.i64")
            )
            try VectorBenchmarkData.write(data.base, to: files.base)
            try VectorBenchmarkData.write(data.queries, to: files.queries)
            let ids = (0..<Int64(count)).map { $0 }
            let exact = ExactIndex(dimension: dimension, threads: threads, capacity: count)
            try exact.add(ids: ids, contiguousVectors: data.base)
            let truth = exact.search(contiguousQueries: data.queries, k: k).map { $0.map(\.id) }
            try VectorBenchmarkData.write(truth.flatMap { $0 }, to: files.truth)

            var section: [String: Any] = [:]
            let measureExact = position == 0 && !skipExact
            var sibylExact: (single: Double, batch: Double)?
            if measureExact {
                say("Measuring Sibyl's exact search …")
                sibylExact = measureExactSearch(exact, data: data)
            }
            var sibylHNSW: (build: Double, sweep: [SweepPoint])?
            if !skipHnsw {
                say("Building and sweeping Sibyl's HNSW graph …")
                sibylHNSW = try measureHNSW(data: data, truth: truth)
            }
            var reference: ReferenceOutput?
            if !skipReference && (measureExact || !skipHnsw) {
                say("Measuring the references (faiss, hnswlib) …")
                do {
                    reference = try runReference(files: files, exact: measureExact, hnsw: !skipHnsw)
                } catch {
                    print("warning: no reference figures: \(error)")
                }
            }
            if let sibylExact {
                goals.append(printExact(sibylExact, reference?.faiss, into: &section))
            }
            if let sibylHNSW {
                goals.append(printHNSW(sibylHNSW, reference?.hnswlib, dataset: kind, into: &section))
            }
            report[kind.rawValue] = section
        }
        print("\nGoals:")
        for goal in goals { print("  " + goal) }
        if json, let data = try? JSONSerialization.data(withJSONObject: report, options: [.sortedKeys]),
           let text = String(data: data, encoding: .utf8) {
            print(text)
        }
    }

    // MARK: Sibyl

    private func measureExactSearch(_ index: ExactIndex, data: VectorBenchmarkData) -> (single: Double, batch: Double) {
        let clock = ContinuousClock()
        let rows = (0..<data.queryCount).map { Array(data.queries[($0 * dimension)..<(($0 + 1) * dimension)]) }
        for query in rows.prefix(8) { _ = index.search(query, k: k) }
        let singles = min(singleQueries, rows.count)
        var start = clock.now
        for query in rows.prefix(singles) { _ = index.search(query, k: k) }
        let single = Double(singles) / Statistics.seconds(clock.now - start)
        var best = Double.infinity
        for _ in 0..<runs {
            start = clock.now
            _ = index.search(contiguousQueries: data.queries, k: k)
            best = min(best, Statistics.seconds(clock.now - start))
        }
        return (single, Double(data.queryCount) / best)
    }

    private func measureHNSW(data: VectorBenchmarkData, truth: [[Int64]]) throws -> (build: Double, sweep: [SweepPoint]) {
        let clock = ContinuousClock()
        let index = try HNSWIndex(
            dimension: dimension, parameters: .init(m: m, efConstruction: efConstruction), threads: threads
        )
        let start = clock.now
        try index.insert(ids: (0..<Int64(count)).map { $0 }, contiguousVectors: data.base, threads: buildThreads ?? threads)
        let build = Statistics.seconds(clock.now - start)
        say(String(format: "  built in %.2f s", build))
        let rows = (0..<data.queryCount).map { Array(data.queries[($0 * dimension)..<(($0 + 1) * dimension)]) }
        var sweep: [SweepPoint] = []
        for ef in efList {
            _ = index.search(Array(rows.prefix(16)), k: k, ef: ef, threads: threads)
            let begin = clock.now
            let found = index.search(rows, k: k, ef: ef, threads: threads)
            let elapsed = Statistics.seconds(clock.now - begin)
            let point = SweepPoint(ef: ef, recall: recall(found.map { $0.map(\.id) }, truth), qps: Double(rows.count) / elapsed)
            sweep.append(point)
            if point.recall >= targetRecall { break }
        }
        return (build, sweep)
    }

    private func recall(_ found: [[Int64]], _ truth: [[Int64]]) -> Double {
        var hits = 0
        for (result, exact) in zip(found, truth) { hits += Set(result).intersection(exact).count }
        return Double(hits) / Double(max(1, truth.reduce(0) { $0 + $1.count }))
    }

    // MARK: References

    private func runReference(
        files: (base: URL, queries: URL, truth: URL), exact: Bool, hnsw: Bool
    ) throws -> ReferenceOutput {
        guard let script = referenceScript ?? ReferenceScript.locate("vector_reference.py") else {
            throw ReferenceScript.Failure(description: "scripts/bench/vector_reference.py not found; pass --reference-script")
        }
        let python = self.python ?? ReferenceScript.defaultPython()
        guard FileManager.default.isExecutableFile(atPath: python) else {
            throw ReferenceScript.Failure(description: "no Python at \(python): run scripts/bench/setup-vector-reference.sh (or pass --python)")
        }
        var arguments = [
            "--base", files.base.path, "--queries", files.queries.path, "--ground-truth", files.truth.path,
            "--dimension", String(dimension), "--k", String(k), "--threads", String(threads),
        ]
        if exact { arguments += ["--exact", "--single-queries", String(singleQueries), "--runs", String(runs)] }
        if hnsw {
            arguments += [
                "--hnsw", "--m", String(m), "--ef-construction", String(efConstruction), "--efs", efs,
                "--target-recall", String(targetRecall),
            ]
        }
        let output = try ReferenceScript(python: python, script: script, environment: isa.referenceEnvironment(python: python)).run(arguments)
        return try JSONDecoder().decode(ReferenceOutput.self, from: output)
    }

    // MARK: Report

    private func printExact(
        _ sibyl: (single: Double, batch: Double), _ faiss: ReferenceOutput.Faiss?, into section: inout [String: Any]
    ) -> String {
        func cell(_ text: String, _ width: Int) -> String { text.padding(toLength: width, withPad: " ", startingAt: 0) }
        func ratio(_ mine: Double, _ theirs: Double?) -> String { theirs.map { String(format: " (%.2f×)", mine / $0) } ?? "" }
        print("\nExact top-\(k)" + cell("", 24) + cell("one query at a time", 28) + "batch of \(queries)")
        print(
            cell("  Sibyl ExactIndex", 37) + cell(String(format: "%.1f QPS", sibyl.single) + ratio(sibyl.single, faiss?.single_qps), 28)
                + String(format: "%.1f QPS", sibyl.batch) + ratio(sibyl.batch, faiss?.batch_qps)
        )
        section["exact_sibyl"] = ["single_qps": sibyl.single, "batch_qps": sibyl.batch]
        let label = "exact vs faiss IndexFlatIP QPS, one query at a time ≥ 1.0×, batched ≥ 0.8×"
        guard let faiss else { return label + ": not measured" }
        print(cell("  faiss \(faiss.version) IndexFlatIP" + (faiss.simd.map { " (\($0))" } ?? ""), 37) + cell(String(format: "%.1f QPS", faiss.single_qps), 28) + String(format: "%.1f QPS", faiss.batch_qps))
        print(String(format: "  (×: Sibyl's QPS over faiss's; faiss's top-%d ids agree with Sibyl's on %.2f %% of positions)", k, faiss.agreement * 100))
        section["exact_faiss"] = ["version": faiss.version, "single_qps": faiss.single_qps, "batch_qps": faiss.batch_qps, "agreement": faiss.agreement]
        let single = sibyl.single / faiss.single_qps, batch = sibyl.batch / faiss.batch_qps
        let met = single >= 1.0 && batch >= 0.8 ? "met" : "not met"
        return label + String(format: ": %@ (one query %.2f×, batch %.2f×)", met, single, batch)
    }

    private func printHNSW(
        _ sibyl: (build: Double, sweep: [SweepPoint]), _ reference: ReferenceOutput.HNSWLib?,
        dataset: VectorBenchmarkData.Kind, into section: inout [String: Any]
    ) -> String {
        print("\nHNSW, M \(m), efConstruction \(efConstruction), \(buildThreads ?? threads) build thread(s), \(threads) search thread(s)")
        if let reference {
            print(String(format: "  build: Sibyl %.2f s · hnswlib %@ %.2f s (Sibyl %.2f× as fast)", sibyl.build, reference.version, reference.build_seconds, reference.build_seconds / sibyl.build))
        } else {
            print(String(format: "  build: Sibyl %.2f s", sibyl.build))
        }
        func column(_ text: String, _ width: Int) -> String { String(repeating: " ", count: max(0, width - text.count)) + text }
        print(column("ef", 8) + column("Sibyl recall", 15) + column("QPS", 11) + column("hnswlib recall", 17) + column("QPS", 11))
        let theirs = reference?.sweep ?? []
        for ef in efList {
            let mine = sibyl.sweep.first { $0.ef == ef }, other = theirs.first { $0.ef == ef }
            guard mine != nil || other != nil else { continue }
            print(
                column(String(ef), 8)
                    + column(mine.map { String(format: "%.4f", $0.recall) } ?? "", 15) + column(mine.map { String(format: "%.0f", $0.qps) } ?? "", 11)
                    + column(other.map { String(format: "%.4f", $0.recall) } ?? "", 17) + column(other.map { String(format: "%.0f", $0.qps) } ?? "", 11)
            )
        }
        func encode(_ sweep: [SweepPoint]) -> [[String: Any]] { sweep.map { ["ef": $0.ef, "recall": $0.recall, "qps": $0.qps] } }
        section["hnsw_sibyl"] = ["build_seconds": sibyl.build, "sweep": encode(sibyl.sweep)]
        if let reference { section["hnsw_hnswlib"] = ["version": reference.version, "build_seconds": reference.build_seconds, "sweep": encode(theirs)] }
        let label = "HNSW (\(dataset.rawValue)) ≥ 1.0× hnswlib QPS at recall@\(k) ≥ \(targetRecall)"
        let mine = sibyl.sweep.first { $0.recall >= targetRecall }, other = theirs.first { $0.recall >= targetRecall }
        func describe(_ point: SweepPoint?, _ sweep: [SweepPoint]) -> String {
            if let point { return String(format: "ef %d (recall %.4f, %.0f QPS)", point.ef, point.recall, point.qps) }
            let best = sweep.max { $0.recall < $1.recall }
            return best.map { String(format: "not reached (best recall %.4f at ef %d)", $0.recall, $0.ef) } ?? "not measured"
        }
        print("  recall@\(k) ≥ \(targetRecall): Sibyl at \(describe(mine, sibyl.sweep)); hnswlib at \(describe(other, theirs))")
        guard let mine, let other else {
            return label + ": not measured (\(mine == nil ? "Sibyl" : "hnswlib") did not reach the recall in the ef sweep)"
        }
        let ratio = mine.qps / other.qps
        let interpolated = (qpsAtTarget(sibyl.sweep) ?? 0) / (qpsAtTarget(theirs) ?? 1)
        print(String(format: "  Sibyl's QPS over hnswlib's: %.2f× at each one's smallest ef reaching it; %.2f× at recall %.2f exactly (%.0f vs %.0f QPS, interpolated)", ratio, interpolated, targetRecall, qpsAtTarget(sibyl.sweep) ?? 0, qpsAtTarget(theirs) ?? 0))
        section["hnsw_ratio_smallest_ef"] = ratio
        section["hnsw_ratio_interpolated"] = interpolated
        return String(
            format: "%@: %@ (%.2f× at the smallest ef, %.2f× interpolated; build %.2f s vs %.2f s)",
            label, min(ratio, interpolated) >= 1 ? "met" : "not met", ratio, interpolated, sibyl.build, reference?.build_seconds ?? 0
        )
    }

    /// Queries per second at exactly `targetRecall`, interpolated (log-linearly in QPS)
    /// between the sweep points just below and at or above it; the first point's QPS when
    /// the smallest ef already reaches it; nil when none does.
    private func qpsAtTarget(_ sweep: [SweepPoint]) -> Double? {
        guard let upper = sweep.firstIndex(where: { $0.recall >= targetRecall }) else { return nil }
        guard upper > 0 else { return sweep[upper].qps }
        let low = sweep[upper - 1], high = sweep[upper]
        let fraction = (targetRecall - low.recall) / (high.recall - low.recall)
        return exp(log(low.qps) + fraction * (log(high.qps) - log(low.qps)))
    }
}
