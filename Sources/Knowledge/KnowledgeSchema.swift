import GRDB

/// The knowledge base's tables, as append-only named migrations.
enum KnowledgeSchema {
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.execute(sql: """
                -- A collection groups documents (like a namespace) and fixes the embedding model.
                CREATE TABLE collection (
                    id INTEGER PRIMARY KEY,
                    name TEXT NOT NULL UNIQUE COLLATE NOCASE,
                    embedding_model TEXT,
                    dimension INTEGER,
                    created_at REAL NOT NULL
                );

                -- A document is written once its chunks and vectors are all in place (one transaction),
                -- so a row here always means a complete document.
                CREATE TABLE document (
                    id INTEGER PRIMARY KEY,
                    collection_id INTEGER NOT NULL REFERENCES collection(id) ON DELETE CASCADE,
                    path TEXT NOT NULL,
                    title TEXT,
                    format TEXT NOT NULL,
                    content_hash TEXT NOT NULL,
                    byte_count INTEGER NOT NULL,
                    page_count INTEGER,
                    token_count INTEGER NOT NULL,
                    chunk_count INTEGER NOT NULL,
                    ocr_confidence REAL,
                    warnings TEXT,
                    extract_ms INTEGER NOT NULL,
                    chunk_ms INTEGER NOT NULL,
                    embed_ms INTEGER NOT NULL,
                    index_ms INTEGER NOT NULL,
                    added_at REAL NOT NULL,
                    UNIQUE (collection_id, path)
                );
                CREATE INDEX document_on_hash ON document(collection_id, content_hash);

                CREATE TABLE chunk (
                    id INTEGER PRIMARY KEY,
                    document_id INTEGER NOT NULL REFERENCES document(id) ON DELETE CASCADE,
                    ordinal INTEGER NOT NULL,
                    text TEXT NOT NULL,
                    token_count INTEGER NOT NULL,
                    page INTEGER,
                    heading_path TEXT NOT NULL,
                    start_offset INTEGER NOT NULL,
                    end_offset INTEGER NOT NULL,
                    embedding BLOB NOT NULL
                );
                CREATE INDEX chunk_on_document ON chunk(document_id, ordinal);

                -- Files that could not be ingested, with why; cleared when the file succeeds.
                CREATE TABLE failure (
                    collection_id INTEGER NOT NULL REFERENCES collection(id) ON DELETE CASCADE,
                    path TEXT NOT NULL,
                    error TEXT NOT NULL,
                    failed_at REAL NOT NULL,
                    PRIMARY KEY (collection_id, path)
                );

                -- A saved approximate index, so large collections need not rebuild it at start.
                CREATE TABLE saved_index (
                    collection_id INTEGER PRIMARY KEY REFERENCES collection(id) ON DELETE CASCADE,
                    kind TEXT NOT NULL,
                    chunk_count INTEGER NOT NULL,
                    max_chunk_id INTEGER NOT NULL,
                    data BLOB NOT NULL
                );
                """)
            // BM25 over chunk text (Porter-stemmed), kept in step with the chunk table by triggers.
            try db.create(virtualTable: "chunk_fts", using: FTS5()) { table in
                table.synchronize(withTable: "chunk")
                table.tokenizer = .porter(wrapping: .unicode61())
                table.column("text")
            }
        }
        migrator.registerMigration("v2") { db in
            // A counter that every change to the searchable passages moves on, in the same
            // transaction, from any process: a loaded vector index compares it to know it is stale.
            try db.execute(sql: """
                CREATE TABLE revision (id INTEGER PRIMARY KEY CHECK (id = 1), value INTEGER NOT NULL);
                INSERT INTO revision (id, value) VALUES (1, 0);
                CREATE TRIGGER document_added AFTER INSERT ON document BEGIN UPDATE revision SET value = value + 1; END;
                CREATE TRIGGER document_removed AFTER DELETE ON document BEGIN UPDATE revision SET value = value + 1; END;
                CREATE TRIGGER chunk_reembedded AFTER UPDATE OF embedding ON chunk BEGIN UPDATE revision SET value = value + 1; END;
                """)
        }
        return migrator
    }
}
