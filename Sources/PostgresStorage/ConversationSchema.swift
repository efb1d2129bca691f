extension PostgresDatabase {
    /// Conversations, messages, attachments, personas and the operations log: what each data
    /// directory's SQLite file keeps, for every owner ("" for the local user, `users/ID` for an
    /// account) in tables every `sibyl serve` instance shares. Dates are Unix milliseconds, as in
    /// the file; attachment bytes live in the row (no files to share between machines).
    ///
    /// An answer being written names its writer (`cv_message.writer`): the instance key that
    /// process holds as an advisory lock for its lifetime (see `InstanceLease`). PostgreSQL drops
    /// the lock the moment the process's connection ends, kill -9 included, so an answer whose
    /// writer holds no lock any more was left by a dead process, and only such answers are
    /// marked failed.
    static let conversationSchema = Migration(version: 3, name: "conversations", statements: [
        """
        CREATE TABLE cv_conversation (
            id uuid PRIMARY KEY,
            owner text NOT NULL,
            title text,
            persona text NOT NULL,
            mode text NOT NULL,
            source text NOT NULL,
            created_at bigint NOT NULL,
            updated_at bigint NOT NULL,
            seq bigserial NOT NULL
        )
        """,
        // Listings: newest activity first, the later insert first among equals (as SQLite's rowid).
        "CREATE INDEX cv_conversation_listing ON cv_conversation (owner, updated_at DESC, seq DESC)",
        """
        CREATE TABLE cv_message (
            id uuid PRIMARY KEY,
            conversation_id uuid NOT NULL REFERENCES cv_conversation (id) ON DELETE CASCADE,
            position bigint NOT NULL,
            role text NOT NULL,
            text text NOT NULL,
            model text,
            prompt_tokens integer,
            completion_tokens integer,
            ttft_ms bigint,
            total_ms bigint,
            status text NOT NULL,
            error text,
            citations text,
            created_at bigint NOT NULL,
            writer integer,
            UNIQUE (conversation_id, position)
        )
        """,
        "CREATE INDEX cv_message_pending ON cv_message (conversation_id) WHERE status = 'pending'",
        """
        CREATE TABLE cv_attachment (
            id uuid PRIMARY KEY,
            message_id uuid NOT NULL REFERENCES cv_message (id) ON DELETE CASCADE,
            position integer NOT NULL,
            kind text NOT NULL,
            mime_type text NOT NULL,
            filename text,
            byte_count bigint NOT NULL,
            data bytea NOT NULL
        )
        """,
        "CREATE INDEX cv_attachment_message ON cv_attachment (message_id, position)",
        """
        CREATE TABLE cv_persona (
            owner text NOT NULL,
            name_key text NOT NULL,
            name text NOT NULL,
            system_prompt text NOT NULL,
            model text,
            temperature double precision,
            summary text,
            created_at bigint NOT NULL,
            updated_at bigint NOT NULL,
            PRIMARY KEY (owner, name_key)
        )
        """,
        """
        CREATE TABLE cv_log (
            id bigserial PRIMARY KEY,
            owner text NOT NULL,
            at bigint NOT NULL,
            level text NOT NULL,
            category text NOT NULL,
            message text NOT NULL,
            details text
        )
        """,
        "CREATE INDEX cv_log_owner_at ON cv_log (owner, at)",
    ])
}
