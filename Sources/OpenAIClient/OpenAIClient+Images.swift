import AsyncHTTPClient
import Foundation
import NIOCore
import SibylCore

extension OpenAIClient: ImageGenerator {
    /// Draws images and returns their bytes; images given as URLs are downloaded at once, because those URLs expire.
    public func generateImages(_ prompt: String, options: ImageOptions) async throws -> [GeneratedImage] {
        let model = options.model ?? configuration.defaultModels.images
        // DALL·E models answer with short-lived URLs unless asked for base64; gpt-image models always send base64
        // and reject the parameter.
        let wantsBase64 = model.hasPrefix("dall-e")
        let body = try Self.json(ImagesBody(
            model: model,
            prompt: prompt,
            n: options.count == 1 ? nil : options.count,
            size: options.size,
            quality: options.quality,
            responseFormat: wantsBase64 ? "b64_json" : nil
        ))
        let response = try await sendJSON(.POST, "/images/generations", body: body, as: ImagesResponse.self)
        guard !response.data.isEmpty else { throw OpenAIError.invalidResponse("the server returned no image") }
        var images: [GeneratedImage] = []
        for item in response.data {
            let data: Data
            if let base64 = item.b64JSON {
                guard let decoded = Data(base64Encoded: base64) else {
                    throw OpenAIError.invalidResponse("an image is not valid base64")
                }
                data = decoded
            } else if let url = item.url {
                data = try await download(url)
            } else {
                throw OpenAIError.invalidResponse("an image has neither data nor a URL")
            }
            images.append(GeneratedImage(data: data, mimeType: ImageSniffer.mimeType(of: data) ?? "image/png", revisedPrompt: item.revisedPrompt))
        }
        return images
    }

    /// Fetches an image URL without sending the API key (it is usually a storage bucket, not the API).
    private func download(_ url: String) async throws -> Data {
        var request = HTTPClientRequest(url: url)
        request.method = .GET
        do {
            let response = try await http.execute(request, timeout: .minutes(5))
            guard response.status.code == 200 else {
                throw OpenAIError.invalidResponse("downloading the image failed with HTTP \(response.status.code)")
            }
            let buffer = try await response.body.collect(upTo: Self.maxBodyBytes)
            return Data(buffer.readableBytesView)
        } catch let error as OpenAIError {
            throw error
        } catch {
            throw Self.map(error).error
        }
    }
}
