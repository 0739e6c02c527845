//! Integration tests of onav-build3d, one binary (house style).
