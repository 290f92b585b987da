import Foundation
import Testing
import Vein

/// Output that cannot be written, outputs that are not regular files, and the modes, owners and groups of
/// the files vein writes or replaces.
@Suite struct OutputFailureTests {
    /// A runner with `s.vein` (key file `k`) holding `posts` posts.
    func store(posts: Int = 300) throws -> VeinRunner {
        let r = try VeinRunner()
        try #require(try r.vein(["create", "s.vein", "--schema", VeinRunner.exampleManifest, "--key-file", "k"]).status == 0)
        let context = ObjectContext(store: try Store.open(r.path("s.vein"), keys: KeyOptions(keyFile: r.path("k"), keyring: nil)))
        for i in 0..<posts { _ = try context.insert("Post", ["title": .string("Post \(i)"), "content": .string(String(repeating: "z", count: 200))]) }
        try context.save()
        return r
    }

    /// `sh -c SCRIPT` with $0 the vein binary; SCRIPT prints the status it wants checked.
    func shell(_ r: VeinRunner, _ script: String) throws -> VeinRunner.Result {
        try r.run("/bin/sh", ["-c", script, VeinRunner.binary])
    }

    /// The reader goes away after the first line: vein ends quietly with status 0, as cat does.
    @Test(arguments: [["query", "s.vein", "Post", "--format", "jsonl"], ["export", "s.vein", "--format", "jsonl"]])
    func aClosedPipeEndsQuietly(arguments: [String]) throws {
        let r = try store(posts: 3000)
        defer { r.cleanUp() }
        let command = (arguments + ["--key-file", "k"]).map { "'\($0)'" }.joined(separator: " ")
        let status = try shell(r, "( \"$0\" \(command) 2>err; echo $? > status ) | head -1 >/dev/null; cat status err")
        #expect(status.stdout == "0\n", "exit 0 and nothing on standard error: \(status.stdout)")
    }

    @Test func aFullStandardOutputIsAnIOError() throws {
        let r = try store(posts: 1)
        defer { r.cleanUp() }
        let result = try shell(r, "\"$0\" info s.vein --key-file k > /dev/full")
        #expect(result.status == 74)
        #expect(result.stderr == "vein: error: cannot write standard output: No space left on device\n")
    }

    /// A closed standard output, after an import committed: status 74, not a crash, and a message that says
    /// the records are in (it said only "cannot write standard output", and a retry failed on duplicates).
    @Test func aClosedStandardOutputIsAnIOError() throws {
        let r = try store(posts: 2)
        defer { r.cleanUp() }
        try #require(try r.vein(["export", "s.vein", "-o", "e.json", "--key-file", "k"]).status == 0)
        try #require(try r.vein(["create", "t.vein", "--schema", VeinRunner.exampleManifest, "--key-file", "k"]).status == 0)
        let result = try shell(r, "\"$0\" import t.vein e.json --key-file k --json >&-")
        #expect(result.status == 74)
        #expect(result.stderr == """
            vein: error: the import is done: 2 records are in t.vein, but its summary could not be written \
            (cannot write standard output: Bad file descriptor)
            hint: do not import the file again: its records are in the store already

            """)
        #expect(try r.vein(["query", "t.vein", "count Post", "--key-file", "k"]).stdout == "2\n", "the import committed")
    }

    /// A full standard error (where the result note goes): status 74, with nobody left to tell.
    @Test func aFullStandardErrorIsAnIOError() throws {
        let r = try store(posts: 2)
        defer { r.cleanUp() }
        let result = try shell(r, "\"$0\" export s.vein -o e.json --key-file k 2>/dev/full")
        #expect(result.status == 74)
    }

    /// Run as root, `-o /dev/null` replaced the device with a regular file holding the plaintext.
    @Test func exportIntoADeviceWritesIntoIt() throws {
        let r = try store(posts: 2)
        defer { r.cleanUp() }
        // A copy of /dev/null's device node in the test directory, so a failure cannot damage the real one.
        try #require(try r.run("/bin/mknod", ["-m", "666", "null", "c", "1", "3"]).status == 0)
        let result = try r.vein(["export", "s.vein", "-o", "null", "--key-file", "k"])
        #expect(result.status == 0, "\(result.stderr)")
        var info = stat()
        #expect(lstat(r.path("null"), &info) == 0 && info.st_mode & S_IFMT == S_IFCHR, "still a character device")
        #expect(try FileManager.default.contentsOfDirectory(atPath: r.directory.path).filter { $0.contains(".null.") }.isEmpty)
    }

    @Test func exportIntoAFIFOWritesIntoIt() throws {
        let r = try store(posts: 20)
        defer { r.cleanUp() }
        try #require(mkfifo(r.path("fifo"), 0o600) == 0)
        let expected = try r.vein(["export", "s.vein", "--key-file", "k"]).stdout
        let result = try shell(r, "timeout 20 cat fifo > got & \"$0\" export s.vein -o fifo --key-file k -q; echo $?; wait")
        #expect(result.stdout == "0\n", "\(result.stderr)")
        #expect(try String(contentsOfFile: r.path("got"), encoding: .utf8) == expected)
        var info = stat()
        #expect(lstat(r.path("fifo"), &info) == 0 && info.st_mode & S_IFMT == S_IFIFO, "still a FIFO")
    }

    /// `-o /dev/stdout` writes to standard output, whatever it is: a pipe here, a regular file when
    /// redirected (then that file is replaced, the link stays). A link of its own to /proc/self/fd/1 stands
    /// in for /dev/stdout, which a vein without the fix would replace with a regular file.
    @Test func exportToDevStdoutWritesToStandardOutput() throws {
        let r = try store(posts: 5)
        defer { r.cleanUp() }
        try #require(symlink("/proc/self/fd/1", r.path("stdout")) == 0)
        let expected = try r.vein(["export", "s.vein", "--key-file", "k"]).stdout
        let result = try r.vein(["export", "s.vein", "-o", "stdout", "--key-file", "k", "-q"])
        #expect(result.status == 0 && result.stdout == expected, "\(result.stderr)")
        let redirected = try shell(r, "\"$0\" export s.vein -o stdout --key-file k -q > out.json; echo $?")
        #expect(redirected.stdout == "0\n", "\(redirected.stderr)")
        #expect(try String(contentsOfFile: r.path("out.json"), encoding: .utf8) == expected)
        var info = stat()
        #expect(lstat(r.path("stdout"), &info) == 0 && info.st_mode & S_IFMT == S_IFLNK, "the link stays")
    }

    func mode(_ path: String) -> (mode: mode_t, uid: uid_t, gid: gid_t) {
        var info = stat()
        _ = stat(path, &info)
        return (info.st_mode & 0o7777, info.st_uid, info.st_gid)
    }

    /// Plaintext outputs are the owner's alone when new; a file replaced keeps its mode, owner and group.
    @Test func plaintextOutputsAreCreated0600AndReplacedFilesKeepTheirMode() throws {
        let r = try store(posts: 2)
        defer { r.cleanUp() }
        #expect(try r.vein(["export", "s.vein", "-o", "new.json", "--key-file", "k"]).status == 0)
        #expect(mode(r.path("new.json")).mode == 0o600)
        try r.write("shared.json", "old", mode: 0o640)
        try #require(chown(r.path("shared.json"), 1234, 5678) == 0)
        #expect(try r.vein(["export", "s.vein", "-o", "shared.json", "--key-file", "k"]).status == 0)
        #expect(mode(r.path("shared.json")) == (0o640, 1234, 5678))
        #expect(try String(contentsOfFile: r.path("shared.json"), encoding: .utf8).hasPrefix("{\"vein\":2"))
        #expect(try r.vein(["decrypt", "s.vein", "plain.vein", "--key-file", "k"]).status == 0)
        #expect(mode(r.path("plain.vein")).mode == 0o600)
        #expect(try r.vein(["verify", "plain.vein", "-q"]).status == 0)
    }

    /// Rotation made the store a new inode owned by the rotating user with mode 0600.
    @Test func keyRotateKeepsModeOwnerAndGroup() throws {
        let r = try store(posts: 20)
        defer { r.cleanUp() }
        try #require(chmod(r.path("s.vein"), 0o660) == 0 && chown(r.path("s.vein"), 1234, 5678) == 0)
        let result = try r.vein(["key", "rotate", "s.vein", "--key-file", "k"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(mode(r.path("s.vein")) == (0o660, 1234, 5678))
        #expect(try r.vein(["verify", "s.vein", "--key-file", "k", "-q"]).status == 0)
    }

    /// Temporaries of a killed rotation's key file (`KEY.pending.writing-…`, also as older versions named
    /// them) are removed by the next rotation.
    @Test func keyRotateRemovesKeyTemporariesAKilledRotationLeft() throws {
        let r = try store(posts: 2)
        defer { r.cleanUp() }
        let leftovers = [".k.pending.writing-01J00000000000000000000000", "k.pending.writing-01J00000000000000000000000",
                         ".k.writing-01J00000000000000000000000"]
        for name in leftovers { try r.write(name, String(repeating: "ab", count: 32) + "\n", mode: 0o600) }
        #expect(try r.vein(["key", "rotate", "s.vein", "--key-file", "k", "-q"]).status == 0)
        let names = try FileManager.default.contentsOfDirectory(atPath: r.directory.path)
        #expect(names.filter { $0.contains("writing") }.isEmpty, "\(names)")
    }

    /// SIGTERM during a dry run removed nothing: its scratch copy stayed in the temporary directory.
    @Test func sigtermDuringADryRunRemovesItsScratchCopy() throws {
        let r = try store(posts: 4000)
        defer { r.cleanUp() }
        try FileManager.default.createDirectory(atPath: r.path("tmp"), withIntermediateDirectories: true)
        let plan = VeinRunner.packageRoot.appendingPathComponent("examples/migration/plan.json5").path
        let result = try shell(r, """
            TMPDIR="$PWD/tmp" "$0" migrate s.vein --plan '\(plan)' --dry-run --key-file k -q &
            pid=$!
            n=0; while [ -z "$(ls -A tmp)" ] && [ $n -lt 3000 ]; do n=$((n+1)); done
            kill -TERM $pid; wait $pid; echo "status $?"; ls -A tmp
            """)
        #expect(result.stdout == "status 143\n", "killed by SIGTERM, tmp empty: \(result.stdout) \(result.stderr)")
    }
}
