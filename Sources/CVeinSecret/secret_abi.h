#ifndef VEIN_SECRET_ABI_H
#define VEIN_SECRET_ABI_H

// The part of libsecret's and GLib's ABI that vein_secret.c calls, declared here instead of taken from
// <libsecret/secret.h>: SwiftPM links every library pkg-config names for a target's headers, and a linked
// libsecret (with GLib, GObject and GIO) cost every `vein` process its loading and relocation at start.
// The library is opened with dlopen at first use instead (vein_secret.c).
//
// Tests/VeinTests/SecretABITests.swift compiles secret_abi_check.c, which includes the real headers from
// libsecret-1-dev with this file in VEIN_SECRET_ABI_CHECK mode and asserts that every function type,
// constant and structure layout below is the one libsecret declares.

#include <stdint.h>

#ifndef VEIN_SECRET_ABI_CHECK
typedef int gboolean;
typedef char gchar;
typedef int gint;
typedef unsigned int guint;
typedef void *gpointer;
typedef const void *gconstpointer;
typedef uint32_t GQuark;
typedef void (*GDestroyNotify)(gpointer data);
typedef guint (*GHashFunc)(gconstpointer key);
typedef gboolean (*GEqualFunc)(gconstpointer a, gconstpointer b);
typedef struct _GCancellable GCancellable;
typedef struct _GHashTable GHashTable;
typedef struct _SecretService SecretService;
typedef struct _SecretItem SecretItem;
typedef struct _SecretValue SecretValue;
typedef unsigned int SecretServiceFlags;
typedef unsigned int SecretSearchFlags;
typedef unsigned int SecretSchemaFlags;
typedef unsigned int SecretSchemaAttributeType;
#endif

// Structures the shim reads or builds, as field lists so that the check can compare them field by field.
#define VEIN_GERROR_FIELDS GQuark domain; gint code; gchar *message;
#define VEIN_GLIST_FIELDS(list) gpointer data; list *next; list *prev;
#define VEIN_SECRET_SCHEMA_ATTRIBUTE_FIELDS const gchar *name; SecretSchemaAttributeType type;
#define VEIN_SECRET_SCHEMA_FIELDS(attribute) \
    const gchar *name; SecretSchemaFlags flags; attribute attributes[32]; \
    gint reserved; gpointer reserved1; gpointer reserved2; gpointer reserved3; gpointer reserved4; \
    gpointer reserved5; gpointer reserved6; gpointer reserved7;

#ifndef VEIN_SECRET_ABI_CHECK
typedef struct _GError { VEIN_GERROR_FIELDS } GError;
typedef struct _GList GList;
struct _GList { VEIN_GLIST_FIELDS(GList) };
typedef struct { VEIN_SECRET_SCHEMA_ATTRIBUTE_FIELDS } SecretSchemaAttribute;
typedef struct { VEIN_SECRET_SCHEMA_FIELDS(SecretSchemaAttribute) } SecretSchema;
#endif

enum {
    VEIN_SECRET_SCHEMA_NONE = 0,
    VEIN_SECRET_SCHEMA_ATTRIBUTE_STRING = 0,
    VEIN_SECRET_SERVICE_OPEN_SESSION = 1 << 1,
    VEIN_SECRET_SEARCH_ALL = 1 << 1,
    VEIN_SECRET_SEARCH_UNLOCK = 1 << 2,
    VEIN_SECRET_SEARCH_LOAD_SECRETS = 1 << 3,
    VEIN_SECRET_ERROR_IS_LOCKED = 2,
};
#define VEIN_SECRET_COLLECTION_DEFAULT "default"

// X(name, return type, parameters): every function the shim looks up, with its prototype.
#define VEIN_SECRET_FUNCTIONS(X) \
    X(secret_password_store_sync, gboolean, (const SecretSchema *schema, const gchar *collection, const gchar *label, \
                                             const gchar *password, GCancellable *cancellable, GError **error, ...)) \
    X(secret_password_clear_sync, gboolean, (const SecretSchema *schema, GCancellable *cancellable, GError **error, ...)) \
    X(secret_service_get_sync, SecretService *, (SecretServiceFlags flags, GCancellable *cancellable, GError **error)) \
    X(secret_service_search_sync, GList *, (SecretService *service, const SecretSchema *schema, GHashTable *attributes, \
                                            SecretSearchFlags flags, GCancellable *cancellable, GError **error)) \
    X(secret_password_storev_sync, gboolean, (const SecretSchema *schema, GHashTable *attributes, const gchar *collection, \
                                              const gchar *label, const gchar *password, GCancellable *cancellable, GError **error)) \
    X(secret_item_get_attributes, GHashTable *, (SecretItem *self)) \
    X(secret_item_set_attributes_sync, gboolean, (SecretItem *self, const SecretSchema *schema, GHashTable *attributes, \
                                                  GCancellable *cancellable, GError **error)) \
    X(secret_item_set_label_sync, gboolean, (SecretItem *self, const gchar *label, GCancellable *cancellable, GError **error)) \
    X(secret_item_delete_sync, gboolean, (SecretItem *self, GCancellable *cancellable, GError **error)) \
    X(secret_item_get_locked, gboolean, (SecretItem *self)) \
    X(secret_item_get_secret, SecretValue *, (SecretItem *self)) \
    X(secret_value_get_text, const gchar *, (SecretValue *value)) \
    X(secret_value_unref, void, (gpointer value)) \
    X(secret_error_get_quark, GQuark, (void)) \
    X(g_error_matches, gboolean, (const GError *error, GQuark domain, gint code)) \
    X(g_error_free, void, (GError *error)) \
    X(g_hash_table_unref, void, (GHashTable *hash_table)) \
    X(g_hash_table_new, GHashTable *, (GHashFunc hash_func, GEqualFunc key_equal_func)) \
    X(g_hash_table_insert, gboolean, (GHashTable *hash_table, gpointer key, gpointer value)) \
    X(g_hash_table_lookup, gpointer, (GHashTable *hash_table, gconstpointer key)) \
    X(g_hash_table_get_keys, GList *, (GHashTable *hash_table)) \
    X(g_str_hash, guint, (gconstpointer v)) \
    X(g_str_equal, gboolean, (gconstpointer v1, gconstpointer v2)) \
    X(g_list_free, void, (GList *list)) \
    X(g_object_unref, void, (gpointer object)) \
    X(g_list_free_full, void, (GList *list, GDestroyNotify free_func))

#define VEIN_SECRET_FUNCTION_TYPE(name, result, parameters) typedef result (*vein_fn_##name) parameters;
VEIN_SECRET_FUNCTIONS(VEIN_SECRET_FUNCTION_TYPE)

#endif
