import Assistant
import Foundation
import Hummingbird
import Knowledge
import SibylApp

/// Search: ranked passages from the user's documents.
struct SearchRoutes: RouteCollectionAdding {
    let state: ServerState

    func add(to group: RouterGroup<SibylRequestContext>) {
        group.get("search") { request, context in
            guard let query = request.query("q") else { throw APIError.badRequest("Give something to search for in 'q'.") }
            let mode = try request.query("mode").map { text -> SearchMode in
                guard let mode = SearchMode(rawValue: text) else { throw APIError.badRequest("'mode' is hybrid, vector or lexical.") }
                return mode
            } ?? .hybrid
            let results = try await state.runtime(for: context).documents.search(
                query, collection: request.query("collection"), document: request.query("document"), mode: mode,
                limit: try request.integerQuery("limit", default: 5, in: 1...100)
            )
            return JSONBody(results.enumerated().map { Wire.Passage($0.element, rank: $0.offset + 1) })
        }
    }
}
