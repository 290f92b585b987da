import Testing
@testable import Vein

/// When a context's saves are announced (`SaveAnnouncer`): at once outside a `transaction`, at the
/// outermost one's commit inside it, never when it rolls back.
@Suite struct SaveAnnouncerTests {
    @Test func aSaveOutsideATransactionIsAnnouncedAtOnce() {
        var announcer = SaveAnnouncer()
        #expect(announcer.saved(["Post"], insideTransaction: false) == ["Post"])
        #expect(announcer.transactionCommitted().isEmpty)
    }

    @Test func savesInsideATransactionWaitForItsCommit() {
        var announcer = SaveAnnouncer()
        #expect(announcer.saved(["Post"], insideTransaction: true).isEmpty)
        #expect(announcer.saved(["Tag"], insideTransaction: true).isEmpty)
        #expect(announcer.transactionCommitted() == ["Post", "Tag"])
        #expect(announcer.transactionCommitted().isEmpty, "announced once")
    }

    @Test func savesInsideATransactionThatRollsBackAreNeverAnnounced() {
        var announcer = SaveAnnouncer()
        _ = announcer.saved(["Post"], insideTransaction: true)
        announcer.transactionRolledBack()
        #expect(announcer.transactionCommitted().isEmpty)
    }
}
