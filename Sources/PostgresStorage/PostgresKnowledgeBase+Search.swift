import Foundation
import Knowledge
import Logging
import PostgresNIO
public import SibylCore
import Synchronization
public import VectorIndex

extension PostgresKnowledgeBase {
    /// BM25 exactly as FTS5 computes it: per scored term, idf = ln((N − n + 0.5) / (n + 0.5)) (a
    /// small positive number when that is not positive), times f·(k1 + 1) / (f + k1·(1 − b + b·|D| / avgdl)),
    /// with k1 = 1.2, b = 0.75, N and avgdl over this owner's passages, n the passages holding the term.
    public func lexicalSearch(_ query: String, collectionID: Int64?, documentID: Int64?, limit: Int) async throws -> [(chunkID: Int64, score: Double)] {
        guard let words = LexicalQuery(query), limit > 0 else { return [] }
        let any = words.anyTerms, required = words.requiredTerms
        guard !any.isEmpty else { return [] }
        // Each distinct term once, with how many times it is scored (a word both required and
        // asked for counts twice, as in FTS5) and whether it is required or one of the others.
        var terms: [String] = []
        var multiplicity: [String: Double] = [:]
        for term in required + any {
            if multiplicity[term] == nil { terms.append(term) }
            multiplicity[term, default: 0] += 1
        }
        let requiredSet = Set(required), optionalSet = Set(any)
        return try await database.reachable {
            var bindings = PostgresBindings(capacity: 7)
            bindings.append(owner)
            bindings.append(terms)
            bindings.append(terms.map { multiplicity[$0] ?? 1 })
            bindings.append(terms.map { requiredSet.contains($0) })
            bindings.append(terms.map { optionalSet.contains($0) })
            var filters: [String] = []
            if let collectionID {
                bindings.append(collectionID)
                filters.append("AND posting.collection_id = $\(bindings.count)")
            }
            if let documentID {
                bindings.append(documentID)
                filters.append("AND posting.document_id = $\(bindings.count)")
            }
            // A passage counts when it holds every required word and at least one of the others;
            // with no required words, every passage holding any of them does, and the check (which
            // would make PostgreSQL sort all the postings) is left out.
            let condition = requiredSet.isEmpty ? "" : """
                HAVING count(*) FILTER (WHERE scored.required) = \(requiredSet.count) AND bool_or(scored.optional)
                """
            // Each scored term reads its postings from the index alone (once to count the passages
            // holding it, once to score them). Its weight (idf times how often it is scored) is
            // worked out once per term (MATERIALIZED), not once per posting.
            let sql = """
                WITH totals AS (
                    SELECT passages::float8 AS n, tokens::float8 / greatest(passages, 1) AS avgdl FROM kb_lexical_totals WHERE owner = $1
                ), holding AS (
                    SELECT term, count(*)::float8 AS passages FROM kb_posting WHERE owner = $1 AND term = ANY($2::text[]) GROUP BY term
                ), scored AS MATERIALIZED (
                    SELECT query.term, query.required, query.optional,
                        query.multiplicity * CASE WHEN raw.idf > 0 THEN raw.idf ELSE 1e-6::float8 END AS weight
                    FROM unnest($2::text[], $3::float8[], $4::bool[], $5::bool[]) AS query(term, multiplicity, required, optional)
                    CROSS JOIN totals
                    LEFT JOIN holding ON holding.term = query.term
                    CROSS JOIN LATERAL (
                        SELECT ln((totals.n - coalesce(holding.passages, 0) + 0.5::float8) / (coalesce(holding.passages, 0) + 0.5::float8)) AS idf
                    ) AS raw
                )
                SELECT posting.passage_id,
                    sum(scored.weight * posting.frequency::float8 * 2.2::float8
                        / (posting.frequency::float8 + 1.2::float8 * (0.25::float8 + 0.75::float8 * posting.length::float8 / totals.avgdl))) AS score
                FROM scored JOIN kb_posting posting ON posting.owner = $1 AND posting.term = scored.term \(filters.joined(separator: " "))
                CROSS JOIN totals
                GROUP BY posting.passage_id
                \(condition)
                ORDER BY score DESC, posting.passage_id LIMIT \(limit)
                """
            var hits: [(chunkID: Int64, score: Double)] = []
            for try await (id, score) in try await database.client.query(PostgresQuery(unsafeSQL: sql, binds: bindings), logger: logger).decode((Int64, Double).self) {
                hits.append((id, score))
            }
            return hits
        }
    }

    public func vectorStore(policy: IndexPolicy) -> any VectorStore {
        PostgresKnowledgeVectors(base: self)
    }
}
