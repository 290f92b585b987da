// OpenSSL's libcrypto, which SQLCipher already links for its ciphers: random bytes and SHA-256.
#include <openssl/rand.h>
#include <openssl/evp.h>
