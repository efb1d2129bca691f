import ArgumentParser
import Foundation
import PostgresStorage
import SibylCore
import TextEmbedding
import VectorIndex

/// `sibyl-bench stores`: the embedded HNSW index against pgvector's HNSW, on the same vectors in
/// one run: load rate into PostgreSQL, index build times, recall@k and single-query latency.
struct StoresBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stores",
        abstract: "Vector search: the embedded HNSW index against pgvector's HNSW, on the same vectors, in one run.",
        discussion: """
            Generates --count clustered, embedding-like vectors (seeded; see `vectors`), or embeds --passages \
            with MiniLM for real ones, finds the exact top-k of each query, then for each store: loads the vectors (pgvector: into a database of \
            its own on the server SIBYL_DATABASE_URL names, batched array parameters, before the index), \
            builds the HNSW index (M 16, efConstruction 64 on both sides), and sweeps ef, timing each \
            query alone (one thread, as a request does) until recall@k reaches --target-recall. \
            pgvector's latency includes the round trip over its socket or TCP. Build with -c release.
            """
    )

    @Option(help: "Vectors in the collection.") var count = 100_000
    @Option(help: "Components per vector.") var dimension = 384
    @Option(help: "Queries, each timed alone.") var queries = 300
    @Option(help: "Results per query.") var k = 10
    @Option(help: "Seed of the generated vectors.") var seed: UInt64 = 42
    @Option(help: """
        Real vectors instead of generated ones: all-MiniLM-L6-v2's vectors of this file's passages, one per line \
        (scripts/bench/make-real-passages.py FILE makes one from Debian's Python documentation and manual pages). \
        Of the first --count + --queries lines, --queries spread evenly are the queries and the rest the collection; \
        the vectors are kept beside the file.
        """)
    var passages: String?
    @Option(help: "Threads for the embedded index's build.") var threads = 2
    @Option(help: "The ef values to sweep, ascending.") var efs = "10,16,24,32,40,48,64,80,100,128,160,200,256,320,400,512"
    @Option(help: "The recall@k at which the stores are compared.") var targetRecall = 0.95
    @Option(help: "The PostgreSQL server (default: SIBYL_DATABASE_URL); a database is made for the run and dropped after.")
    var databaseURL: String?
    @Option(help: "A BEIR set (scripts/eval/make-python-faq-set.py DIR makes the Python FAQ one): also compare retrieval quality on both knowledge bases.")
    var retrievalSet: String?
    @Flag(help: "Only the retrieval-quality comparison (needs --retrieval-set).") var retrievalOnly = false
    @Option(help: "Also time hybrid search on this many synthetic passages in both knowledge bases (0: not).") var hybridPassages = 0
    @Flag(help: "Only the hybrid-search measurement (needs --hybrid-passages).") var hybridOnly = false
    @Option(help: "Keep the hybrid measurement's PostgreSQL database under this name (to look at its plans afterwards).") var keepDatabase: String?
    @Option(help: "Time hybrid search on the database an earlier run kept (--keep-database) with the same --hybrid-passages and --seed, instead of loading PostgreSQL again.")
    var reuseDatabase: String?
    @Flag(help: "Time hybrid search on PostgreSQL only (with --reuse-database, to look at one change).") var postgresOnly = false

    struct Point {
        var ef: Int
        var recall: Double
        var p50: Double
        var p99: Double
    }

    func run() async throws {
        guard let text = databaseURL ?? ProcessInfo.processInfo.environment["SIBYL_DATABASE_URL"] else {
            throw ValidationError("name a PostgreSQL server: --database-url or SIBYL_DATABASE_URL (scripts/postgres/start.sh FOLDER starts one)")
        }
        let url = try DatabaseURL(text)
        if retrievalOnly {
            guard let retrievalSet else { throw ValidationError("--retrieval-only needs --retrieval-set DIR") }
            return try await compareRetrieval(setDirectory: retrievalSet, url: url)
        }
        if hybridOnly {
            guard hybridPassages > 0 else { throw ValidationError("--hybrid-only needs --hybrid-passages N") }
            return try await measureHybrid(passages: hybridPassages, url: url)
        }
        let efList = efs.split(separator: ",").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }
        say("CPU: \(CPUDescription.current)")
        let data: VectorBenchmarkData
        if let passages {
            guard dimension == SentenceModel.miniLM.dimension else { throw ValidationError("--passages gives \(SentenceModel.miniLM.dimension)-d vectors; leave --dimension out") }
            say("\(count) passages of \(passages) as all-MiniLM-L6-v2 vectors (real), \(queries) other passages as queries, recall@\(k) against an exact scan")
            data = try await RealVectors.load(passagesAt: passages, count: count, queries: queries)
        } else {
            say("\(count) clustered \(dimension)-d vectors (synthetic, embedding-like), \(queries) queries, recall@\(k) against an exact scan")
            data = VectorBenchmarkData.make(.clustered, count: count, queryCount: queries, dimension: dimension, seed: seed)
        }
        let rows = (0..<queries).map { Array(data.queries[($0 * dimension)..<(($0 + 1) * dimension)]) }
        let exact = ExactIndex(dimension: dimension, threads: threads, capacity: count)
        try exact.add(ids: (0..<Int64(count)).map { $0 }, contiguousVectors: data.base)
        let truth = exact.search(contiguousQueries: data.queries, k: k).map { Set($0.map(\.id)) }

        // The embedded store's index.
        let clock = ContinuousClock()
        let index = try HNSWIndex(dimension: dimension, parameters: .init(m: 16, efConstruction: 64), threads: threads)
        let start = clock.now
        try index.insert(ids: (0..<Int64(count)).map { $0 }, contiguousVectors: data.base, threads: threads)
        let embeddedBuild = Statistics.seconds(clock.now - start)
        say(String(format: "embedded: built in %.1f s (%d threads)", embeddedBuild, threads))
        var embedded: [Point] = []
        for ef in efList {
            embedded.append(await measure(ef: ef, rows: rows, truth: truth) { index.search($0, k: k, ef: ef).map(\.id) })
            if embedded.last!.recall >= targetRecall { break }
        }

        // pgvector, in a database of its own.
        let pgvector = try await PostgresDatabase.with(url: url, maximumConnections: 1) { admin in
            try await admin.withScratchDatabase(prefix: "sibyl_bench") { scoped in
                try await measurePGVector(at: scoped, data: data, rows: rows, truth: truth, efList: efList)
            }
        }
        report(embedded: embedded, embeddedBuild: embeddedBuild, pgvector: pgvector.points, pgBuild: pgvector.build, load: pgvector.load)
        if let retrievalSet { try await compareRetrieval(setDirectory: retrievalSet, url: url) }
        if hybridPassages > 0 { try await measureHybrid(passages: hybridPassages, url: url) }
    }

    /// Loads the vectors into pgvector, builds its index, and sweeps ef until the target recall.
    private func measurePGVector(
        at url: DatabaseURL, data: VectorBenchmarkData, rows: [[Float]], truth: [Set<Int64>], efList: [Int]
    ) async throws -> (points: [Point], build: Double, load: Double) {
        let clock = ContinuousClock()
        let (build, load) = try await PostgresDatabase.with(url: url, maximumConnections: 2) { database in
            let store = try PgVectorStore(database: database, dimension: dimension)
            try await store.prepare(index: false)
            let (server, vector) = try await database.serverInfo()
            say("pgvector \(vector ?? "?") on PostgreSQL \(server), \(url)")
            let records = (0..<count).map { VectorRecord(id: Int64($0), documentID: Int64($0 / 50), vector: Array(data.base[($0 * dimension)..<(($0 + 1) * dimension)])) }
            var start = clock.now
            try await store.upsert(records, namespace: "bench")
            let load = Statistics.seconds(clock.now - start)
            say(String(format: "pgvector: loaded %d vectors in %.1f s (%.0f per second)", count, load, Double(count) / load))
            start = clock.now
            try await store.buildIndex(memory: Self.graphMemory(count: count, dimension: dimension))
            let build = Statistics.seconds(clock.now - start)
            say(String(format: "pgvector: HNSW built in %.1f s", build))
            return (build, Double(count) / load)
        }
        var points: [Point] = []
        for ef in efList {
            // ef set as each connection starts, as a server would run with its chosen value.
            let point = try await PostgresDatabase.with(url: url, maximumConnections: 1, searchEF: ef) { database in
                let store = try PgVectorStore(database: database, dimension: dimension)
                return try await measure(ef: ef, rows: rows, truth: truth) { try await store.query($0, k: k, namespace: "bench", documentID: nil).map(\.id) }
            }
            points.append(point)
            if point.recall >= targetRecall { break }
        }
        return (points, build, load)
    }

    /// Times each query alone at one ef (after one untimed query), and the recall of the answers.
    private func measure(ef: Int, rows: [[Float]], truth: [Set<Int64>], search: ([Float]) async throws -> [Int64]) async rethrows -> Point {
        let clock = ContinuousClock()
        _ = try await search(rows[0])
        var latencies: [Double] = []
        var hits = 0
        for (query, exact) in zip(rows, truth) {
            let begin = clock.now
            let found = try await search(query)
            latencies.append(Statistics.milliseconds(clock.now - begin))
            hits += Set(found).intersection(exact).count
        }
        return Point(ef: ef, recall: Double(hits) / Double(rows.count * k), p50: Statistics.percentile(50, of: latencies), p99: Statistics.percentile(99, of: latencies))
    }

    private func report(embedded: [Point], embeddedBuild: Double, pgvector: [Point], pgBuild: Double, load: Double) {
        say("\nrecall@\(k) and single-query latency (ms) per ef:")
        say("   ef │ embedded recall   p50    p99 │ pgvector recall   p50    p99")
        for ef in Set(embedded.map(\.ef) + pgvector.map(\.ef)).sorted() {
            let left = embedded.first { $0.ef == ef }.map { String(format: "%15.3f %6.3f %6.3f", $0.recall, $0.p50, $0.p99) } ?? String(repeating: " ", count: 29)
            let right = pgvector.first { $0.ef == ef }.map { String(format: "%15.3f %6.3f %6.3f", $0.recall, $0.p50, $0.p99) } ?? ""
            say(String(format: "%5d │", ef) + left + " │" + right)
        }
        let embeddedAt = embedded.first { $0.recall >= targetRecall }
        let pgAt = pgvector.first { $0.recall >= targetRecall }
        say(String(format: "\nindex build: embedded %.1f s, pgvector %.1f s; loading into PostgreSQL: %.0f vectors per second (goal 5,000)", embeddedBuild, pgBuild, load))
        if let embeddedAt, let pgAt {
            let ratio = pgAt.p50 / embeddedAt.p50
            say(String(format: "at recall ≥ %.2f: embedded p50 %.3f ms / p99 %.3f ms (ef %d), pgvector p50 %.3f ms / p99 %.3f ms (ef %d): pgvector %.2f× the embedded latency (goal ≤ 2×: %@)",
                       targetRecall, embeddedAt.p50, embeddedAt.p99, embeddedAt.ef, pgAt.p50, pgAt.p99, pgAt.ef, ratio, ratio <= 2 ? "met" : "not met"))
        } else {
            say("a store did not reach recall \(targetRecall) within the ef sweep")
        }
    }

}
