public import Foundation

/// Date conversions shared by the schema, the archive and the Markdown transcript.
///
/// Dates are kept as whole milliseconds since 1970 so that a value survives any number of
/// store → export → import trips unchanged; finer precision would not survive text formats.
public enum Timestamp {
    private static let utcCalendar: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        return calendar
    }()

    /// Unix time in milliseconds, rounded to the nearest.
    public static func milliseconds(_ date: Date) -> Int64 {
        Int64((date.timeIntervalSince1970 * 1000).rounded())
    }

    /// The date of a Unix time in milliseconds.
    public static func date(milliseconds: Int64) -> Date {
        Date(timeIntervalSince1970: Double(milliseconds) / 1000)
    }

    /// The date rounded to the millisecond, as the store gives it back.
    static func rounded(_ date: Date) -> Date {
        Self.date(milliseconds: milliseconds(date))
    }

    /// ISO-8601 in UTC with milliseconds: `2024-05-01T12:30:05.250Z`.
    static func iso8601(_ date: Date) -> String {
        let (seconds, millis) = split(milliseconds(date))
        let parts = utcCalendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: Self.date(milliseconds: seconds * 1000))
        return String(
            format: "%04ld-%02ld-%02ldT%02ld:%02ld:%02ld.%03ldZ",
            parts.year ?? 0, parts.month ?? 0, parts.day ?? 0, parts.hour ?? 0, parts.minute ?? 0, parts.second ?? 0, Int(millis)
        )
    }

    /// A UTC time for people to read: `2024-05-01 12:30:05 UTC`.
    static func readable(_ date: Date, seconds showSeconds: Bool = true) -> String {
        let (seconds, _) = split(milliseconds(date))
        let parts = utcCalendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: Self.date(milliseconds: seconds * 1000))
        let day = String(format: "%04ld-%02ld-%02ld", parts.year ?? 0, parts.month ?? 0, parts.day ?? 0)
        let time = showSeconds
            ? String(format: "%02ld:%02ld:%02ld", parts.hour ?? 0, parts.minute ?? 0, parts.second ?? 0)
            : String(format: "%02ld:%02ld", parts.hour ?? 0, parts.minute ?? 0)
        return "\(day) \(time) UTC"
    }

    /// Parses ISO-8601 date-times with or without fractional seconds, in UTC (`Z`) or with an offset.
    static func parseISO8601(_ text: String) -> Date? {
        let pattern = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(?:([Zz])|([+-])(\d{2}):?(\d{2}))$/
        guard let match = text.wholeMatch(of: pattern) else { return nil }
        var parts = DateComponents()
        parts.year = Int(match.1)
        parts.month = Int(match.2)
        parts.day = Int(match.3)
        parts.hour = Int(match.4)
        parts.minute = Int(match.5)
        parts.second = Int(match.6)
        guard let base = utcCalendar.date(from: parts) else { return nil }
        var millis = milliseconds(base)
        if let fraction = match.7 {
            let padded = (String(fraction) + "000").prefix(3)
            millis += Int64(padded) ?? 0
            // Round on the fourth digit so that finer inputs land on the nearest millisecond.
            if fraction.count > 3, let next = fraction.dropFirst(3).first?.wholeNumberValue, next >= 5 { millis += 1 }
        }
        if match.8 == nil, let sign = match.9, let hours = Int64(match.10 ?? ""), let minutes = Int64(match.11 ?? "") {
            let offset = (hours * 60 + minutes) * 60_000
            millis += sign == "+" ? -offset : offset
        }
        return date(milliseconds: millis)
    }

    /// Whole seconds and the millisecond remainder, flooring so that dates before 1970 work too.
    private static func split(_ millis: Int64) -> (seconds: Int64, millis: Int64) {
        let seconds = millis >= 0 ? millis / 1000 : -((-millis + 999) / 1000)
        return (seconds, millis - seconds * 1000)
    }
}
