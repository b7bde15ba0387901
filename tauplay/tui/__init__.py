"""The Textual app: screens, widgets and the styles; the only layer that imports textual."""
