#include "vein_secret.h"
#include <libsecret/secret.h>
#include <string.h>

// The schema name is part of every item's attributes (xdg:schema), so it must never change:
// items written by one version of Vein have to be found by every later one.
static const SecretSchema *vein_schema(void) {
    static const SecretSchema schema = {
        "org.vein.StoreKey", SECRET_SCHEMA_NONE,
        {
            { "app", SECRET_SCHEMA_ATTRIBUTE_STRING },
            { "store", SECRET_SCHEMA_ATTRIBUTE_STRING },
            { "state", SECRET_SCHEMA_ATTRIBUTE_STRING },
            { NULL, 0 },
        }
    };
    return &schema;
}

static int fail(GError *error, char **error_out) {
    // A locked collection is its own answer (SPEC §6: "the keyring is locked", never "no key").
    int code = error && g_error_matches(error, SECRET_ERROR, SECRET_ERROR_IS_LOCKED) ? VEIN_SECRET_LOCKED : -1;
    if (error_out) {
        *error_out = g_strdup(error && error->message ? error->message : "unknown Secret Service error");
    }
    if (error) g_error_free(error);
    return code;
}

int vein_secret_store(const char *app, const char *store_path, const char *state,
                      const char *label, const char *secret, char **error_out) {
    GError *error = NULL;
    gboolean ok = secret_password_store_sync(vein_schema(), SECRET_COLLECTION_DEFAULT, label, secret,
                                             NULL, &error,
                                             "app", app, "store", store_path, "state", state, NULL);
    if (!ok || error) return fail(error, error_out);
    return 0;
}

int vein_secret_lookup(const char *store_path, const char *state, char **secret_out, char **error_out) {
    // Not secret_password_lookup_sync: when the collection stays locked (the unlock prompt was dismissed
    // or could not be shown) it returns no secret and no error, which would read as "no such item".
    // Searching for the items themselves tells "none" from "there, but locked".
    GError *error = NULL;
    SecretService *service = secret_service_get_sync(SECRET_SERVICE_OPEN_SESSION, NULL, &error);
    if (!service) return fail(error, error_out);
    GHashTable *attributes = secret_attributes_build(vein_schema(), "store", store_path, "state", state, NULL);
    GList *items = secret_service_search_sync(service, vein_schema(), attributes,
                                              SECRET_SEARCH_ALL | SECRET_SEARCH_UNLOCK | SECRET_SEARCH_LOAD_SECRETS,
                                              NULL, &error);
    g_hash_table_unref(attributes);
    g_object_unref(service);
    if (error) {
        g_list_free_full(items, g_object_unref);
        return fail(error, error_out);
    }
    int result = 0;
    for (GList *l = items; l && result != 1; l = l->next) {
        SecretItem *item = l->data;
        if (secret_item_get_locked(item)) { result = VEIN_SECRET_LOCKED; continue; }
        SecretValue *value = secret_item_get_secret(item);
        const gchar *text = value ? secret_value_get_text(value) : NULL;
        if (text) {
            *secret_out = g_strdup(text);  // wiped by vein_secret_free_secret
            result = 1;
        }
        if (value) secret_value_unref(value);
    }
    g_list_free_full(items, g_object_unref);
    if (result == VEIN_SECRET_LOCKED && error_out) *error_out = g_strdup("the collection holding the key is locked");
    return result;
}

int vein_secret_clear(const char *store_path, const char *state, char **error_out) {
    GError *error = NULL;
    gboolean removed = secret_password_clear_sync(vein_schema(), NULL, &error,
                                                  "store", store_path, "state", state, NULL);
    if (error) return fail(error, error_out);
    return removed ? 1 : 0;
}

void vein_secret_free_secret(char *secret) {
    if (!secret) return;
    explicit_bzero(secret, strlen(secret));
    g_free(secret);
}

void vein_secret_free_message(char *message) {
    g_free(message);
}
