"""Near copies: perceptual hashes and Hamming search for images, shingles and MinHash for texts, and the
pairing of a manifest's content units across splits; above the manifest, below the stages."""
