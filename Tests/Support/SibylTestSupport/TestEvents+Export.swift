// The waits and teardowns of TestEvents (`Observed`, `waitFor`, `withTeardown`) come with this
// library, beside `eventually`: a test target that depends on SibylTestSupport has them all.
@_exported import TestEvents
