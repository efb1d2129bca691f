import Foundation
import Testing
@testable import Storage

@Suite("Timestamps", .timeLimit(.minutes(10)))
struct TimestampTests {
    @Test("ISO-8601 keeps milliseconds and reads common variants")
    func iso8601() throws {
        let date = Sample.start
        #expect(Timestamp.iso8601(date) == "2024-05-01T12:30:05.250Z")
        #expect(Timestamp.parseISO8601("2024-05-01T12:30:05.250Z") == date)
        #expect(Timestamp.parseISO8601("2024-05-01T12:30:05Z") == Date(timeIntervalSince1970: 1_714_566_605))
        #expect(Timestamp.parseISO8601("2024-05-01T14:30:05.25+02:00") == date)
        #expect(Timestamp.parseISO8601("2024-05-01T12:30:05.2496Z") == date)
        #expect(Timestamp.parseISO8601("yesterday") == nil)
        let early = Date(timeIntervalSince1970: -1.5)
        #expect(Timestamp.iso8601(early) == "1969-12-31T23:59:58.500Z")
        #expect(Timestamp.parseISO8601(Timestamp.iso8601(early)) == early)
    }

    @Test("Dates are kept to the millisecond")
    func rounding() {
        let precise = Date(timeIntervalSince1970: 1_714_566_605.250_4)
        #expect(Timestamp.rounded(precise) == Sample.start)
        #expect(Timestamp.date(milliseconds: Timestamp.milliseconds(Sample.start)) == Sample.start)
    }
}
