import Foundation
import Testing
@testable import Vein

/// `save` compares the stored row with the values the context holds for it (`requireUnchangedSinceRead`).
/// Those values must be what a re-read of the row gives, or a second save of a row this same context
/// wrote is a conflict no other writer caused (or a read of it fails as damage).
@Suite struct SaveNormalFormTests {
    @Test func aRowSavedWithEdgeDoublesAndDatesSavesAgainWithoutAConflict() throws {
        let f = try ContextFixture()
        defer { f.dir.cleanUp() }
        let context = try f.context()
        let doubles: [Double] = [-0.0, 5e-324, 0.1, -1e308, 4611686018427387904, -9223372036854775808, 1.0e20]
        let dates: [Double] = [-0.0, -62135596800.000001, 253402300799.999999, 0.0000001, 1_700_000_000.1234567]
        for (n, size) in doubles.enumerated() {
            let post = try context.insert("Post", ["title": .string("p\(n)"), "content": .string("c"),
                                                   "publishedAt": .date(dates[n % dates.count])])
            let attachment = try context.insert("Attachment", ["name": .string("a\(n)"), "sizeMiB": .double(size), "post": .string(post.id)])
            try context.save()
            // Changed again after its save: the save's check compares the row with what the context holds.
            try attachment.set("name", .string("b\(n)"))
            try post.set("title", .string("q\(n)"))
            try context.save()
            try attachment.set("sizeMiB", .double(size))
            try post.set("publishedAt", .date(dates[(n + 1) % dates.count]))
            try context.save()
            try post.set("views", .int(1))
            try context.save()
        }
    }

    /// A value the store cannot hold as it is is refused when set, as import refuses it: SQLite stores NaN
    /// as NULL (the row's next save then met a "changed" row: a false conflict), and an infinity or a date
    /// outside four-digit years became a cell every later read refused as damage.
    @Test func valuesNoCellCanHoldAreRefusedWhenSet() throws {
        let f = try ContextFixture()
        defer { f.dir.cleanUp() }
        let context = try f.context()
        let post = try context.insert("Post", ["title": .string("p"), "content": .string("c")])
        let attachment = try context.insert("Attachment", ["name": .string("a"), "sizeMiB": .double(1), "post": .string(post.id)])
        try context.save()
        for (value, found) in [(Double.nan, "NaN"), (.infinity, "Infinity"), (-.infinity, "-Infinity")] {
            #expect(throws: ContextError.typeMismatch(model: "Attachment", field: "sizeMiB", expected: "a finite Double", found: found)) {
                try attachment.set("sizeMiB", .double(value))
            }
            #expect(throws: ContextError.typeMismatch(model: "Attachment", field: "sizeMiB", expected: "a finite Double", found: found)) {
                try context.insert("Attachment", ["name": .string("b"), "sizeMiB": .double(value), "post": .string(post.id)])
            }
            #expect(throws: ContextError.typeMismatch(model: "Post", field: "publishedAt", expected: "a Date in the years 0001 to 9999", found: "\(value)")) {
                try post.set("publishedAt", .date(value))
            }
        }
        #expect(throws: ContextError.typeMismatch(model: "Post", field: "publishedAt", expected: "a Date in the years 0001 to 9999",
                                                  found: "1e+20 seconds from 1970")) {
            try post.set("publishedAt", .date(1e20))
        }
        try post.set("publishedAt", .date(ISODate.latest))
        try attachment.set("sizeMiB", .double(-.greatestFiniteMagnitude))
        try context.save()
        // The rows saved read back, and save again from this context without a conflict.
        try post.set("title", .string("q"))
        try attachment.set("name", .string("b"))
        try context.save()
        let other = try f.context()
        #expect(try other.object("Attachment", id: attachment.id)?["sizeMiB"] == .double(-.greatestFiniteMagnitude))
        #expect(try other.object("Post", id: post.id)?["publishedAt"] == .date(ISODate.latest))
    }
}
