"""The near-duplicate benchmark's evaluation set: real photos and documents installed on this machine, and the
edits the benchmark makes to them."""
