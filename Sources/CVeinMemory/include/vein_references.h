#ifndef VEIN_REFERENCES_H
#define VEIN_REFERENCES_H

#include <stdbool.h>

// The Swift runtime's unowned references, as the runtime itself implements `unowned` (libswiftCore's
// swift_unownedRetain, swift_unownedRelease and swift_tryRetain, C calling convention), for a reference
// that may outlive its object without a weak reference's side table. Swift offers `unowned`, which traps
// when read after the object is gone, and `weak`, which allocates a side table per object; neither reads
// "the object if it still lives" without one. `object` is a Swift class instance.

/// Keeps `object`'s memory (not the object) until `vein_unowned_release`.
void vein_unowned_retain(void *object);

/// Undoes one `vein_unowned_retain`: the memory goes once the object is gone and no unowned reference is left.
void vein_unowned_release(void *object);

/// Takes a strong reference to `object` when it is not being deinitialized (true), else none (false).
/// `object`'s memory must be kept by an unowned reference.
bool vein_try_retain(void *object);

#endif
