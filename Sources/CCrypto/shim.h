// OpenSSL's libcrypto, which SQLCipher already links for its ciphers: random bytes and SHA-256.
#include <openssl/rand.h>
#include <openssl/evp.h>

// AES-256-GCM's controls, as functions: the EVP_CTRL_GCM_* names are macros of macros.
static inline int vein_gcm_set_iv_length(EVP_CIPHER_CTX *context, int length) {
    return EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_SET_IVLEN, length, NULL);
}
static inline int vein_gcm_get_tag(EVP_CIPHER_CTX *context, unsigned char *tag, int length) {
    return EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_GET_TAG, length, tag);
}
static inline int vein_gcm_set_tag(EVP_CIPHER_CTX *context, unsigned char *tag, int length) {
    return EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_SET_TAG, length, tag);
}
