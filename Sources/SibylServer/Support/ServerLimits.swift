import Foundation

/// The limits `sibyl serve` holds requests to (`serve.*` settings).
public struct ServerLimits: Sendable, Hashable {
    /// The largest JSON request body.
    public var jsonBodyBytes: Int
    /// The largest upload (multipart documents, audio, archives).
    public var uploadBytes: Int
    /// The most files in one upload.
    public var filesPerUpload: Int
    /// Answers one client may have under way at once.
    public var turnsPerClient: Int

    public init(jsonBodyBytes: Int = 2 << 20, uploadBytes: Int = 100 << 20, filesPerUpload: Int = 100, turnsPerClient: Int = 4) {
        self.jsonBodyBytes = jsonBodyBytes
        self.uploadBytes = uploadBytes
        self.filesPerUpload = filesPerUpload
        self.turnsPerClient = turnsPerClient
    }
}
