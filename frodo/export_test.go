package frodo

// For the external tests: the AES row generator's paths.
var (
	// HasVAES says whether the default AES path is VAES.
	HasVAES = haveVAES
	// ForceAESNI makes new operations use AES-NI over VAES (see
	// forceAESNI).
	ForceAESNI = forceAESNI
)
