import Foundation

/// Settings for image generation.
public struct ImageOptions: Sendable, Hashable {
    public var model: String?
    /// Pixel size such as `1024x1024`.
    public var size: String?
    public var quality: String?
    public var count: Int

    public init(model: String? = nil, size: String? = nil, quality: String? = nil, count: Int = 1) {
        self.model = model
        self.size = size
        self.quality = quality
        self.count = count
    }
}

/// The sizes image models draw.
public enum ImageSizes {
    /// The sizes `model` is known to take (OpenAI's image models); nil for a model Sibyl does
    /// not know, such as a compatible server's, which is sent whatever size is asked for.
    public static func accepted(by model: String) -> [String]? {
        switch model.lowercased() {
        case "dall-e-3": ["1024x1024", "1792x1024", "1024x1792"]
        case "dall-e-2": ["256x256", "512x512", "1024x1024"]
        case let name where name.hasPrefix("gpt-image-"): ["1024x1024", "1536x1024", "1024x1536", "auto"]
        default: nil
        }
    }

    /// What is offered for a model Sibyl does not know.
    public static let common = ["1024x1024", "1792x1024", "1024x1792", "512x512", "256x256"]

    /// How many images one request may ask `model` for: DALL·E 3 draws one at a time; DALL·E 2,
    /// the GPT image models and models Sibyl does not know, up to ten.
    public static func mostPerRequest(by model: String) -> Int {
        model.lowercased() == "dall-e-3" ? 1 : 10
    }

    /// The image models Sibyl knows, offered whatever the provider lists.
    public static let knownModels = ["dall-e-3", "dall-e-2", "gpt-image-1"]

    /// Whether a provider's model draws images (by its name).
    public static func draws(_ model: String) -> Bool {
        let lowered = model.lowercased()
        return lowered.contains("dall-e") || lowered.contains("gpt-image") || lowered.contains("image-gen")
    }
}

/// An image a model drew, already downloaded: provider URLs expire, so bytes are kept at once.
public struct GeneratedImage: Sendable, Hashable {
    public var data: Data
    public var mimeType: String
    /// The prompt the provider actually used, when it rewrote it.
    public var revisedPrompt: String?

    public init(data: Data, mimeType: String, revisedPrompt: String? = nil) {
        self.data = data
        self.mimeType = mimeType
        self.revisedPrompt = revisedPrompt
    }

    /// A file extension that fits the bytes.
    public var fileExtension: String {
        switch mimeType {
        case "image/jpeg": "jpg"
        case "image/webp": "webp"
        default: "png"
        }
    }
}

/// Recognises common image formats from their first bytes.
public enum ImageSniffer {
    public static func mimeType(of data: Data) -> String? {
        let bytes = [UInt8](data.prefix(12))
        if bytes.starts(with: [0x89, 0x50, 0x4E, 0x47]) { return "image/png" }
        if bytes.starts(with: [0xFF, 0xD8, 0xFF]) { return "image/jpeg" }
        if bytes.count >= 12, bytes[0...3] == [0x52, 0x49, 0x46, 0x46], bytes[8...11] == [0x57, 0x45, 0x42, 0x50] { return "image/webp" }
        if bytes.starts(with: [0x47, 0x49, 0x46, 0x38]) { return "image/gif" }
        return nil
    }
}
