"""The instruments of the platform, each a plug-in app with the same file set (see `instruments.base`)."""
