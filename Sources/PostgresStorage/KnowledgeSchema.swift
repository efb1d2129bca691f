extension PostgresDatabase {
    /// The knowledge base's tables: the same collections, documents, passages and failures as the
    /// SQLite file, with the words of each passage (stemmed by `LexicalTokenizer`) as postings for BM25.
    ///
    /// Every knowledge base in the database has an owner ("" for the local user, `users/ID` for an
    /// account), and BM25's corpus statistics are per owner, as each SQLite file keeps its own: the
    /// number of passages and of tokens (a row per owner that triggers keep in step with the
    /// passages, in the same transaction), and per word the passages holding it (counted from the
    /// postings index when a search needs it, so that writers never contend over words).
    ///
    /// Vectors live in a table per dimension (`kb_vectors_384`), made on first use (see
    /// `PostgresKnowledgeBase.vectorTable`), since an HNSW index needs a fixed one.
    static let knowledgeSchema = Migration(version: 2, name: "knowledge base", statements: [
        """
        CREATE TABLE kb_collection (
            id bigserial PRIMARY KEY,
            owner text NOT NULL,
            name text NOT NULL,
            embedding_model text,
            dimension integer,
            created_at double precision NOT NULL
        )
        """,
        "CREATE UNIQUE INDEX kb_collection_name ON kb_collection (owner, lower(name))",
        """
        CREATE TABLE kb_document (
            id bigserial PRIMARY KEY,
            collection_id bigint NOT NULL REFERENCES kb_collection (id) ON DELETE CASCADE,
            path text NOT NULL,
            title text,
            format text NOT NULL,
            content_hash text NOT NULL,
            byte_count bigint NOT NULL,
            page_count integer,
            token_count integer NOT NULL,
            chunk_count integer NOT NULL,
            ocr_confidence double precision,
            warnings text,
            extract_ms bigint NOT NULL,
            chunk_ms bigint NOT NULL,
            embed_ms bigint NOT NULL,
            index_ms bigint NOT NULL,
            added_at double precision NOT NULL,
            UNIQUE (collection_id, path)
        )
        """,
        "CREATE INDEX kb_document_hash ON kb_document (collection_id, content_hash)",
        """
        CREATE TABLE kb_passage (
            id bigserial PRIMARY KEY,
            document_id bigint NOT NULL REFERENCES kb_document (id) ON DELETE CASCADE,
            collection_id bigint NOT NULL,
            owner text NOT NULL,
            ordinal integer NOT NULL,
            text text NOT NULL,
            token_count integer NOT NULL,
            page integer,
            heading_path text NOT NULL,
            start_offset integer NOT NULL,
            end_offset integer NOT NULL,
            lexical_length integer NOT NULL
        )
        """,
        "CREATE INDEX kb_passage_document ON kb_passage (document_id, ordinal)",
        // One row per word of a passage with how often it occurs there, and what BM25 and the
        // filters need of the passage, so that a search reads only the index entries of its words.
        """
        CREATE TABLE kb_posting (
            owner text NOT NULL,
            term text NOT NULL,
            passage_id bigint NOT NULL,
            frequency integer NOT NULL,
            length integer NOT NULL,
            collection_id bigint NOT NULL,
            document_id bigint NOT NULL REFERENCES kb_document (id) ON DELETE CASCADE
        )
        """,
        "CREATE INDEX kb_posting_term ON kb_posting (owner, term) INCLUDE (passage_id, frequency, length, collection_id, document_id)",
        "CREATE INDEX kb_posting_document ON kb_posting (document_id)",
        """
        CREATE TABLE kb_failure (
            collection_id bigint NOT NULL REFERENCES kb_collection (id) ON DELETE CASCADE,
            path text NOT NULL,
            error text NOT NULL,
            failed_at double precision NOT NULL,
            PRIMARY KEY (collection_id, path)
        )
        """,
        "CREATE TABLE kb_lexical_totals (owner text PRIMARY KEY, passages bigint NOT NULL, tokens bigint NOT NULL)",
        // Each writing transaction updates its owner's totals row, so writers of one owner queue there.
        """
        CREATE FUNCTION kb_passages_added() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            INSERT INTO kb_lexical_totals (owner, passages, tokens)
                SELECT owner, count(*), sum(lexical_length) FROM added GROUP BY owner ORDER BY owner
                ON CONFLICT (owner) DO UPDATE
                SET passages = kb_lexical_totals.passages + excluded.passages, tokens = kb_lexical_totals.tokens + excluded.tokens;
            RETURN NULL;
        END
        $$
        """,
        """
        CREATE FUNCTION kb_passages_removed() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            UPDATE kb_lexical_totals AS totals SET passages = totals.passages - gone.passages, tokens = totals.tokens - gone.tokens
                FROM (SELECT owner, count(*) AS passages, sum(lexical_length) AS tokens FROM removed GROUP BY owner ORDER BY owner) AS gone
                WHERE totals.owner = gone.owner;
            RETURN NULL;
        END
        $$
        """,
        """
        CREATE TRIGGER kb_passages_added AFTER INSERT ON kb_passage
            REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION kb_passages_added()
        """,
        """
        CREATE TRIGGER kb_passages_removed AFTER DELETE ON kb_passage
            REFERENCING OLD TABLE AS removed FOR EACH STATEMENT EXECUTE FUNCTION kb_passages_removed()
        """,
    ])
}
