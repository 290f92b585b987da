// Compiled (never run) by Tests/VeinTests/SecretABITests.swift against libsecret-1-dev's headers: fails to
// compile when Sources/CVeinSecret/secret_abi.h, which vein_secret.c uses instead of those headers so that
// libsecret is not linked, disagrees with them about a function type, a constant or a structure layout.
#include <libsecret/secret.h>
#include <stddef.h>
#define VEIN_SECRET_ABI_CHECK 1
#include "secret_abi.h"

// An initialisation from an incompatible function pointer type is an error under -Werror (the test passes
// it); not __builtin_types_compatible_p, which also tells G_GNUC_CONST functions apart.
#define SAME_FUNCTION_TYPE(name, result, parameters) vein_fn_##name check_##name = &name;
VEIN_SECRET_FUNCTIONS(SAME_FUNCTION_TYPE)

#define SAME_VALUE(ours, theirs) _Static_assert((long)(ours) == (long)(theirs), #ours " differs from libsecret's " #theirs);
SAME_VALUE(VEIN_SECRET_SCHEMA_NONE, SECRET_SCHEMA_NONE)
SAME_VALUE(VEIN_SECRET_SCHEMA_ATTRIBUTE_STRING, SECRET_SCHEMA_ATTRIBUTE_STRING)
SAME_VALUE(VEIN_SECRET_SERVICE_OPEN_SESSION, SECRET_SERVICE_OPEN_SESSION)
SAME_VALUE(VEIN_SECRET_SEARCH_ALL, SECRET_SEARCH_ALL)
SAME_VALUE(VEIN_SECRET_SEARCH_UNLOCK, SECRET_SEARCH_UNLOCK)
SAME_VALUE(VEIN_SECRET_SEARCH_LOAD_SECRETS, SECRET_SEARCH_LOAD_SECRETS)
SAME_VALUE(VEIN_SECRET_ERROR_IS_LOCKED, SECRET_ERROR_IS_LOCKED)
_Static_assert(__builtin_strcmp(VEIN_SECRET_COLLECTION_DEFAULT, SECRET_COLLECTION_DEFAULT) == 0, "default collection");

// The integer types stand for libsecret's enums in secret_abi.h: same size, so passed alike.
SAME_VALUE(sizeof(unsigned int), sizeof(SecretServiceFlags))
SAME_VALUE(sizeof(unsigned int), sizeof(SecretSearchFlags))
SAME_VALUE(sizeof(unsigned int), sizeof(SecretSchemaFlags))
SAME_VALUE(sizeof(unsigned int), sizeof(SecretSchemaAttributeType))

// Layouts: our field lists as structures of their own, compared field by field with the real ones.
struct OurGError { VEIN_GERROR_FIELDS };
struct OurGList { VEIN_GLIST_FIELDS(struct OurGList) };
struct OurAttribute { VEIN_SECRET_SCHEMA_ATTRIBUTE_FIELDS };
struct OurSchema { VEIN_SECRET_SCHEMA_FIELDS(struct OurAttribute) };
#define SAME_FIELD(ours, theirs, field) \
    SAME_VALUE(offsetof(ours, field), offsetof(theirs, field)) \
    SAME_VALUE(sizeof(((ours *)0)->field), sizeof(((theirs *)0)->field))
SAME_VALUE(sizeof(struct OurGError), sizeof(GError))
SAME_FIELD(struct OurGError, GError, domain)
SAME_FIELD(struct OurGError, GError, code)
SAME_FIELD(struct OurGError, GError, message)
SAME_VALUE(sizeof(struct OurGList), sizeof(GList))
SAME_FIELD(struct OurGList, GList, data)
SAME_FIELD(struct OurGList, GList, next)
SAME_FIELD(struct OurGList, GList, prev)
SAME_VALUE(sizeof(struct OurAttribute), sizeof(SecretSchemaAttribute))
SAME_FIELD(struct OurAttribute, SecretSchemaAttribute, name)
SAME_FIELD(struct OurAttribute, SecretSchemaAttribute, type)
SAME_VALUE(sizeof(struct OurSchema), sizeof(SecretSchema))
SAME_FIELD(struct OurSchema, SecretSchema, name)
SAME_FIELD(struct OurSchema, SecretSchema, flags)
SAME_FIELD(struct OurSchema, SecretSchema, attributes)
SAME_FIELD(struct OurSchema, SecretSchema, reserved)
SAME_FIELD(struct OurSchema, SecretSchema, reserved7)
