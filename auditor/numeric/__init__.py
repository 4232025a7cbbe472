"""Running the user's model, batch and loss on a tiny batch: loading the code, calling it, tracing it."""
