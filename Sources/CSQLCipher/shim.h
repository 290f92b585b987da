// SQLCipher ships its own sqlite3.h under include/sqlcipher. Naming the folder keeps the
// plain SQLite header (if libsqlite3-dev is also installed) from being picked up by mistake.
// SQLITE_HAS_CODEC declares sqlite3_key, which takes the key from a buffer Vein can wipe (PRAGMA key
// would copy it into SQL text).
#define SQLITE_HAS_CODEC 1
#include <sqlcipher/sqlite3.h>

// SQLITE_TRANSIENT is a macro casting -1 to a function pointer, which Swift cannot import.
#include <stdint.h>
static inline sqlite3_destructor_type vein_sqlite_transient(void) { return (sqlite3_destructor_type)(intptr_t)-1; }

// sqlite3_db_config is variadic, which Swift cannot call. Turns the connection's triggers on or off
// (every prepared statement is prepared again after a change).
static inline int vein_enable_triggers(sqlite3 *db, int on) {
    return sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_TRIGGER, on, (int *)0);
}
