"""`audit serve`: audit history, review and sign-off over HTTP and in a browser (needs the `service` extra)."""
