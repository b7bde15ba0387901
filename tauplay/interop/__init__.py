"""Import and export: tau-bench / tau-Emotion-Bench and tau2-bench results, task sets, labelled sessions and
training data. Conversions are pure functions over plain values; `tauplay.interop.store_io` is the thin glue
that reads from and writes to the session store."""
