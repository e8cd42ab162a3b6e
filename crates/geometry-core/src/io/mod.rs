//! Mesh file I/O (SKELETON: being written by a helper).
