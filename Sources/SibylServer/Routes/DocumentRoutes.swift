import Assistant
import Foundation
import Hummingbird
import Knowledge
import SibylApp
import SibylCore

/// Documents: upload (one or many files, with progress events), list, show with statistics,
/// remove, re-embed; collections and the files that failed.
struct DocumentRoutes: RouteCollectionAdding {
    let state: ServerState

    /// A collection's (or a new index's) name.
    struct CollectionChange: Codable, Sendable {
        var name: String
    }

    /// Where vectors are to be searched: `embedded` or `pinecone`, in `index` (else `pinecone.index`).
    struct VectorStoreChoice: Codable, Sendable {
        var store: String
        var index: String?
    }

    /// A Pinecone index: its vector size, metric, whether it is ready, and its vectors (all namespaces).
    struct IndexBody: Codable, Sendable {
        var name: String
        var dimension: Int?
        var metric: String
        var ready: Bool
        var vectorCount: Int?

        init(_ index: PineconeIndexSummary) {
            (name, dimension, metric, ready, vectorCount) = (index.name, index.dimension, index.metric, index.ready, index.vectors)
        }
    }

    /// Where vectors are searched (`embedded` or `pinecone`, in `index`), whether a Pinecone key
    /// is set, the key's indexes, why they could not be listed, and the embedder's vector size.
    struct VectorStoreBody: Codable, Sendable {
        var store: String
        var index: String
        var keySet: Bool
        var indexes: [IndexBody]
        var problem: String?
        var dimension: Int?

        init(_ overview: VectorStoreOverview) {
            store = overview.store.rawValue
            index = overview.index
            keySet = overview.keySet
            indexes = overview.indexes.map(IndexBody.init)
            problem = overview.problem
            dimension = overview.dimension
        }
    }

    /// What re-embedding takes: the collection (else `docs.collection`), and whether to stream
    /// its progress as server-sent events.
    struct ReindexRequest: Codable, Sendable {
        var collection: String?
        var stream: Bool?
    }

    /// Re-embedding's progress: documents done of all.
    struct ReindexProgress: Codable, Sendable {
        var done: Int
        var total: Int
    }

    /// The embedding models one may choose, and the one documents are embedded with now.
    struct EmbeddingModels: Codable, Sendable {
        struct Model: Codable, Sendable {
            var id: String
            var local: Bool
        }

        var current: String
        var models: [Model]
        /// Why the provider's models are not offered (no remote provider set up, say).
        var problem: String?
    }

    /// What re-embedding did.
    struct ReindexReport: Codable, Sendable {
        var collection: String
        var embeddingModel: String
        var documents: Int
        var passages: Int
    }

    func add(to group: RouterGroup<SibylRequestContext>) {
        group.get("documents") { request, context in
            let runtime = try await state.runtime(for: context)
            return JSONBody(try await runtime.documents.list(in: request.query("collection")).map { Wire.Document($0.document, collection: $0.collection) })
        }
        group.post("documents") { request, context in
            let runtime = try await state.runtime(for: context)
            let form = try await MultipartForm.read(request, limit: state.limits.uploadBytes, maxFiles: state.limits.filesPerUpload)
            let uploads = form.files.map { UploadedFile(filename: $0.filename ?? "upload", data: $0.data) }
            guard !uploads.isEmpty else { throw APIError.badRequest("The upload holds no file: send each as a multipart part with a filename.") }
            let collection = form.field("collection")
            // Scans read in the languages the upload names, else in docs.ocr_languages.
            let ocrLanguages = try form.field("ocrLanguages").flatMap { text in
                guard let languages = OCRLanguages(text) else {
                    throw APIError.badRequest("ocrLanguages '\(text.prefix(40))' names no language: give en, ko, id or tesseract's codes (eng, kor, ind), separated by commas.")
                }
                return languages
            }
            // Fail before streaming when nothing could be added at all (no embedder installed, say).
            _ = try await runtime.documents.embedder()
            let wantsJSON = request.headers[.accept]?.contains("application/json") == true && request.headers[.accept]?.contains("text/event-stream") != true
            if wantsJSON {
                let addition = try await runtime.documents.addUploads(uploads, collection: collection, ocrLanguages: ocrLanguages)
                return try JSONBody(Wire.IngestReport(addition)).response(status: .ok)
            }
            return EventStream.response { writer in
                do {
                    let addition = try await runtime.documents.addUploads(uploads, collection: collection, ocrLanguages: ocrLanguages) { event in
                        writer.send("progress", Wire.IngestProgress(event))
                    }
                    writer.send("done", Wire.IngestReport(addition))
                } catch {
                    writer.sendError(error)
                }
            }
        }
        group.get("documents/failures") { request, context in
            let runtime = try await state.runtime(for: context)
            return JSONBody(try await runtime.documents.failures(in: request.query("collection")).map(Wire.DocumentFailure.init))
        }
        group.post("documents/reindex") { request, context in
            let runtime = try await state.runtime(for: context)
            let body = try await request.json(ReindexRequest.self, limit: state.limits.jsonBodyBytes)
            guard body.stream == true else {
                let done = try await runtime.documents.reindex(collection: body.collection)
                return try JSONBody(ReindexReport(collection: done.collection, embeddingModel: done.model, documents: done.documents, passages: done.passages)).response(status: .ok)
            }
            return EventStream.response { writer in
                do {
                    let done = try await runtime.documents.reindex(collection: body.collection) { done, total in
                        writer.send("progress", ReindexProgress(done: done, total: total))
                    }
                    writer.send("done", ReindexReport(collection: done.collection, embeddingModel: done.model, documents: done.documents, passages: done.passages))
                } catch {
                    writer.sendError(error)
                }
            }
        }
        group.get("documents/:documentId") { request, context in
            let runtime = try await state.runtime(for: context)
            let id = try context.parameters.require("documentId", as: Int64.self)
            let details = try await runtime.documents.details(id: id)
            return JSONBody(Wire.DocumentDetails(details, includePassages: request.query("passages") == "true"))
        }
        group.delete("documents/:documentId") { _, context in
            let runtime = try await state.runtime(for: context)
            let id = try context.parameters.require("documentId", as: Int64.self)
            try await runtime.documents.remove(id: id)
            return Response(status: .noContent)
        }
        group.get("embeddings/models") { _, context in
            let choices = await (try await state.runtime(for: context)).documents.embeddingModels()
            return JSONBody(EmbeddingModels(current: choices.current, models: choices.models.map { .init(id: $0.id, local: $0.local) }, problem: choices.problem))
        }
        group.get("collections") { _, context in
            let runtime = try await state.runtime(for: context)
            return JSONBody(try await runtime.documents.statistics().map(Wire.CollectionStatistics.init))
        }
        group.patch("collections/:name") { request, context in
            let runtime = try await state.runtime(for: context)
            let body = try await request.json(CollectionChange.self, limit: state.limits.jsonBodyBytes)
            let renamed = try await runtime.documents.renameCollection(try context.parameters.require("name"), to: body.name)
            let statistics = try await runtime.documents.statistics().first { $0.collection.id == renamed.id }
            guard let statistics else { throw APIError(.notFound, code: "not_found", "The collection is gone.") }
            return JSONBody(Wire.CollectionStatistics(statistics))
        }
        group.delete("collections/:name") { _, context in
            let runtime = try await state.runtime(for: context)
            try await runtime.documents.deleteCollection(try context.parameters.require("name"))
            return Response(status: .noContent)
        }
        group.get("vector-store") { _, context in
            let runtime = try await state.runtime(for: context)
            return JSONBody(VectorStoreBody(await runtime.admin.vectorStore()))
        }
        group.put("vector-store") { request, context in
            let runtime = try await state.runtime(for: context)
            let body = try await request.json(VectorStoreChoice.self, limit: state.limits.jsonBodyBytes)
            guard let store = VectorStoreKind(rawValue: body.store) else {
                throw APIError(.badRequest, code: "invalid_request", "store is 'embedded' or 'pinecone', not '\(body.store)'.")
            }
            try await runtime.admin.useVectorStore(store, index: body.index)
            return JSONBody(VectorStoreBody(await runtime.admin.vectorStore()))
        }
        group.post("vector-store/indexes") { request, context in
            let runtime = try await state.runtime(for: context)
            let body = try await request.json(CollectionChange.self, limit: state.limits.jsonBodyBytes)
            return JSONBody(IndexBody(try await runtime.admin.createPineconeIndex(named: body.name)))
        }
    }
}
