/*
 * The C baseline of bench/run: what Vein's model context does for "insert 50,000 objects of 10 int fields
 * in one save" and "fetch 200,000 of them", done by hand with prepared statements on the same SQLCipher.
 *
 *   gcc -O2 bench/c/context_bench.c -lsqlcipher -o .build/bench/context_bench
 *   .build/bench/context_bench DIR        (DIR: an existing, empty scratch directory)
 *
 * Prints one line per measurement, `c <operation> <variant> <median ms>`, e.g. `c insert encrypted 27.1`.
 * Each figure is the median of REPETITIONS runs. Only the work itself is timed: for insert, BEGIN through
 * COMMIT on a fresh file; for fetch, the SELECT stepped to the end with every row copied into a freshly
 * allocated struct array (as an ORM materializes objects), on a store filled before timing.
 */
#define _POSIX_C_SOURCE 200809L
#include <sqlcipher/sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

enum { FIELDS = 10, INSERT_ROWS = 50000, FETCH_ROWS = 200000, REPETITIONS = 5, ID_LENGTH = 26, MIGRATE_REPETITIONS = 3 };

/* The test key vein-bench uses (VEIN_KEY = 64 hex digits), given as a raw key like Vein gives it. */
static const char *key_pragma =
    "PRAGMA key = \"x'5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a'\"";

/* The DDL SchemaDDL.createTable generates for a model Row of ten non-optional int fields. */
static const char *create_sql =
    "CREATE TABLE \"Row\" (\n  \"_id\" TEXT PRIMARY KEY NOT NULL,\n"
    "  \"f0\" INTEGER NOT NULL,\n  \"f1\" INTEGER NOT NULL,\n  \"f2\" INTEGER NOT NULL,\n"
    "  \"f3\" INTEGER NOT NULL,\n  \"f4\" INTEGER NOT NULL,\n  \"f5\" INTEGER NOT NULL,\n"
    "  \"f6\" INTEGER NOT NULL,\n  \"f7\" INTEGER NOT NULL,\n  \"f8\" INTEGER NOT NULL,\n"
    "  \"f9\" INTEGER NOT NULL\n)";
static const char *insert_sql =
    "INSERT INTO \"Row\" (\"_id\", \"f0\", \"f1\", \"f2\", \"f3\", \"f4\", \"f5\", \"f6\", \"f7\", \"f8\", \"f9\")"
    " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";
static const char *select_sql =
    "SELECT \"_id\", \"f0\", \"f1\", \"f2\", \"f3\", \"f4\", \"f5\", \"f6\", \"f7\", \"f8\", \"f9\""
    " FROM \"Row\" ORDER BY \"_id\"";

typedef struct {
    char id[ID_LENGTH + 1];
    int64_t f[FIELDS];
} Row;

static const char *directory;

static void fail(sqlite3 *db, const char *what) {
    fprintf(stderr, "context_bench: %s: %s\n", what, db ? sqlite3_errmsg(db) : "out of memory");
    exit(1);
}

static void exec(sqlite3 *db, const char *sql) {
    char *message = NULL;
    if (sqlite3_exec(db, sql, NULL, NULL, &message) != SQLITE_OK) {
        fprintf(stderr, "context_bench: %s: %s\n", sql, message ? message : "?");
        exit(1);
    }
}

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static int compare_doubles(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *xs, int n) {
    qsort(xs, n, sizeof *xs, compare_doubles);
    return xs[n / 2];
}

/* ULID-like ids: a fixed 10-character time part, then a 16-digit Crockford base32 counter. The alphabet
 * is in ASCII order, so ids sort in the order they are made. `next_id` increments the counter in place. */
static const char crockford[] = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
static unsigned char digits[ID_LENGTH];  /* the counter's digit values, most significant first */

static void reset_ids(char *id) {
    memcpy(id, "01JDQ8ZK3M", 10);
    memset(digits, 0, sizeof digits);
    for (int i = 10; i < ID_LENGTH; i++) id[i] = '0';
    id[ID_LENGTH] = '\0';
}

static void next_id(char *id) {
    for (int i = ID_LENGTH - 1; i >= 10; i--) {
        if (++digits[i] < 32) { id[i] = crockford[digits[i]]; return; }
        digits[i] = 0;
        id[i] = '0';
    }
}

static sqlite3 *open_fresh(const char *name, int encrypted) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", directory, name);
    for (int k = 0; k < 3; k++) {  /* leftovers of an earlier run */
        char extra[4200];
        snprintf(extra, sizeof extra, "%s%s", path, (const char *[]){"", "-wal", "-shm"}[k]);
        unlink(extra);
    }
    sqlite3 *db = NULL;
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK)
        fail(db, path);
    if (encrypted) {
        exec(db, key_pragma);
        exec(db, "PRAGMA cipher_page_size = 4096");
    }
    exec(db, "PRAGMA journal_mode = WAL");
    exec(db, create_sql);
    return db;
}

/* Inserts `count` rows in one transaction with one prepared statement: BEGIN to COMMIT. */
static void insert_rows(sqlite3 *db, int count) {
    char id[ID_LENGTH + 1];
    reset_ids(id);
    exec(db, "BEGIN");
    sqlite3_stmt *insert = NULL;
    if (sqlite3_prepare_v2(db, insert_sql, -1, &insert, NULL) != SQLITE_OK) fail(db, "prepare insert");
    for (int n = 0; n < count; n++) {
        next_id(id);
        sqlite3_bind_text(insert, 1, id, ID_LENGTH, SQLITE_STATIC);
        for (int f = 0; f < FIELDS; f++) sqlite3_bind_int64(insert, 2 + f, (int64_t)n * 31 + f);
        if (sqlite3_step(insert) != SQLITE_DONE) fail(db, "insert");
        sqlite3_reset(insert);
    }
    sqlite3_finalize(insert);
    exec(db, "COMMIT");
}

/* Steps the whole SELECT into a newly allocated array of rows (the caller frees it); sets *count. */
static Row *fetch_rows(sqlite3 *db, int capacity, int *count) {
    Row *rows = malloc((size_t)capacity * sizeof *rows);
    if (!rows) fail(NULL, "malloc");
    sqlite3_stmt *select = NULL;
    if (sqlite3_prepare_v2(db, select_sql, -1, &select, NULL) != SQLITE_OK) fail(db, "prepare select");
    int n = 0, rc;
    while ((rc = sqlite3_step(select)) == SQLITE_ROW && n < capacity) {
        Row *row = &rows[n++];
        const unsigned char *text = sqlite3_column_text(select, 0);
        int length = sqlite3_column_bytes(select, 0);
        if (length > ID_LENGTH) length = ID_LENGTH;
        memcpy(row->id, text, length);
        row->id[length] = '\0';
        for (int f = 0; f < FIELDS; f++) row->f[f] = sqlite3_column_int64(select, 1 + f);
    }
    if (rc != SQLITE_ROW && rc != SQLITE_DONE) fail(db, "select");
    sqlite3_finalize(select);
    *count = n;
    return rows;
}

/* Outside the timing: every row came back, in id order, with the values inserted. */
static void check_rows(const Row *rows, int n) {
    if (n != FETCH_ROWS) fail(NULL, "fetch returned the wrong number of rows");
    for (int i = 0; i < n; i++) {
        if (rows[i].f[9] != (int64_t)i * 31 + 9) fail(NULL, "fetch returned the wrong values");
        if (i > 0 && strcmp(rows[i - 1].id, rows[i].id) >= 0) fail(NULL, "fetch returned rows out of order");
    }
}

static void measure(int encrypted) {
    const char *variant = encrypted ? "encrypted" : "plaintext";
    double times[REPETITIONS];
    char name[64];

    for (int r = 0; r < REPETITIONS; r++) {
        snprintf(name, sizeof name, "insert-%s-%d.db", variant, r);
        sqlite3 *db = open_fresh(name, encrypted);
        double start = now_ms();
        insert_rows(db, INSERT_ROWS);
        times[r] = now_ms() - start;
        sqlite3_close(db);
    }
    printf("c insert %s %.1f\n", variant, median(times, REPETITIONS));
    fflush(stdout);

    snprintf(name, sizeof name, "fetch-%s.db", variant);
    sqlite3 *db = open_fresh(name, encrypted);
    insert_rows(db, FETCH_ROWS);
    for (int r = 0; r < REPETITIONS; r++) {
        int n = 0;
        double start = now_ms();
        Row *rows = fetch_rows(db, FETCH_ROWS, &n);
        times[r] = now_ms() - start;
        check_rows(rows, n);
        free(rows);
    }
    sqlite3_close(db);
    printf("c fetch %s %.1f\n", variant, median(times, REPETITIONS));
    fflush(stdout);
}

/* The migration bench (issue 4): a lightweight stage over MIGRATE_ROWS rows, as Vein's stage runner does
 * it, by hand: in one transaction, create the new table (f0 renamed g0, a new field `extra` defaulting to
 * 0), copy every row with one INSERT … SELECT, drop the old table, rename the new one. Filling the table is
 * not timed. MIGRATE_ROWS can be lowered with the environment variable VEIN_BENCH_MIGRATE_ROWS. */
static void measure_migrate(int encrypted) {
    const char *variant = encrypted ? "encrypted" : "plaintext";
    const char *env = getenv("VEIN_BENCH_MIGRATE_ROWS");
    int rows = env ? atoi(env) : 1000000;
    double times[MIGRATE_REPETITIONS];
    char name[64];
    for (int r = 0; r < MIGRATE_REPETITIONS; r++) {
        snprintf(name, sizeof name, "migrate-%s-%d.db", variant, r);
        sqlite3 *db = open_fresh(name, encrypted);
        insert_rows(db, rows);
        double start = now_ms();
        exec(db, "BEGIN IMMEDIATE");
        exec(db, "CREATE TABLE \"_vein_new_Row\" (\n  \"_id\" TEXT PRIMARY KEY NOT NULL,\n"
                 "  \"g0\" INTEGER NOT NULL,\n  \"f1\" INTEGER NOT NULL,\n  \"f2\" INTEGER NOT NULL,\n"
                 "  \"f3\" INTEGER NOT NULL,\n  \"f4\" INTEGER NOT NULL,\n  \"f5\" INTEGER NOT NULL,\n"
                 "  \"f6\" INTEGER NOT NULL,\n  \"f7\" INTEGER NOT NULL,\n  \"f8\" INTEGER NOT NULL,\n"
                 "  \"f9\" INTEGER NOT NULL,\n  \"extra\" INTEGER NOT NULL DEFAULT 0\n)");
        exec(db, "INSERT INTO \"_vein_new_Row\" (\"_id\", \"g0\", \"f1\", \"f2\", \"f3\", \"f4\", \"f5\", \"f6\", \"f7\", \"f8\", \"f9\", \"extra\")"
                 " SELECT \"_id\", \"f0\", \"f1\", \"f2\", \"f3\", \"f4\", \"f5\", \"f6\", \"f7\", \"f8\", \"f9\", 0 FROM \"Row\"");
        exec(db, "DROP TABLE \"Row\"");
        exec(db, "ALTER TABLE \"_vein_new_Row\" RENAME TO \"Row\"");
        exec(db, "COMMIT");
        times[r] = now_ms() - start;
        sqlite3_close(db);
        snprintf(name, sizeof name, "%s/migrate-%s-%d.db", directory, variant, r);
        unlink(name);
    }
    printf("c migrate %s %.1f\n", variant, median(times, MIGRATE_REPETITIONS));
    fflush(stdout);
}

/* The relationship benches (issue 11), encrypted, the DDL store format 2 gives the blog models: a post's
 * attachments are the rows whose `post` names it, in the order of `_vein_pos_attachments`, both in one index.
 * link: LINK_ROWS attachments inserted into one post, LINK_BATCH per transaction, each at MAX(position) + 1
 * through the index (prints the total, and the median ms per batch over the first and the last 10 batches).
 * delete: the first DELETE_ROWS of them deleted by id in one transaction.
 * cascade: CASCADE_POSTS posts of 12 attachments each, deleted with their attachments in one transaction.
 * VEIN_BENCH_LINK_ROWS lowers LINK_ROWS (and DELETE_ROWS to a tenth of it) for quick runs. */
static const char *blog_sql[] = {
    "CREATE TABLE \"Post\" (\n  \"_id\" TEXT PRIMARY KEY NOT NULL,\n  \"title\" TEXT NOT NULL\n)",
    "CREATE TABLE \"Attachment\" (\n  \"_id\" TEXT PRIMARY KEY NOT NULL,\n  \"name\" TEXT NOT NULL,\n  \"sizeMiB\" REAL NOT NULL,\n"
    "  \"post\" TEXT,\n  \"_vein_pos_attachments\" INTEGER\n)",
    "CREATE INDEX \"Attachment.post._vein_pos_attachments\" ON \"Attachment\" (\"post\", \"_vein_pos_attachments\")",
};

static sqlite3_stmt *prepare(sqlite3 *db, const char *sql) {
    sqlite3_stmt *s = NULL;
    if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) != SQLITE_OK) fail(db, sql);
    return s;
}

static void step_done(sqlite3 *db, sqlite3_stmt *s) {
    if (sqlite3_step(s) != SQLITE_DONE) fail(db, sqlite3_sql(s));
    sqlite3_reset(s);
}

static sqlite3 *open_blog(const char *name) {
    sqlite3 *db = open_fresh(name, 1);
    for (int i = 0; i < 3; i++) exec(db, blog_sql[i]);
    return db;
}

static const char *insert_attachment_sql =
    "INSERT INTO \"Attachment\" (\"_id\", \"name\", \"sizeMiB\", \"post\", \"_vein_pos_attachments\") VALUES (?1, 'a.png', 1.5, ?2, "
    "(SELECT COALESCE(MAX(\"_vein_pos_attachments\"), 0) + 1 FROM \"Attachment\" WHERE \"post\" = ?2))";

static void measure_relationships(void) {
    const char *env = getenv("VEIN_BENCH_LINK_ROWS");
    int link_rows = env ? atoi(env) : 1000000, batch = 1000, batches = link_rows / batch, delete_rows = link_rows / 10;
    int cascade_posts = 10000;
    char id[ID_LENGTH + 1], post[ID_LENGTH + 1];
    double *batch_ms = malloc(sizeof(double) * batches);

    sqlite3 *db = open_blog("link.db");
    reset_ids(id);
    next_id(id);
    memcpy(post, id, sizeof post);
    exec(db, "BEGIN");
    sqlite3_stmt *insert_post = prepare(db, "INSERT INTO \"Post\" (\"_id\", \"title\") VALUES (?, 'p')");
    sqlite3_bind_text(insert_post, 1, post, ID_LENGTH, SQLITE_STATIC);
    step_done(db, insert_post);
    exec(db, "COMMIT");
    sqlite3_stmt *insert = prepare(db, insert_attachment_sql);
    double start = now_ms();
    for (int b = 0; b < batches; b++) {
        double t = now_ms();
        exec(db, "BEGIN");
        for (int n = 0; n < batch; n++) {
            next_id(id);
            sqlite3_bind_text(insert, 1, id, ID_LENGTH, SQLITE_TRANSIENT);
            sqlite3_bind_text(insert, 2, post, ID_LENGTH, SQLITE_STATIC);
            step_done(db, insert);
        }
        exec(db, "COMMIT");
        batch_ms[b] = now_ms() - t;
    }
    double total = now_ms() - start;
    int k = batches < 10 ? batches : 10;
    printf("c link encrypted %.1f\n", total);
    printf("c link-first1000 encrypted %.2f\n", median(batch_ms, k));
    printf("c link-last1000 encrypted %.2f\n", median(batch_ms + batches - k, k));
    fflush(stdout);
    sqlite3_finalize(insert);

    /* The first delete_rows attachments by id. */
    sqlite3_stmt *del = prepare(db, "DELETE FROM \"Attachment\" WHERE \"_id\" = ?");
    reset_ids(id);
    next_id(id);
    start = now_ms();
    exec(db, "BEGIN");
    for (int n = 0; n < delete_rows; n++) {
        next_id(id);
        sqlite3_bind_text(del, 1, id, ID_LENGTH, SQLITE_TRANSIENT);
        step_done(db, del);
    }
    exec(db, "COMMIT");
    printf("c delete encrypted %.1f\n", now_ms() - start);
    fflush(stdout);
    sqlite3_finalize(del);
    sqlite3_finalize(insert_post);
    sqlite3_close(db);

    db = open_blog("cascade.db");
    insert_post = prepare(db, "INSERT INTO \"Post\" (\"_id\", \"title\") VALUES (?, 'p')");
    insert = prepare(db, insert_attachment_sql);
    char (*posts)[ID_LENGTH + 1] = malloc((size_t)cascade_posts * (ID_LENGTH + 1));
    reset_ids(id);
    exec(db, "BEGIN");
    for (int p = 0; p < cascade_posts; p++) {
        next_id(id);
        memcpy(posts[p], id, ID_LENGTH + 1);
        sqlite3_bind_text(insert_post, 1, posts[p], ID_LENGTH, SQLITE_STATIC);
        step_done(db, insert_post);
        for (int a = 0; a < 12; a++) {
            next_id(id);
            sqlite3_bind_text(insert, 1, id, ID_LENGTH, SQLITE_TRANSIENT);
            sqlite3_bind_text(insert, 2, posts[p], ID_LENGTH, SQLITE_STATIC);
            step_done(db, insert);
        }
    }
    exec(db, "COMMIT");
    sqlite3_stmt *del_members = prepare(db, "DELETE FROM \"Attachment\" WHERE \"post\" = ?");
    sqlite3_stmt *del_post = prepare(db, "DELETE FROM \"Post\" WHERE \"_id\" = ?");
    start = now_ms();
    exec(db, "BEGIN");
    for (int p = 0; p < cascade_posts; p++) {
        sqlite3_bind_text(del_members, 1, posts[p], ID_LENGTH, SQLITE_STATIC);
        step_done(db, del_members);
        sqlite3_bind_text(del_post, 1, posts[p], ID_LENGTH, SQLITE_STATIC);
        step_done(db, del_post);
    }
    exec(db, "COMMIT");
    printf("c cascade encrypted %.1f\n", now_ms() - start);
    fflush(stdout);
    sqlite3_finalize(del_members);
    sqlite3_finalize(del_post);
    sqlite3_finalize(insert);
    sqlite3_finalize(insert_post);
    sqlite3_close(db);
    free(posts);
    free(batch_ms);
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: context_bench DIRECTORY\n");
        return 64;
    }
    directory = argv[1];
    if (!getenv("VEIN_BENCH_ONLY_RELATIONSHIPS")) {
        measure(1);
        measure(0);
        measure_migrate(1);
    }
    measure_relationships();
    return 0;
}
