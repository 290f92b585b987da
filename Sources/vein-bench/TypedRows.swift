import Foundation
import Vein
import VeinCore

// The typed rows of bench/run (issue 13): the same work as the context rows and the C program, through
// VeinCore's `@Model` surface. `Row` is the bench manifest's model (ten non-optional int fields).

@Model
final class Row {
    var f0: Int
    var f1: Int
    var f2: Int
    var f3: Int
    var f4: Int
    var f5: Int
    var f6: Int
    var f7: Int
    var f8: Int
    var f9: Int

    init(_ n: Int) {
        let base = n &* 31
        f0 = base; f1 = base &+ 1; f2 = base &+ 2; f3 = base &+ 3; f4 = base &+ 4
        f5 = base &+ 5; f6 = base &+ 6; f7 = base &+ 7; f8 = base &+ 8; f9 = base &+ 9
    }
}

/// 50,000 (`count`) instances made and inserted one by one (`context.insert`), then one `save`.
func typedInsertRows(_ context: VeinCore.ModelContext, count: Int) throws {
    for n in 0..<count { context.insert(Row(n)) }
    try context.save()
}

/// What a typed fetch read: the C program copies each row's id and ten ints; here each instance's id and
/// ten fields are read through their accessors into the same kind of struct array.
struct FetchedRow {
    var id: String
    var f: (Int, Int, Int, Int, Int, Int, Int, Int, Int, Int)
}

/// The instances are returned too: the caller drops them after the timed block, as the C program frees
/// its array after timing.
func typedFetchRows(_ context: VeinCore.ModelContext) throws -> (instances: [Row], copied: [FetchedRow]) {
    let rows = try context.fetch(VeinCore.FetchDescriptor<Row>())
    var copied: [FetchedRow] = []
    copied.reserveCapacity(rows.count)
    for row in rows {
        copied.append(FetchedRow(id: row.persistentModelID.key, f: (row.f0, row.f1, row.f2, row.f3, row.f4, row.f5, row.f6, row.f7, row.f8, row.f9)))
    }
    return (rows, copied)
}

/// Outside the timing, as the C program's `check_rows`: every row, in id order, with its values.
func checkTypedRows(_ rows: [FetchedRow], count: Int) {
    precondition(rows.count == count, "typed fetch returned \(rows.count) rows")
    for (i, row) in rows.enumerated() {
        precondition(row.f.0 == i &* 31 && row.f.9 == i &* 31 &+ 9, "typed fetch returned the wrong values")
        precondition(i == 0 || rows[i - 1].id < row.id, "typed fetch returned rows out of order")
    }
}

func typedContext(_ store: Store) -> VeinCore.ModelContext {
    VeinCore.ModelContext(ObjectContext(store: store))
}
