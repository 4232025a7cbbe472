"""The manifest and its columnar kernels: readers, the table, key codes, counts, repeats, components, digests."""
