#include <stddef.h>
#include "vein_references.h"

// Exported by libswiftCore, which every Swift program links. swift_tryRetain returns the object it
// retained, or NULL when it retained nothing.
extern void *swift_unownedRetain(void *object);
extern void swift_unownedRelease(void *object);
extern void *swift_tryRetain(void *object);

void vein_unowned_retain(void *object) { swift_unownedRetain(object); }

void vein_unowned_release(void *object) { swift_unownedRelease(object); }

bool vein_try_retain(void *object) { return swift_tryRetain(object) != NULL; }
