//! Bench scenarios.
