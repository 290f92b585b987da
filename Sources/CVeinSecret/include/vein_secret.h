#ifndef VEIN_SECRET_H
#define VEIN_SECRET_H

// A non-variadic face on libsecret: Swift cannot call C variadic functions such as
// secret_password_store_sync, so these wrappers fix Vein's schema and attribute set.
//
// Every function reports failure through *error_out (a message to free with
// vein_secret_free_message) and never takes "the service could not be reached" for
// "no such item": callers must be able to tell the two apart (ARCHITECTURE.md I10).

/// Returned instead of -1 when the item (or the collection to write into) is locked and stays locked.
#define VEIN_SECRET_LOCKED -2

/// Stores `secret` for the store at `store_path` (attributes app, store, state). Returns 0, -1, or VEIN_SECRET_LOCKED.
int vein_secret_store(const char *app, const char *store_path, const char *state,
                      const char *label, const char *secret, char **error_out);

/// Looks up the secret for `store_path` in `state`. Returns 1 and sets *secret_out when found,
/// 0 when the service answered that no such item exists, VEIN_SECRET_LOCKED when it exists but stays
/// locked (the unlock prompt was dismissed or could not be shown), -1 on error.
int vein_secret_lookup(const char *store_path, const char *state, char **secret_out, char **error_out);

/// Removes the secret for `store_path` in `state`. Returns 1 when removed, 0 when none existed, -1 (or VEIN_SECRET_LOCKED) on error.
int vein_secret_clear(const char *store_path, const char *state, char **error_out);

// The calls below take attributes as a NULL-terminated array of alternating names and values, and
// match items that have at least those attributes (all of Vein's items when empty).

/// Called once per item with its attributes (as above; libsecret's own xdg:schema among them) and its secret
/// as text (NULL when it holds none). Both are valid during the call only.
typedef void (*vein_secret_visitor)(void *context, const char *const *attributes, const char *secret);

/// Calls `visit` for every item matching `match`. Returns the number of items, VEIN_SECRET_LOCKED when one
/// stays locked (then none is visited), -1 on error.
int vein_secret_search(const char *const *match, vein_secret_visitor visit, void *context, char **error_out);

/// Gives every item matching `match` the attribute set `attributes` (in place of its own) and, unless NULL,
/// the label `label`; the secret stays. Returns the number of items changed, -1 or VEIN_SECRET_LOCKED.
int vein_secret_relabel(const char *const *match, const char *const *attributes, const char *label, char **error_out);

/// Stores `secret` under the attribute set `attributes`, replacing an item with exactly that set. Returns 0,
/// -1, or VEIN_SECRET_LOCKED.
int vein_secret_store_with(const char *const *attributes, const char *label, const char *secret, char **error_out);

/// Deletes every item matching `match`. Returns the number deleted, -1 or VEIN_SECRET_LOCKED.
int vein_secret_delete(const char *const *match, char **error_out);

/// Frees a secret returned by vein_secret_lookup, wiping its memory first.
void vein_secret_free_secret(char *secret);

/// Frees an error message.
void vein_secret_free_message(char *message);

#endif
