import Foundation
import Hummingbird

/// `/api/v1/openapi.yaml`: the OpenAPI 3.1 document that describes this API.
struct SpecRoutes: RouteCollectionAdding {
    /// The document, compiled into Sibyl.
    static var document: String { String(decoding: PackageResources.openapi_yaml, as: UTF8.self) }

    func add(to group: RouterGroup<SibylRequestContext>) {
        group.get("openapi.yaml") { request, context in
            try BytesBody(data: Data(PackageResources.openapi_yaml), contentType: "application/yaml; charset=utf-8").response(from: request, context: context)
        }
    }
}
