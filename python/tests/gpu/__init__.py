"""GPU tests: skipped where there is no NVIDIA driver, GPU or (for some) torch."""
