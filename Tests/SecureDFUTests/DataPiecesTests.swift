import Foundation
import SecureDFU
import Testing

@Suite(.timeLimit(.minutes(10))) struct DataPiecesTests {
    @Test func piecesCoverTheBytesInOrderWithinTheLength() {
        let bytes = Data((0..<10).map { UInt8($0) })
        #expect(bytes.pieces(of: 4) == [Data([0, 1, 2, 3]), Data([4, 5, 6, 7]), Data([8, 9])])
        #expect(bytes.pieces(of: 10) == [bytes])
        #expect(Data().pieces(of: 3).isEmpty)
        // A slice that does not start at index 0, as `dropFirst` gives.
        #expect(bytes.dropFirst(7).pieces(of: 2) == [Data([7, 8]), Data([9])])
    }
}
