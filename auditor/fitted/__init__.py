"""Preprocessing artifacts fitted before the split, and the recomputation that tells which rows they saw."""
