#include "vein_secret.h"
#include "secret_abi.h"
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// libsecret is opened at first use, not linked: it brings GLib, GObject and GIO (a dozen libraries) whose
// loading and symbol relocation every `vein` process paid at start, while only the keyring key source needs
// them. Prototypes, constants and layouts come from secret_abi.h, checked against libsecret's headers.

// Fields are prefixed so that a GLib function-like macro of the same name could never expand at a call.
#define VEIN_SECRET_FIELD(name, result, parameters) vein_fn_##name call_##name;
static struct { VEIN_SECRET_FUNCTIONS(VEIN_SECRET_FIELD) } lib;

static pthread_once_t lib_once = PTHREAD_ONCE_INIT;
// Empty once every function was found; otherwise why not. Read only after pthread_once, never changed after.
static char lib_failure[512];

static void lib_load(void) {
    // Never dlclosed: GLib registers types and threads that cannot be unloaded.
    void *handle = dlopen("libsecret-1.so.0", RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
        const char *why = dlerror();
        snprintf(lib_failure, sizeof lib_failure, "no Secret Service library: %s", why ? why : "libsecret-1.so.0 not found");
        return;
    }
    // dlsym on the handle searches libsecret and the libraries it needs, so GLib's functions are found too.
#define VEIN_SECRET_LOOKUP(name, result, parameters) \
    lib.call_##name = (vein_fn_##name)dlsym(handle, #name); \
    if (!lib.call_##name) { \
        snprintf(lib_failure, sizeof lib_failure, "no Secret Service library: libsecret-1.so.0 lacks %s", #name); \
        memset(&lib, 0, sizeof lib); \
        return; \
    }
    VEIN_SECRET_FUNCTIONS(VEIN_SECRET_LOOKUP)
}

/// 0 when libsecret is usable; otherwise -1 with the reason in *error_out (the "unavailable" path, like a missing bus).
static int lib_ready(char **error_out) {
    pthread_once(&lib_once, lib_load);
    if (lib_failure[0] == '\0') return 0;
    if (error_out) *error_out = strdup(lib_failure);
    return -1;
}

// The schema name is part of every item's attributes (xdg:schema), so it must never change:
// items written by one version of Vein have to be found by every later one.
static const SecretSchema *vein_schema(void) {
    static const SecretSchema schema = {
        "org.vein.StoreKey", VEIN_SECRET_SCHEMA_NONE,
        {
            { "app", VEIN_SECRET_SCHEMA_ATTRIBUTE_STRING },
            { "store", VEIN_SECRET_SCHEMA_ATTRIBUTE_STRING },
            { "state", VEIN_SECRET_SCHEMA_ATTRIBUTE_STRING },
            // Added later (an item written before lacks them, and is still found): a retired key's date
            // and where the store's key went; a backup record's backup path, date and key fingerprint.
            { "retired", VEIN_SECRET_SCHEMA_ATTRIBUTE_STRING },
            { "moved-to", VEIN_SECRET_SCHEMA_ATTRIBUTE_STRING },
            { "key-file", VEIN_SECRET_SCHEMA_ATTRIBUTE_STRING },
            { "backup", VEIN_SECRET_SCHEMA_ATTRIBUTE_STRING },
            { "created", VEIN_SECRET_SCHEMA_ATTRIBUTE_STRING },
            { "fingerprint", VEIN_SECRET_SCHEMA_ATTRIBUTE_STRING },
            // What the item's secret opens when it is not a store's key (store keys carry none, as they did before
            // kinds existed, so one store never has two current items): "backup", later "sync";
            // a backup key's id.
            { "kind", VEIN_SECRET_SCHEMA_ATTRIBUTE_STRING },
            { "key-id", VEIN_SECRET_SCHEMA_ATTRIBUTE_STRING },
            // A backup key made for the backup ("own") or derived from its store's key ("derived").
            { "origin", VEIN_SECRET_SCHEMA_ATTRIBUTE_STRING },
            // A sync key's sync id (kind "sync").
            { "sync", VEIN_SECRET_SCHEMA_ATTRIBUTE_STRING },
            { NULL, 0 },
        }
    };
    return &schema;
}

static int fail(GError *error, char **error_out) {
    // A locked collection is its own answer ("the keyring is locked", never "no key": ARCHITECTURE.md I10).
    int code = error && lib.call_g_error_matches(error, lib.call_secret_error_get_quark(), VEIN_SECRET_ERROR_IS_LOCKED)
        ? VEIN_SECRET_LOCKED : -1;
    if (error_out) {
        *error_out = strdup(error && error->message ? error->message : "unknown Secret Service error");
    }
    if (error) lib.call_g_error_free(error);
    return code;
}

int vein_secret_store(const char *app, const char *store_path, const char *state,
                      const char *label, const char *secret, char **error_out) {
    if (lib_ready(error_out) != 0) return -1;
    GError *error = NULL;
    gboolean ok = lib.call_secret_password_store_sync(vein_schema(), VEIN_SECRET_COLLECTION_DEFAULT, label, secret,
                                                      NULL, &error,
                                                      "app", app, "store", store_path, "state", state, NULL);
    if (!ok || error) return fail(error, error_out);
    return 0;
}

// A table of name/value pairs (a NULL-terminated array of alternating names and values) that borrows the
// strings: it must not outlive them.
static GHashTable *attribute_table(const char *const *pairs) {
    GHashTable *table = lib.call_g_hash_table_new(lib.call_g_str_hash, lib.call_g_str_equal);
    for (const char *const *p = pairs; p && p[0] && p[1]; p += 2) lib.call_g_hash_table_insert(table, (gpointer)p[0], (gpointer)p[1]);
    return table;
}

// Every Vein item whose attributes include `match`, unlocked and with its secret loaded; NULL with *code set
// (-1 or VEIN_SECRET_LOCKED) on failure, NULL with *code 0 when there are none.
// Not secret_password_lookup_sync: when the collection stays locked (the unlock prompt was dismissed or
// could not be shown) it returns no secret and no error, which would read as "no such item". Searching for
// the items themselves tells "none" from "there, but locked".
static GList *search(const char *const *match, int *code, char **error_out) {
    *code = 0;
    GError *error = NULL;
    SecretService *service = lib.call_secret_service_get_sync(VEIN_SECRET_SERVICE_OPEN_SESSION, NULL, &error);
    if (!service) { *code = fail(error, error_out); return NULL; }
    GHashTable *attributes = attribute_table(match);
    GList *items = lib.call_secret_service_search_sync(service, vein_schema(), attributes,
                                                       VEIN_SECRET_SEARCH_ALL | VEIN_SECRET_SEARCH_UNLOCK | VEIN_SECRET_SEARCH_LOAD_SECRETS,
                                                       NULL, &error);
    lib.call_g_hash_table_unref(attributes);
    lib.call_g_object_unref(service);
    if (error) {
        lib.call_g_list_free_full(items, lib.call_g_object_unref);
        *code = fail(error, error_out);
        return NULL;
    }
    for (GList *l = items; l; l = l->next) {
        if (lib.call_secret_item_get_locked(l->data)) {
            lib.call_g_list_free_full(items, lib.call_g_object_unref);
            if (error_out) *error_out = strdup("the collection holding the key is locked");
            *code = VEIN_SECRET_LOCKED;
            return NULL;
        }
    }
    return items;
}

int vein_secret_lookup(const char *store_path, const char *state, char **secret_out, char **error_out) {
    if (lib_ready(error_out) != 0) return -1;
    const char *match[] = { "store", store_path, "state", state, NULL };
    int result;
    GList *items = search(match, &result, error_out);
    if (result != 0) return result;
    for (GList *l = items; l && result == 0; l = l->next) {
        // Only a store's key: an item of another kind never opens a store (items from before kinds are stores').
        GHashTable *attributes = lib.call_secret_item_get_attributes(l->data);
        const char *kind = attributes ? lib.call_g_hash_table_lookup(attributes, "kind") : NULL;
        int other_kind = kind && strcmp(kind, "store") != 0;
        if (attributes) lib.call_g_hash_table_unref(attributes);
        if (other_kind) continue;
        SecretValue *value = lib.call_secret_item_get_secret(l->data);
        const gchar *text = value ? lib.call_secret_value_get_text(value) : NULL;
        if (text) {
            *secret_out = strdup(text);  // wiped by vein_secret_free_secret
            result = *secret_out ? 1 : -1;
        }
        if (value) lib.call_secret_value_unref(value);
    }
    lib.call_g_list_free_full(items, lib.call_g_object_unref);
    if (result == -1 && error_out) *error_out = strdup("out of memory copying the key");
    return result;
}

int vein_secret_clear(const char *store_path, const char *state, char **error_out) {
    if (lib_ready(error_out) != 0) return -1;
    GError *error = NULL;
    gboolean removed = lib.call_secret_password_clear_sync(vein_schema(), NULL, &error,
                                                           "store", store_path, "state", state, NULL);
    if (error) return fail(error, error_out);
    return removed ? 1 : 0;
}

int vein_secret_search(const char *const *match, vein_secret_visitor visit, void *context, char **error_out) {
    if (lib_ready(error_out) != 0) return -1;
    int code;
    GList *items = search(match, &code, error_out);
    if (code != 0) return code;
    int count = 0;
    for (GList *l = items; l; l = l->next, count++) {
        SecretItem *item = l->data;
        GHashTable *attributes = lib.call_secret_item_get_attributes(item);
        GList *names = attributes ? lib.call_g_hash_table_get_keys(attributes) : NULL;
        int pairs = 0;
        for (GList *n = names; n; n = n->next) pairs++;
        const char **flat = calloc(2 * (size_t)pairs + 1, sizeof *flat);
        if (!flat) {
            code = -1;
        } else {
            int i = 0;
            for (GList *n = names; n; n = n->next) {
                flat[i++] = n->data;
                flat[i++] = lib.call_g_hash_table_lookup(attributes, n->data);
            }
            SecretValue *value = lib.call_secret_item_get_secret(item);
            visit(context, flat, value ? lib.call_secret_value_get_text(value) : NULL);
            if (value) lib.call_secret_value_unref(value);
            free(flat);
        }
        if (names) lib.call_g_list_free(names);
        if (attributes) lib.call_g_hash_table_unref(attributes);
        if (code != 0) break;
    }
    lib.call_g_list_free_full(items, lib.call_g_object_unref);
    if (code == -1 && error_out) *error_out = strdup("out of memory listing keyring items");
    return code != 0 ? code : count;
}

int vein_secret_relabel(const char *const *match, const char *const *attributes, const char *label, char **error_out) {
    if (lib_ready(error_out) != 0) return -1;
    int code;
    GList *items = search(match, &code, error_out);
    if (code != 0) return code;
    int count = 0;
    GHashTable *table = attribute_table(attributes);
    for (GList *l = items; l && code == 0; l = l->next) {
        GError *error = NULL;
        if (!lib.call_secret_item_set_attributes_sync(l->data, vein_schema(), table, NULL, &error) || error) {
            code = fail(error, error_out);
        } else if (label && (!lib.call_secret_item_set_label_sync(l->data, label, NULL, &error) || error)) {
            code = fail(error, error_out);
        } else {
            count++;
        }
    }
    lib.call_g_hash_table_unref(table);
    lib.call_g_list_free_full(items, lib.call_g_object_unref);
    return code != 0 ? code : count;
}

int vein_secret_store_with(const char *const *attributes, const char *label, const char *secret, char **error_out) {
    if (lib_ready(error_out) != 0) return -1;
    GError *error = NULL;
    GHashTable *table = attribute_table(attributes);
    gboolean ok = lib.call_secret_password_storev_sync(vein_schema(), table, VEIN_SECRET_COLLECTION_DEFAULT, label, secret, NULL, &error);
    lib.call_g_hash_table_unref(table);
    if (!ok || error) return fail(error, error_out);
    return 0;
}

int vein_secret_delete(const char *const *match, char **error_out) {
    if (lib_ready(error_out) != 0) return -1;
    int code;
    GList *items = search(match, &code, error_out);
    if (code != 0) return code;
    int count = 0;
    for (GList *l = items; l && code == 0; l = l->next) {
        GError *error = NULL;
        if (!lib.call_secret_item_delete_sync(l->data, NULL, &error) || error) code = fail(error, error_out); else count++;
    }
    lib.call_g_list_free_full(items, lib.call_g_object_unref);
    return code != 0 ? code : count;
}

void vein_secret_free_secret(char *secret) {
    if (!secret) return;
    explicit_bzero(secret, strlen(secret));
    free(secret);
}

void vein_secret_free_message(char *message) {
    free(message);
}
