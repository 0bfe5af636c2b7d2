"""The bridge to the Rust core: scenario documents, running variants, calibration, the
declared model parameters and the engine build."""
