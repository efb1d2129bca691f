import Foundation
import SibylCore
import VectorIndexAVX2
import VectorIndexAVX512
import VectorIndexLayout

/// Which build of the kernels runs: the AVX-512 one where the CPU has it, else the AVX2 + FMA
/// one, else the portable one compiled into this module. `SIBYL_VECTOR_KERNELS=avx2` or
/// `portable` asks for a narrower build (for comparisons and tests).
enum Kernels {
    static let level = KernelLevel.chosen(requested: ProcessInfo.processInfo.environment["SIBYL_VECTOR_KERNELS"])

    /// A description for benchmark reports.
    static var backendDescription: String { level.description }

    static func scanPanels(
        queries: UnsafePointer<Float>, queryCount: Int, queryStride: Int,
        panels: UnsafePointer<Float>, dimension: Int, panelRange: Range<Int>, rowCount: Int,
        ids: UnsafePointer<Int64>, filter: ((Int64) -> Bool)?, lists: TopKLists
    ) {
        switch level {
        case .avx512:
            VectorIndexAVX512.PanelScan.scan(
                queries: queries, queryCount: queryCount, queryStride: queryStride, panels: panels, dimension: dimension,
                panelRange: panelRange, rowCount: rowCount, ids: ids, filter: filter, lists: lists
            )
        case .avx2:
            VectorIndexAVX2.PanelScan.scan(
                queries: queries, queryCount: queryCount, queryStride: queryStride, panels: panels, dimension: dimension,
                panelRange: panelRange, rowCount: rowCount, ids: ids, filter: filter, lists: lists
            )
        case .portable:
            PanelScan.scan(
                queries: queries, queryCount: queryCount, queryStride: queryStride, panels: panels, dimension: dimension,
                panelRange: panelRange, rowCount: rowCount, ids: ids, filter: filter, lists: lists
            )
        }
    }

    static func searchGraph(
        _ graph: GraphLayout, entry: Int32, maxLevel: Int, ef: Int, k: Int,
        filter: ((Int64) -> Bool)?, scratch: GraphScratch
    ) -> Int {
        switch level {
        case .avx512:
            VectorIndexAVX512.GraphSearch.search(graph, entry: entry, maxLevel: maxLevel, ef: ef, k: k, filter: filter, scratch: scratch)
        case .avx2:
            VectorIndexAVX2.GraphSearch.search(graph, entry: entry, maxLevel: maxLevel, ef: ef, k: k, filter: filter, scratch: scratch)
        case .portable:
            GraphSearch.search(graph, entry: entry, maxLevel: maxLevel, ef: ef, k: k, filter: filter, scratch: scratch)
        }
    }

    static func scanGraph(
        _ graph: GraphLayout, query: UnsafePointer<Float>, nodes: UnsafePointer<Int32>?, count: Int,
        filter: ((Int64) -> Bool)?, lists: TopKLists
    ) {
        switch level {
        case .avx512: VectorIndexAVX512.GraphSearch.scan(graph, query: query, nodes: nodes, count: count, filter: filter, lists: lists)
        case .avx2: VectorIndexAVX2.GraphSearch.scan(graph, query: query, nodes: nodes, count: count, filter: filter, lists: lists)
        case .portable: GraphSearch.scan(graph, query: query, nodes: nodes, count: count, filter: filter, lists: lists)
        }
    }

    static func insertNode(
        _ node: Int32, graph: GraphLayout, entry: Int32, maxLevel: Int,
        efConstruction: Int, maxDegree: Int, scratch: GraphScratch
    ) {
        switch level {
        case .avx512:
            VectorIndexAVX512.GraphInsertion.insert(
                node: node, graph: graph, entry: entry, maxLevel: maxLevel,
                efConstruction: efConstruction, maxDegree: maxDegree, scratch: scratch
            )
        case .avx2:
            VectorIndexAVX2.GraphInsertion.insert(
                node: node, graph: graph, entry: entry, maxLevel: maxLevel,
                efConstruction: efConstruction, maxDegree: maxDegree, scratch: scratch
            )
        case .portable:
            GraphInsertion.insert(
                node: node, graph: graph, entry: entry, maxLevel: maxLevel,
                efConstruction: efConstruction, maxDegree: maxDegree, scratch: scratch
            )
        }
    }
}

extension ExactIndex {
    /// Which build of the SIMD kernels this process runs: "AVX-512", "AVX2 + FMA" or "portable SIMD".
    public static var kernelDescription: String { Kernels.backendDescription }
}

extension HNSWIndex {
    /// Which build of the SIMD kernels this process runs: "AVX-512", "AVX2 + FMA" or "portable SIMD".
    public static var kernelDescription: String { Kernels.backendDescription }
}
