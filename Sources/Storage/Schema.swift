internal import GRDB

/// The database schema, as a list of named migrations applied in order.
///
/// Migrations are append-only: a shipped migration is never edited, because databases that
/// already ran it would not run it again. Change the schema by adding `v2`, `v3`, ….
enum Schema {
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            // Dates are Unix milliseconds (see Timestamp); ids are lowercase UUID strings so
            // that users can find a conversation by the first characters they see in listings.
            try db.execute(sql: """
                CREATE TABLE conversation (
                    id TEXT PRIMARY KEY NOT NULL,
                    title TEXT,
                    persona TEXT NOT NULL,
                    mode TEXT NOT NULL,
                    source TEXT NOT NULL,
                    created_at INTEGER NOT NULL,
                    updated_at INTEGER NOT NULL
                );
                CREATE INDEX conversation_on_updated_at ON conversation(updated_at);
                CREATE INDEX conversation_on_source_updated_at ON conversation(source, updated_at);

                CREATE TABLE message (
                    id TEXT PRIMARY KEY NOT NULL,
                    conversation_id TEXT NOT NULL REFERENCES conversation(id) ON DELETE CASCADE,
                    position INTEGER NOT NULL,
                    role TEXT NOT NULL,
                    text TEXT NOT NULL,
                    model TEXT,
                    prompt_tokens INTEGER,
                    completion_tokens INTEGER,
                    ttft_ms INTEGER,
                    total_ms INTEGER,
                    status TEXT NOT NULL,
                    error TEXT,
                    created_at INTEGER NOT NULL
                );
                CREATE UNIQUE INDEX message_on_conversation_id_position ON message(conversation_id, position);

                -- An attachment's bytes live either inline (data) or in a file named by path,
                -- relative to the attachments directory; never both. SQLite may store an empty
                -- BLOB as NULL, so an inline attachment is one whose path is NULL.
                CREATE TABLE attachment (
                    id TEXT PRIMARY KEY NOT NULL,
                    message_id TEXT NOT NULL REFERENCES message(id) ON DELETE CASCADE,
                    position INTEGER NOT NULL,
                    kind TEXT NOT NULL,
                    mime_type TEXT NOT NULL,
                    filename TEXT,
                    byte_count INTEGER NOT NULL,
                    data BLOB,
                    path TEXT,
                    CHECK (data IS NULL OR path IS NULL)
                );
                CREATE INDEX attachment_on_message_id ON attachment(message_id, position);

                -- name_key is the lowercased name: persona names are unique regardless of case.
                CREATE TABLE persona (
                    name_key TEXT PRIMARY KEY NOT NULL,
                    name TEXT NOT NULL,
                    system_prompt TEXT NOT NULL,
                    model TEXT,
                    temperature REAL,
                    summary TEXT,
                    created_at INTEGER NOT NULL,
                    updated_at INTEGER NOT NULL
                );
                """)
        }
        migrator.registerMigration("v2") { db in
            // The sources of a grounded answer, as a JSON array of Citation; NULL when there are none.
            try db.execute(sql: "ALTER TABLE message ADD COLUMN citations TEXT")
        }
        migrator.registerMigration("v3") { db in
            // The operations log behind `sibyl logs`: one row per operation, details as JSON.
            try db.execute(sql: """
                CREATE TABLE log_entry (
                    id INTEGER PRIMARY KEY,
                    at INTEGER NOT NULL,
                    level TEXT NOT NULL,
                    category TEXT NOT NULL,
                    message TEXT NOT NULL,
                    details TEXT
                );
                CREATE INDEX log_entry_on_at ON log_entry(at);
                """)
        }
        migrator.registerMigration("v4") { db in
            // A persona's sampling beyond its temperature.
            try db.execute(sql: """
                ALTER TABLE persona ADD COLUMN max_tokens INTEGER;
                ALTER TABLE persona ADD COLUMN top_p REAL;
                ALTER TABLE persona ADD COLUMN presence_penalty REAL;
                ALTER TABLE persona ADD COLUMN frequency_penalty REAL;
                """)
        }
        migrator.registerMigration("v5") { db in
            // The user's memory: facts proposed from conversations or written by the user. A fact
            // outlives its conversation and message (the links are cleared).
            try db.execute(sql: """
                CREATE TABLE memory_fact (
                    id TEXT PRIMARY KEY NOT NULL,
                    text TEXT NOT NULL,
                    status TEXT NOT NULL,
                    conversation_id TEXT REFERENCES conversation(id) ON DELETE SET NULL,
                    message_id TEXT REFERENCES message(id) ON DELETE SET NULL,
                    created_at INTEGER NOT NULL,
                    accepted_at INTEGER
                );
                CREATE INDEX memory_fact_on_created_at ON memory_fact(created_at);

                -- Which conversations were read for facts, up to when: each is read once per quiet.
                CREATE TABLE memory_read (
                    conversation_id TEXT PRIMARY KEY NOT NULL REFERENCES conversation(id) ON DELETE CASCADE,
                    read_through INTEGER NOT NULL
                );
                """)
        }
        return migrator
    }
}
