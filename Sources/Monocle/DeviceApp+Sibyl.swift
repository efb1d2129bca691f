import Foundation

extension DeviceApp {
    /// Sibyl's own device app: tap to speak, hold to take a photo, answers that wrap and scroll.
    public static func sibyl() throws -> DeviceApp {
        try DeviceApp(files: sibylFiles.map { File(name: $0.name, contents: String(decoding: $0.bytes, as: UTF8.self)) })
    }

    static let sibylFiles: [(name: String, bytes: [UInt8])] = [
        ("main.py", PackageResources.main_py),
    ]
}
