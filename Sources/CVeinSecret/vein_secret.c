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
    if (error_out) {
        *error_out = g_strdup(error && error->message ? error->message : "unknown Secret Service error");
    }
    if (error) g_error_free(error);
    return -1;
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
    GError *error = NULL;
    gchar *secret = secret_password_lookup_sync(vein_schema(), NULL, &error,
                                                "store", store_path, "state", state, NULL);
    if (error) return fail(error, error_out);
    if (!secret) return 0;
    *secret_out = secret;
    return 1;
}

int vein_secret_clear(const char *store_path, const char *state, char **error_out) {
    GError *error = NULL;
    gboolean removed = secret_password_clear_sync(vein_schema(), NULL, &error,
                                                  "store", store_path, "state", state, NULL);
    if (error) return fail(error, error_out);
    return removed ? 1 : 0;
}

void vein_secret_free_secret(char *secret) {
    if (secret) secret_password_free(secret);
}

void vein_secret_free_message(char *message) {
    g_free(message);
}
