package frodo

// AESImpls lists the AES row generators this build and CPU run, the
// default first (crypto/aes last), and ForceAES makes the keys made after
// it use the one named.
var AESImpls, ForceAES = aesImplsByName()

// ForEachLevel runs a test at every level this machine runs (see
// cpuLevels, levels_test.go).
var ForEachLevel = cpuLevels.ForEach
