package frodo

// AESImpls lists the assembly AES row generators this build and CPU run,
// the default first, and ForceAES makes new operations use the one named.
var AESImpls, ForceAES = aesImplsByName()
