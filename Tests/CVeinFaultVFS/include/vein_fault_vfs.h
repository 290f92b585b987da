#ifndef VEIN_FAULT_VFS_H
#define VEIN_FAULT_VFS_H

// A test-only SQLite VFS in the manner of SQLite's own ioerr and crash tests: it wraps the default (unix)
// VFS, counts the I/O calls made on files under one armed directory, and makes the Nth of them fail (or,
// for power loss, makes every change after the Nth sync vanish). The same counter serves the engine's
// file seam (FileCalls), whose calls the Swift side reports through vein_fault_file_call.
//
// Only files under the armed directory count: other tests of the same process keep using SQLite through
// this VFS meanwhile, untouched.

/// What the Nth call does.
typedef enum {
    /// The Nth call fails with an I/O error (SQLITE_IOERR_*, EIO); later calls succeed.
    VEIN_FAULT_IO_ERROR = 1,
    /// The Nth call that writes fails as on a full disk (SQLITE_FULL, ENOSPC); only writes are counted.
    VEIN_FAULT_DISK_FULL = 2,
    /// Power is lost after the Nth sync: every later write, truncation, deletion, rename or link is
    /// dropped while reporting success, as the disk never saw it. Only syncs are counted.
    VEIN_FAULT_POWER_LOSS = 3,
} vein_fault_mode;

/// Which calls count.
enum {
    /// xOpen, xDelete, xRead, xWrite, xTruncate, xSync, xFileSize, xLock and xShmMap of SQLite.
    VEIN_FAULT_SQLITE = 1,
    /// The engine's own file calls (FileCalls): writes, fsyncs, renames, links, unlinks…
    VEIN_FAULT_FILE_SEAM = 2,
};

/// The kinds of file-seam calls (FileCalls.Kind in Swift, same numbers).
typedef enum {
    VEIN_FILE_CREATE = 1,
    VEIN_FILE_WRITE = 2,
    VEIN_FILE_SYNC = 3,
    VEIN_FILE_SYNC_DIRECTORY = 4,
    VEIN_FILE_CLOSE = 5,
    VEIN_FILE_ATTRIBUTES = 6,
    VEIN_FILE_LINK = 7,
    VEIN_FILE_RENAME = 8,
    VEIN_FILE_UNLINK = 9,
    /// The test keyring's calls (Tests/VeinCLITests/FaultKeyring.swift), outside SQLite as the file calls are.
    VEIN_KEYRING_LOOKUP = 10,
    VEIN_KEYRING_CHANGE = 11,
} vein_file_call;

/// What a file-seam call does.
typedef enum {
    VEIN_FILE_PROCEED = 0,
    /// Fail with the errno vein_fault_file_call stored.
    VEIN_FILE_FAIL = 1,
    /// Report success without doing it (power is off).
    VEIN_FILE_SKIP = 2,
} vein_file_decision;

/// Registers the VFS as the default, once per process. Returns SQLITE_OK or SQLite's error code.
int vein_fault_vfs_install(void);

/// Starts counting the calls of `domains` on files under `directory` (an absolute, symlink-free path);
/// the `fault_at`th call does what `mode` says (0: none, only count).
void vein_fault_arm(const char *directory, vein_fault_mode mode, int domains, long long fault_at);

/// Stops counting; the VFS passes everything through again.
void vein_fault_disarm(void);

/// Calls counted since arming (writes only for VEIN_FAULT_DISK_FULL, syncs only for power loss).
long long vein_fault_count(void);

/// Whether the `fault_at`th call came (and failed, or cut the power).
int vein_fault_reached(void);

/// The kind of the call that failed: a vein_file_call for the seam, or 100 + an SQLite call number
/// (see vein_fault_vfs.c), 0 before one failed.
int vein_fault_failed_kind(void);

/// Syncs asked for after the power was lost (each reported success without reaching the disk).
long long vein_fault_syncs_after_power_loss(void);

/// The seam's question for one call on `path` (a store's path for the keyring): proceed, fail (with
/// *error_number set), or skip.
vein_file_decision vein_fault_file_call(vein_file_call kind, const char *path, int *error_number);

#endif
