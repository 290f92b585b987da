import Foundation
import VeinCore

/// Required fields whose Swift type has no empty value (a Codable struct with a required member, an enum
/// that is not `CaseIterable`), lazy and not, beside lazy fields that have one, for ReadWithEveryRowTests.
enum ReadWithEveryRowSchema: VersionedSchema {
    static let version = ModelVersion(1, 0, 0)
    static let models: [any PersistentModel.Type] = [Folder.self, Scan.self]

    struct Page: Codable, Equatable { var number: Int; var text: String }
    struct Size: Codable, Equatable { var width: Int; var height: Int }
    enum Quality: String, Codable { case draft, final }

    @Model final class Folder {
        var name: String
        @Relationship(inverse: \Scan.folder) var scans: [Scan] = []
        init(name: String) { self.name = name }
    }

    @Model final class Scan {
        var title: String
        var size: Size
        @LazyField var page: Page
        @Attribute(.externalStorage) var quality: Quality
        @LazyField var image: Data
        @LazyField var caption: String?
        var folder: Folder?

        init(title: String) {
            self.title = title
            self.size = Size(width: 210, height: 297)
            self.page = Page(number: 7, text: "seven")
            self.quality = .final
            self.image = Data([1, 2])
        }
    }
}
