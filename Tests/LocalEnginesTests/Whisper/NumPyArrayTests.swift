import Foundation
import Testing
@testable import LocalEngines

@Suite("NumPy arrays", .timeLimit(.minutes(10)))
struct NumPyArrayTests {
    @Test("float32, float64 and float16 arrays in both byte orders", arguments: ["<f4", ">f4", "<f8", ">f8", "<f2", "=f4", "|f4"])
    func dataTypes(descr: String) throws {
        let values: [Float] = [0.5, -1.25, 3, 0.125, 7, -0.0625]
        let array = try NumPyArray(npy: NumPyFixtures.npy(values, shape: [2, 3], descr: descr))
        #expect(array.shape == [2, 3])
        #expect(array.values == values)
    }

    @Test("Fortran-ordered arrays are returned in row-major order")
    func fortranOrder() throws {
        // Row-major [[1, 2, 3], [4, 5, 6]] stored column by column.
        let array = try NumPyArray(npy: NumPyFixtures.npy([1, 4, 2, 5, 3, 6], shape: [2, 3], fortranOrder: true))
        #expect(array.values == [1, 2, 3, 4, 5, 6])
    }

    @Test("Version 2 headers, one-dimensional and scalar shapes")
    func headers() throws {
        #expect(try NumPyArray(npy: NumPyFixtures.npy([1, 2, 3], shape: [3], version: 2)).shape == [3])
        let scalar = try NumPyArray(npy: NumPyFixtures.npy([42], shape: []))
        #expect(scalar.shape == [])
        #expect(scalar.values == [42])
    }

    @Test("Errors: not NumPy, integer data, short data")
    func errors() throws {
        #expect(throws: NumPyArray.ReadError.notNumPy) { try NumPyArray(npy: Data("PK\u{3}\u{4} zip".utf8)) }
        #expect(throws: NumPyArray.ReadError.unsupportedDataType("<i4")) { try NumPyArray(npy: NumPyFixtures.npy([1], shape: [1], descr: "<i4")) }
        let short = NumPyFixtures.npy([1, 2, 3, 4], shape: [4]).dropLast(4)
        #expect(throws: NumPyArray.ReadError.truncated) { try NumPyArray(npy: Data(short)) }
    }

    @Test("Arrays are read from compressed and stored .npz archives", arguments: [true, false])
    func npz(compressed: Bool) throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("arrays.npz")
        try NumPyFixtures.npz(at: url, arrays: [
            "mel_80": NumPyFixtures.npy((0..<(80 * 201)).map { Float($0 % 50) / 8 }, shape: [80, 201]),
            "mel_128": NumPyFixtures.npy([1, 2], shape: [1, 2]),
        ], compressed: compressed)
        let mel = try NumPyArray(npz: url, key: "mel_80")
        #expect(mel.shape == [80, 201])
        #expect(mel.values[201] == Float(201 % 50) / 8)
        #expect(try NumPyArray(npz: url, key: "mel_128").values == [1, 2])
        #expect(throws: NumPyArray.ReadError.missingArray(key: "mel_40", available: ["mel_128", "mel_80"])) {
            try NumPyArray(npz: url, key: "mel_40")
        }
    }
}
