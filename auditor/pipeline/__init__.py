"""The Stage protocol, the entry-point registry and the runner that turns stages into a Report."""
