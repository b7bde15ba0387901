"""The analysis layer: the paper's tables and figures from the session store (`tauplay stats`, `plot`,
`report`, the app's statistics screen). It reads through the store's grouped queries and computes on their
small results; it imports core and store, and matplotlib only inside the functions that draw a figure."""
