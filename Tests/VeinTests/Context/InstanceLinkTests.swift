import Testing
@testable import Vein

/// An object's link to its typed instance (`InstanceLink`): it reads the instance while the instance
/// lives and nil once it is gone, as a weak reference does, and never keeps it alive. It rests on the
/// runtime's unowned reference counts and `swift_tryRetain`, whose C signatures this checks in effect (a
/// misread result reads a live instance as gone, or a gone one as live).
@Suite struct InstanceLinkTests {
    final class Instance {
        let onDeinit: () -> Void
        init(onDeinit: @escaping () -> Void) { self.onDeinit = onDeinit }
        deinit { onDeinit() }
    }

    final class Flag { var raised = false }

    @Test func readsTheInstanceWhileItLivesAndNilOnceItIsGone() {
        var link = InstanceLink()
        #expect(link.load() == nil, "nothing linked")
        let gone = Flag()
        do {
            let instance = Instance { gone.raised = true }
            link.store(instance)
            #expect(link.load() === instance)
            #expect(link.load() === instance, "a read takes its own reference and gives it back")
        }
        #expect(gone.raised, "the link does not keep the instance alive")
        #expect(link.load() == nil)

        let next = Instance {}
        link.store(next)
        #expect(link.load() === next, "a new instance after the first is gone")
        link.store(next)
        #expect(link.load() === next, "linking the same instance again keeps it linked")
        link.store(nil)
        #expect(link.load() == nil)
    }

    @Test func aLinkThatGoesFirstLeavesTheInstanceAlone() {
        let gone = Flag()
        let instance = Instance { gone.raised = true }
        do {
            var link = InstanceLink()
            link.store(instance)
        }
        #expect(!gone.raised)
        withExtendedLifetime(instance) {}
    }
}
