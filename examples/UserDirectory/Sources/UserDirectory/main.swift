import Foundation
import VeinCore

// A user directory, the article's "SwiftData outside SwiftUI" app as a command-line tool:
//   UserDirectory generate STORE COUNT   adds COUNT random users (the same ones at every run)
//   UserDirectory list STORE [MIN-AGE]   how many users (of MIN-AGE or older), and the first five by name
//   UserDirectory birthday STORE ID      one year older: a new User with the same id, inserted (an upsert)
//   UserDirectory delete STORE ID        deletes the user by its persistentModelID, as the article does
// The store is encrypted; its key is in the Secret Service, where `vein` finds it with no flags.

func describe(_ user: User) -> String {
    "\(user.surname), \(user.firstName) (\(user.age)) \(user.id.uuidString)"
}

func user(_ id: String, in database: UserDB) throws -> User {
    guard let uuid = UUID(uuidString: id) else { throw UsageError("not a UUID: \(id)") }
    guard let found = try database.read(predicate: #Predicate { $0.id == uuid }).first else {
        throw UsageError("no user has the id \(id)")
    }
    return found
}

struct UsageError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

func run(_ arguments: [String]) throws {
    guard arguments.count >= 2 else {
        throw UsageError("usage: UserDirectory generate|list|birthday|delete STORE [ARGUMENT]")
    }
    let database = try UserDB(file: URL(fileURLWithPath: arguments[1]))
    switch (arguments[0], arguments.count) {
    case ("generate", 3):
        guard let count = Int(arguments[2]), count >= 0 else { throw UsageError("not a count: \(arguments[2])") }
        var random = RandomUsers(seed: UInt64(try database.read(predicate: nil).count))
        try database.create((0..<count).map { _ in random.user() })
        print("created \(count) users")
    case ("list", 2), ("list", 3):
        let minimumAge = arguments.count == 3 ? Int(arguments[2]) ?? 0 : 0
        let users = try database.read(predicate: #Predicate { $0.age >= minimumAge },
                                      sortDescriptors: SortDescriptor(\.surname), SortDescriptor(\.firstName),
                                      SortDescriptor(\.age), SortDescriptor(\.id))
        print("\(users.count) users\(minimumAge > 0 ? " aged \(minimumAge) or older" : "")")
        for user in users.prefix(5) { print("  " + describe(user)) }
    case ("birthday", 3):
        let found = try user(arguments[2], in: database)
        try database.update(User(id: found.id, firstName: found.firstName, surname: found.surname, age: found.age + 1))
        print("happy birthday: " + describe(try user(arguments[2], in: database)))
    case ("delete", 3):
        let found = try user(arguments[2], in: database)
        try database.delete(found)
        print("deleted " + describe(found))
    default:
        throw UsageError("usage: UserDirectory generate|list|birthday|delete STORE [ARGUMENT]")
    }
}

do {
    try run(Array(CommandLine.arguments.dropFirst()))
} catch {
    FileHandle.standardError.write(Data("UserDirectory: \(error)\n".utf8))
    exit(1)
}
