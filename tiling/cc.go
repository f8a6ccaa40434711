package tiling

// ArchForCC is the target whose cubins run on a device of compute
// capability major.minor. Arch-specific ("a") cubins run on exactly one
// capability: sm_90a on 9.0, sm_100a on 10.0.
func ArchForCC(major, minor int) (Arch, bool) {
	switch {
	case major == 9 && minor == 0:
		return ArchSM90a, true
	case major == 10 && minor == 0:
		return ArchSM100a, true
	}
	return "", false
}
