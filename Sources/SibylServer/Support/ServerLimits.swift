import Foundation
public import SibylConfig

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

    /// Limits as given; each one left out is its setting's default.
    public init(
        jsonBodyBytes: Int = Setting<Int>.serveMaxBodyMB.defaultValue << 20,
        uploadBytes: Int = Setting<Int>.serveMaxUploadMB.defaultValue << 20,
        filesPerUpload: Int = Setting<Int>.serveMaxUploadFiles.defaultValue,
        turnsPerClient: Int = Setting<Int>.serveMaxTurnsPerClient.defaultValue
    ) {
        self.jsonBodyBytes = jsonBodyBytes
        self.uploadBytes = uploadBytes
        self.filesPerUpload = filesPerUpload
        self.turnsPerClient = turnsPerClient
    }
}
