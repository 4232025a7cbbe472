"""Ground floor: the config contract, findings and reports, errors, split roles and atomic output."""
