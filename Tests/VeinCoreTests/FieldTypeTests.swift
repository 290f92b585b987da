import Foundation
import Testing
import VeinCore

/// Every field type of docs/store-format.md as a Swift property, written through a context and read back from the
/// store by another container.
enum Catalog: VersionedSchema {
    static let version = ModelVersion(1, 0, 0)
    static let models: [any PersistentModel.Type] = [Item.self]

    enum Size: Int, RawRepresentablePersistable { case small = 1, large = 2 }
    enum Color: String, RawRepresentablePersistable { case red, green }
    struct Dimensions: CodablePersistable, Equatable { var width: Double; var height: Double }

    @Model final class Item {
        @Unique var code: UUID
        var name: String
        var count: Int
        var price: Double
        var inStock: Bool
        var addedAt: Date
        var thumbnail: Data
        var size: Size
        var color: Color?
        var dimensions: Dimensions
        var tags: [String]
        var note: String?
        @Attribute(originalName: "label") var title: String = "untitled"

        init(code: UUID, name: String, count: Int, price: Double, inStock: Bool, addedAt: Date, thumbnail: Data, size: Size,
             color: Color?, dimensions: Dimensions, tags: [String]) {
            self.code = code
            self.name = name
            self.count = count
            self.price = price
            self.inStock = inStock
            self.addedAt = addedAt
            self.thumbnail = thumbnail
            self.size = size
            self.color = color
            self.dimensions = dimensions
            self.tags = tags
        }
    }
}

@Suite struct FieldTypeTests {
    @Test func everyFieldTypeRoundTripsThroughTheStore() throws {
        let folder = try ModelContainerTests.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = "\(folder)/catalog.vein"
        let code = UUID()
        let addedAt = Date(timeIntervalSince1970: 1_780_000_000.123456)
        let container = try ModelContainer(for: Catalog.self, at: path, appID: "com.example.catalog", keyProvider: ModelContainerTests.keys(folder))
        let item = Catalog.Item(code: code, name: "Lamp", count: 3, price: 19.5, inStock: true, addedAt: addedAt,
                                thumbnail: Data([1, 2, 3]), size: .large, color: nil,
                                dimensions: .init(width: 1.5, height: 2), tags: ["a", "b"])
        container.context.insert(item)
        item.color = .green
        try container.context.save()

        let other = try ModelContainer(for: Catalog.self, at: path, appID: "com.example.catalog", keyProvider: ModelContainerTests.keys(folder))
        let read = try #require(try other.context.fetch(Catalog.Item.self).first)
        #expect(read !== item)
        #expect(read.code == code)
        #expect(read.name == "Lamp")
        #expect(read.count == 3)
        #expect(read.price == 19.5)
        #expect(read.inStock)
        #expect(read.addedAt == addedAt)
        #expect(read.thumbnail == Data([1, 2, 3]))
        #expect(read.size == .large)
        #expect(read.color == .green)
        #expect(read.dimensions == .init(width: 1.5, height: 2))
        #expect(read.tags == ["a", "b"])
        #expect(read.note == nil)
        #expect(read.title == "untitled")
        #expect(try other.context.fetchCount(Catalog.Item.self, where: #"size == 2 && color == "green""#) == 1)
    }

    @Test func theManifestDescribesEachType() throws {
        let manifest = try Catalog.manifest(appID: "com.example.catalog")
        let item = try #require(manifest.model(named: "Item"))
        #expect(item.fields.map { "\($0.name):\($0.type.rawValue)\($0.isOptional ? "?" : "")" } == [
            "code:uuid", "name:string", "count:int", "price:double", "inStock:bool", "addedAt:date", "thumbnail:data",
            "size:enum", "color:enum?", "dimensions:json", "tags:json", "note:string?", "title:string",
        ])
        #expect(item.field(named: "code")?.isUnique == true)
        #expect(item.field(named: "size")?.enumValues == [.int(1), .int(2)])
        #expect(item.field(named: "title")?.renamedFrom == "label")
        #expect(item.field(named: "title")?.defaultValue == .string("untitled"))
    }
}
