import Foundation
import Testing
import VeinCore

/// An initializer must assign every persisted property that has neither an initial value nor an optional
/// type, as Swift requires of a plain class's stored properties: each persisted property has a stored
/// marker that its `init` accessor initializes. Before, such an initializer compiled, and reading the
/// property of the uninserted instance stopped the program when its type had no empty value (a Codable
/// struct with a required member).
@Suite struct InitializerAssignmentTests {
    static let model = """
        import Foundation
        import VeinCore
        struct Address: Codable { var street: String }
        @Model final class Contact {
            @Attribute(.unique) let id: UUID
            var name: String
            var address: Address
            var note: String?
            var views: Int = 0
            var friends: [Contact] = []
            var best: Contact?
            init(id: UUID, name: String, street: String) {
                self.name = name
                self.views = 2
                self.note = "n"
                self.address = Address(street: street)
                self.id = id
            }
        %@
        }
        """

    static func compile(_ otherInitializer: String) throws -> (errors: [String], status: Int32) {
        try CompileTimeCheckTests.typecheck(String(format: model, otherInitializer), sil: true)
    }

    /// Properties assigned in any order, `let`s after `var`s included; the optional and the ones with an
    /// initial value left out.
    @Test(.enabled(if: CompileTimeCheckTests.swiftcFound, "swiftc is not on PATH"))
    func anInitializerAssigningEveryRequiredPropertyCompiles() throws {
        let result = try Self.compile("")
        #expect(result.errors == [])
        #expect(result.status == 0)
    }

    @Test(.enabled(if: CompileTimeCheckTests.swiftcFound, "swiftc is not on PATH"))
    func anInitializerLeavingARequiredPropertyUnassignedDoesNotCompile() throws {
        let result = try Self.compile("""
                init(id: UUID, name: String) {
                    self.id = id
                    self.name = name
                }
            """)
        #expect(result.errors == ["return from initializer without initializing all stored properties"])
        #expect(result.status != 0)
    }

    @Test(.enabled(if: CompileTimeCheckTests.swiftcFound, "swiftc is not on PATH"))
    func aPropertyAssignedOnOnePathOnlyDoesNotCompile() throws {
        let result = try Self.compile("""
                init(id: UUID, name: String?) {
                    self.id = id
                    if let name { self.name = name }
                    self.address = Address(street: "")
                }
            """)
        #expect(result.errors == ["return from initializer without initializing all stored properties"])
    }

    /// The markers are empty: a model instance is as large as one with no persisted property.
    @Test func theMarkersTakeNoMemory() {
        #expect(MemoryLayout<_Assigned>.size == 0)
        #expect(Self.instanceSize(ShopSchema.Product.self) == Self.instanceSize(NoPersistedProperty.self))
    }

    final class NoPersistedProperty {
        let _$backing = ModelBacking()
    }

    /// The size of an instance's stored properties and header, from the class's metadata as the Swift
    /// runtime lays it out without Objective-C interoperability (Linux): a 32-bit field after the
    /// metadata kind, the superclass, the flags and the address point.
    static func instanceSize(_ type: AnyClass) -> Int {
        Int(unsafeBitCast(type, to: UnsafeRawPointer.self).load(fromByteOffset: 24, as: UInt32.self))
    }
}
