// See include/vein_fault_vfs.h. The wrapper forwards every call to the default VFS's file; a call on a
// file under the armed directory first asks `decide`, which counts it and says whether it fails.
#define SQLITE_HAS_CODEC 1
#include <sqlcipher/sqlite3.h>

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "vein_fault_vfs.h"

// SQLite's calls, numbered for vein_fault_failed_kind (100 + these).
enum sqlite_call { CALL_OPEN = 1, CALL_DELETE, CALL_READ, CALL_WRITE, CALL_TRUNCATE, CALL_SYNC, CALL_FILE_SIZE,
                   CALL_LOCK, CALL_SHM_MAP };

static pthread_mutex_t state_lock = PTHREAD_MUTEX_INITIALIZER;
static atomic_int armed;               // read without the lock: the pass-through path takes no lock
static char armed_directory[4096];
static size_t armed_directory_length;
static vein_fault_mode armed_mode;
static int armed_domains;
static long long fault_at;
static long long counted;
static int reached;
static int failed_kind;
static int power_lost;
static long long syncs_after_power_loss;

static sqlite3_vfs *base_vfs;

/// Whether `path` is the armed directory or below it. Called with the lock held.
static int in_scope(const char *path) {
    return path && strncmp(path, armed_directory, armed_directory_length) == 0
        && (path[armed_directory_length] == '/' || path[armed_directory_length] == 0);
}

typedef enum { PROCEED, FAIL, SKIP } decision;

/// Counts one call (`kind` as vein_fault_failed_kind numbers it) and decides it. `changes_disk`: dropped
/// once the power is lost; `can_fill`: counted for disk-full faults; `is_sync`: makes earlier changes
/// durable (counted for power loss).
static decision decide(int domain, int kind, const char *path, int changes_disk, int can_fill, int is_sync) {
    if (!atomic_load_explicit(&armed, memory_order_acquire)) return PROCEED;
    pthread_mutex_lock(&state_lock);
    decision result = PROCEED;
    if (atomic_load(&armed) && (armed_domains & domain) && in_scope(path)) {
        if (power_lost) {
            if (is_sync) syncs_after_power_loss++;
            result = (changes_disk || is_sync) ? SKIP : PROCEED;
        } else {
            int counts;
            switch (armed_mode) {
            case VEIN_FAULT_DISK_FULL: counts = can_fill; break;
            case VEIN_FAULT_POWER_LOSS: counts = is_sync; break;
            default: counts = 1;
            }
            if (counts && ++counted == fault_at) {
                reached = 1;
                failed_kind = kind;
                if (armed_mode == VEIN_FAULT_POWER_LOSS) power_lost = 1;  // this sync still reaches the disk
                else result = FAIL;
            }
        }
    }
    pthread_mutex_unlock(&state_lock);
    return result;
}

static decision decide_sqlite(enum sqlite_call call, const char *path, int changes_disk, int is_sync) {
    return decide(VEIN_FAULT_SQLITE, 100 + call, path, changes_disk, call == CALL_WRITE, is_sync);
}

// MARK: the file wrapper

typedef struct {
    sqlite3_file base;
    const char *path;     // SQLite keeps the name alive for as long as the file is open
    sqlite3_file *real;   // the default VFS's file, allocated right after this struct
} fault_file;

#define REAL(file) (((fault_file *)(file))->real)
#define PATH(file) (((fault_file *)(file))->path)

static int fault_close(sqlite3_file *file) {
    int rc = REAL(file)->pMethods ? REAL(file)->pMethods->xClose(REAL(file)) : SQLITE_OK;
    file->pMethods = 0;
    return rc;
}

static int fault_read(sqlite3_file *file, void *buffer, int amount, sqlite3_int64 offset) {
    if (decide_sqlite(CALL_READ, PATH(file), 0, 0) == FAIL) return SQLITE_IOERR_READ;
    return REAL(file)->pMethods->xRead(REAL(file), buffer, amount, offset);
}

static int fault_write(sqlite3_file *file, const void *buffer, int amount, sqlite3_int64 offset) {
    switch (decide_sqlite(CALL_WRITE, PATH(file), 1, 0)) {
    case FAIL: return armed_mode == VEIN_FAULT_DISK_FULL ? SQLITE_FULL : SQLITE_IOERR_WRITE;
    case SKIP: return SQLITE_OK;
    default: return REAL(file)->pMethods->xWrite(REAL(file), buffer, amount, offset);
    }
}

static int fault_truncate(sqlite3_file *file, sqlite3_int64 size) {
    switch (decide_sqlite(CALL_TRUNCATE, PATH(file), 1, 0)) {
    case FAIL: return SQLITE_IOERR_TRUNCATE;
    case SKIP: return SQLITE_OK;
    default: return REAL(file)->pMethods->xTruncate(REAL(file), size);
    }
}

static int fault_sync(sqlite3_file *file, int flags) {
    switch (decide_sqlite(CALL_SYNC, PATH(file), 0, 1)) {
    case FAIL: return SQLITE_IOERR_FSYNC;
    case SKIP: return SQLITE_OK;
    default: return REAL(file)->pMethods->xSync(REAL(file), flags);
    }
}

static int fault_file_size(sqlite3_file *file, sqlite3_int64 *size) {
    if (decide_sqlite(CALL_FILE_SIZE, PATH(file), 0, 0) == FAIL) return SQLITE_IOERR_FSTAT;
    return REAL(file)->pMethods->xFileSize(REAL(file), size);
}

static int fault_lock(sqlite3_file *file, int level) {
    if (decide_sqlite(CALL_LOCK, PATH(file), 0, 0) == FAIL) return SQLITE_IOERR_LOCK;
    return REAL(file)->pMethods->xLock(REAL(file), level);
}

static int fault_unlock(sqlite3_file *file, int level) {
    return REAL(file)->pMethods->xUnlock(REAL(file), level);
}

static int fault_check_reserved_lock(sqlite3_file *file, int *result) {
    return REAL(file)->pMethods->xCheckReservedLock(REAL(file), result);
}

static int fault_file_control(sqlite3_file *file, int op, void *argument) {
    return REAL(file)->pMethods->xFileControl(REAL(file), op, argument);
}

static int fault_sector_size(sqlite3_file *file) {
    return REAL(file)->pMethods->xSectorSize(REAL(file));
}

static int fault_device_characteristics(sqlite3_file *file) {
    return REAL(file)->pMethods->xDeviceCharacteristics(REAL(file));
}

static int fault_shm_map(sqlite3_file *file, int region, int size, int extend, void volatile **memory) {
    if (decide_sqlite(CALL_SHM_MAP, PATH(file), 0, 0) == FAIL) return SQLITE_IOERR_SHMMAP;
    return REAL(file)->pMethods->xShmMap(REAL(file), region, size, extend, memory);
}

static int fault_shm_lock(sqlite3_file *file, int offset, int n, int flags) {
    return REAL(file)->pMethods->xShmLock(REAL(file), offset, n, flags);
}

static void fault_shm_barrier(sqlite3_file *file) {
    REAL(file)->pMethods->xShmBarrier(REAL(file));
}

static int fault_shm_unmap(sqlite3_file *file, int delete_flag) {
    return REAL(file)->pMethods->xShmUnmap(REAL(file), delete_flag);
}

/// No memory-mapped reads: every read goes through xRead, where it is counted.
static int fault_fetch(sqlite3_file *file, sqlite3_int64 offset, int amount, void **pointer) {
    (void)file; (void)offset; (void)amount;
    *pointer = 0;
    return SQLITE_OK;
}

static int fault_unfetch(sqlite3_file *file, sqlite3_int64 offset, void *pointer) {
    (void)file; (void)offset; (void)pointer;
    return SQLITE_OK;
}

static const sqlite3_io_methods fault_methods = {
    3, fault_close, fault_read, fault_write, fault_truncate, fault_sync, fault_file_size, fault_lock,
    fault_unlock, fault_check_reserved_lock, fault_file_control, fault_sector_size,
    fault_device_characteristics, fault_shm_map, fault_shm_lock, fault_shm_barrier, fault_shm_unmap,
    fault_fetch, fault_unfetch,
};

// MARK: the VFS

static int fault_open(sqlite3_vfs *vfs, const char *name, sqlite3_file *file, int flags, int *out_flags) {
    (void)vfs;
    fault_file *wrapper = (fault_file *)file;
    wrapper->base.pMethods = 0;
    wrapper->path = name;
    wrapper->real = (sqlite3_file *)(wrapper + 1);
    if (decide_sqlite(CALL_OPEN, name, 0, 0) == FAIL) return SQLITE_CANTOPEN;
    int rc = base_vfs->xOpen(base_vfs, name, wrapper->real, flags, out_flags);
    // A failed open may still have methods to close with; SQLite calls xClose when pMethods is set.
    if (wrapper->real->pMethods) wrapper->base.pMethods = &fault_methods;
    return rc;
}

static int fault_delete(sqlite3_vfs *vfs, const char *name, int sync_directory) {
    (void)vfs;
    switch (decide_sqlite(CALL_DELETE, name, 1, 0)) {
    case FAIL: return SQLITE_IOERR_DELETE;
    case SKIP: return SQLITE_OK;
    default: return base_vfs->xDelete(base_vfs, name, sync_directory);
    }
}

static int fault_access(sqlite3_vfs *vfs, const char *name, int flags, int *result) {
    (void)vfs;
    return base_vfs->xAccess(base_vfs, name, flags, result);
}

static int fault_full_pathname(sqlite3_vfs *vfs, const char *name, int size, char *out) {
    (void)vfs;
    return base_vfs->xFullPathname(base_vfs, name, size, out);
}

static void *fault_dl_open(sqlite3_vfs *vfs, const char *name) { (void)vfs; return base_vfs->xDlOpen(base_vfs, name); }
static void fault_dl_error(sqlite3_vfs *vfs, int size, char *message) { (void)vfs; base_vfs->xDlError(base_vfs, size, message); }
static void (*fault_dl_sym(sqlite3_vfs *vfs, void *handle, const char *symbol))(void) {
    (void)vfs;
    return base_vfs->xDlSym(base_vfs, handle, symbol);
}
static void fault_dl_close(sqlite3_vfs *vfs, void *handle) { (void)vfs; base_vfs->xDlClose(base_vfs, handle); }
static int fault_randomness(sqlite3_vfs *vfs, int size, char *out) { (void)vfs; return base_vfs->xRandomness(base_vfs, size, out); }
static int fault_sleep(sqlite3_vfs *vfs, int microseconds) { (void)vfs; return base_vfs->xSleep(base_vfs, microseconds); }
static int fault_current_time(sqlite3_vfs *vfs, double *now) { (void)vfs; return base_vfs->xCurrentTime(base_vfs, now); }
static int fault_get_last_error(sqlite3_vfs *vfs, int size, char *out) {
    (void)vfs;
    return base_vfs->xGetLastError ? base_vfs->xGetLastError(base_vfs, size, out) : 0;
}
static int fault_current_time_int64(sqlite3_vfs *vfs, sqlite3_int64 *now) {
    (void)vfs;
    return base_vfs->xCurrentTimeInt64(base_vfs, now);
}

static sqlite3_vfs fault_vfs;
static pthread_once_t install_once = PTHREAD_ONCE_INIT;
static int install_result;

static void install(void) {
    base_vfs = sqlite3_vfs_find(0);
    if (!base_vfs || base_vfs->iVersion < 2) { install_result = SQLITE_ERROR; return; }
    fault_vfs = (sqlite3_vfs){
        .iVersion = 2,
        .szOsFile = (int)sizeof(fault_file) + base_vfs->szOsFile,
        .mxPathname = base_vfs->mxPathname,
        .zName = "vein-fault",
        .xOpen = fault_open, .xDelete = fault_delete, .xAccess = fault_access, .xFullPathname = fault_full_pathname,
        .xDlOpen = fault_dl_open, .xDlError = fault_dl_error, .xDlSym = fault_dl_sym, .xDlClose = fault_dl_close,
        .xRandomness = fault_randomness, .xSleep = fault_sleep, .xCurrentTime = fault_current_time,
        .xGetLastError = fault_get_last_error, .xCurrentTimeInt64 = fault_current_time_int64,
    };
    install_result = sqlite3_vfs_register(&fault_vfs, 1);
}

int vein_fault_vfs_install(void) {
    pthread_once(&install_once, install);
    return install_result;
}

// MARK: arming and the file seam

void vein_fault_arm(const char *directory, vein_fault_mode mode, int domains, long long n) {
    pthread_mutex_lock(&state_lock);
    strncpy(armed_directory, directory, sizeof armed_directory - 1);
    armed_directory[sizeof armed_directory - 1] = 0;
    armed_directory_length = strlen(armed_directory);
    while (armed_directory_length > 1 && armed_directory[armed_directory_length - 1] == '/') {
        armed_directory[--armed_directory_length] = 0;
    }
    armed_mode = mode;
    armed_domains = domains;
    fault_at = n;
    counted = 0;
    reached = 0;
    failed_kind = 0;
    power_lost = 0;
    syncs_after_power_loss = 0;
    atomic_store(&armed, 1);
    pthread_mutex_unlock(&state_lock);
}

void vein_fault_disarm(void) {
    pthread_mutex_lock(&state_lock);
    atomic_store(&armed, 0);
    pthread_mutex_unlock(&state_lock);
}

long long vein_fault_count(void) {
    pthread_mutex_lock(&state_lock);
    long long result = counted;
    pthread_mutex_unlock(&state_lock);
    return result;
}

int vein_fault_reached(void) {
    pthread_mutex_lock(&state_lock);
    int result = reached;
    pthread_mutex_unlock(&state_lock);
    return result;
}

int vein_fault_failed_kind(void) {
    pthread_mutex_lock(&state_lock);
    int result = failed_kind;
    pthread_mutex_unlock(&state_lock);
    return result;
}

long long vein_fault_syncs_after_power_loss(void) {
    pthread_mutex_lock(&state_lock);
    long long result = syncs_after_power_loss;
    pthread_mutex_unlock(&state_lock);
    return result;
}

vein_file_decision vein_fault_file_call(vein_file_call kind, const char *path, int *error_number) {
    int is_sync = kind == VEIN_FILE_SYNC || kind == VEIN_FILE_SYNC_DIRECTORY;
    // What changes the disk: dropped after a power loss; what can run out of space: counted for disk-full.
    int changes_disk = kind == VEIN_FILE_WRITE || kind == VEIN_FILE_LINK || kind == VEIN_FILE_RENAME
        || kind == VEIN_FILE_UNLINK || kind == VEIN_FILE_ATTRIBUTES || kind == VEIN_KEYRING_CHANGE;
    int can_fill = kind == VEIN_FILE_WRITE || kind == VEIN_FILE_CREATE || kind == VEIN_FILE_LINK || kind == VEIN_FILE_RENAME
        || kind == VEIN_KEYRING_CHANGE;
    switch (decide(VEIN_FAULT_FILE_SEAM, kind, path, changes_disk, can_fill, is_sync)) {
    case FAIL:
        *error_number = armed_mode == VEIN_FAULT_DISK_FULL ? ENOSPC : EIO;
        return VEIN_FILE_FAIL;
    case SKIP: return VEIN_FILE_SKIP;
    default: return VEIN_FILE_PROCEED;
    }
}
