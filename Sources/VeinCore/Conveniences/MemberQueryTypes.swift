import Foundation

// The types the queries @Model generates name (`post.attachments(where:sort:)`), through VeinCore so
// that they compile in a file that does not import Foundation itself. They are Foundation's own:
// `#Predicate<Attachment> { … }` and `SortDescriptor(\.name)` are what an app passes.
public typealias MemberPredicate<Member> = Foundation.Predicate<Member>
public typealias MemberSortDescriptor<Member> = Foundation.SortDescriptor<Member>
