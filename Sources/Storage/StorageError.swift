public import Foundation
public import SibylCore

/// What went wrong in the conversation store, worded so the user knows what to do next.
public enum StorageError: Error, LocalizedError, Hashable {
    /// No conversation has this id or id prefix.
    case notFound(String)
    /// Several conversations start with this id prefix.
    case ambiguous(String, [Conversation])
    /// The text given as a conversation id is not hexadecimal.
    case invalidIDPrefix(String)
    /// No message has this id.
    case messageNotFound(UUID)
    /// A conversation with this id is already stored.
    case conversationExists(UUID)
    /// A message with this id is already stored.
    case messageExists(UUID)
    /// A persona name is empty.
    case invalidPersonaName(String)
    /// The data is not a readable conversation archive.
    case invalidArchive(String)
    /// The archive is JSON but not a Sibyl conversation archive.
    case unsupportedArchiveFormat(String)
    /// The archive comes from a format version this build cannot read.
    case unsupportedArchiveVersion(Int)
    /// An attachment's file is gone from the attachments directory.
    case attachmentMissing(UUID, path: String)
    /// An attachment's file could not be written.
    case cannotWriteAttachment(path: String, reason: String)
    /// The database file could not be opened or prepared.
    case cannotOpen(path: String, reason: String)
    /// The database was written by a newer Sibyl, whose schema this build does not know.
    case newerDatabase(path: String)
    /// A stored value could not be read back.
    case corruptRecord(String)
    /// SQLite reported an error.
    case database(String)

    /// A sentence that says what happened and what to do about it.
    public var errorDescription: String? {
        switch self {
        case .notFound(let key):
            return "No conversation matches '\(key)'."
        case .ambiguous(let prefix, let candidates):
            let listed = candidates.prefix(5).map { conversation in
                let shortID = String(conversation.id.uuidString.lowercased().prefix(8))
                return conversation.title.map { "\(shortID) (\($0))" } ?? shortID
            }
            let more = candidates.count > 5 ? ", …" : ""
            return "'\(prefix)' matches \(candidates.count) conversations: \(listed.joined(separator: ", "))\(more). "
                + "Type more characters of the id."
        case .invalidIDPrefix(let prefix):
            return "'\(prefix)' is not a conversation id: ids are hexadecimal, like 3f2a9c1e."
        case .messageNotFound(let id):
            return "No message has the id \(id.uuidString.lowercased()); it may have been deleted."
        case .conversationExists(let id):
            return "A conversation with the id \(id.uuidString.lowercased()) already exists. "
                + "Create the new one with a fresh id."
        case .messageExists(let id):
            return "A message with the id \(id.uuidString.lowercased()) already exists. "
                + "Use update to change it, or append it with a fresh id."
        case .invalidPersonaName(let name):
            return "'\(name)' is not a usable persona name. Give the persona a name with at least one visible character."
        case .invalidArchive(let reason):
            return "This is not a readable Sibyl conversation archive: \(reason). Import a conversation Sibyl exported as JSON."
        case .unsupportedArchiveFormat(let format):
            return "This JSON is a '\(format)' document, not a Sibyl conversation archive ('\(ConversationArchive.formatIdentifier)'). "
                + "Import a conversation Sibyl exported as JSON."
        case .unsupportedArchiveVersion(let version):
            return "This conversation archive has format version \(version), but this Sibyl reads version "
                + "\(ConversationArchive.currentVersion). Update Sibyl to import it."
        case .attachmentMissing(let id, let path):
            return "The file of attachment \(id.uuidString.lowercased()) is missing at \(path). "
                + "Restore the attachments directory from a backup, or delete the message that holds it."
        case .cannotWriteAttachment(let path, let reason):
            return "Could not save an attachment at \(path): \(reason). "
                + "Check the free disk space and the permissions of the attachments directory."
        case .cannotOpen(let path, let reason):
            return "Could not open the conversation database at \(path): \(reason). "
                + "Check that the directory is writable and the file is a Sibyl database, or move the file aside to start afresh."
        case .newerDatabase(let path):
            return "The conversation database at \(path) was written by a newer version of Sibyl. "
                + "Update Sibyl to use it."
        case .corruptRecord(let detail):
            return "A stored record could not be read: \(detail). The database may be damaged or written by a newer Sibyl."
        case .database(let message):
            return "The conversation database reported an error: \(message)."
        }
    }
}

extension StorageError: RemedyProviding {
    /// What the user can do: find the conversation, or use a file Sibyl exported.
    public var remedy: Remedy? {
        switch self {
        case .notFound, .invalidIDPrefix: .listConversations
        case .invalidArchive, .unsupportedArchiveFormat: .useExportedArchive
        default: nil
        }
    }
}
